import type { CatalogTool, ModelSettings, ModelTurn, ToolOutcome } from './modelTypes';
import type { ApiProviderId, ProviderId } from './providerId';

export type { ApiProviderId, ProviderId };

/**
 * One implementation per provider API. Everything but `send` is pure, so the loop and its tests
 * never need a network; the loop looks an adapter up by id and never branches on which it is.
 */
export interface ProviderAdapter {
	id: ProviderId;
	/** The first transcript: prior conversation (if any) followed by the user's message. */
	initialTranscript(userMessage: string, history: unknown[]): unknown[];
	/**
	 * The request body for one model call. With `search` (the provider's own tool search), the
	 * tools in `search.deferred` are sent with defer_loading and the provider's search tool with them.
	 */
	buildRequest(settings: ModelSettings, tools: CatalogTool[], transcript: unknown[], search?: NativeToolSearch): Record<string, unknown>;
	/** Normalizes a response body. */
	parseResponse(body: unknown): ModelTurn;
	/** Transcript items carrying tool results, correlated by call id. */
	toolResultItems(outcomes: ToolOutcome[]): unknown[];
	/** A plain user message (used to ask for a corrected structured answer). */
	userTextItems(text: string): unknown[];
	/** OpenAI sends arguments as a JSON string, Anthropic as an object. */
	parseArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; error: string };
	/**
	 * Set when the API has its own tool search over deferred tool definitions (run on the
	 * provider's side, its calls and results in the model's answer): the search tool's name, which
	 * no catalog tool may also have.
	 */
	nativeToolSearch?: { toolName: string };
}

/** A request under the provider's own tool search: which of the request's tools are deferred (the others are loaded from the start). */
export interface NativeToolSearch {
	deferred: ReadonlySet<CatalogTool>;
}

/** The network side: sends a built request with the provider's SDK client. */
export interface ModelClient {
	send(body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
	/**
	 * The same request streamed: `onText` gets the model's text as it arrives; the promise resolves
	 * to the complete response in the shape `send` returns, so the adapter parses it unchanged.
	 */
	stream?(body: Record<string, unknown>, onText: (delta: string) => void, signal?: AbortSignal): Promise<unknown>;
	listModels(): Promise<Array<{ id: string; name?: string }>>;
}
