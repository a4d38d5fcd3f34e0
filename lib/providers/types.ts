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
	/** The request body for one model call. */
	buildRequest(settings: ModelSettings, tools: CatalogTool[], transcript: unknown[]): Record<string, unknown>;
	/** Normalizes a response body. */
	parseResponse(body: unknown): ModelTurn;
	/** Transcript items carrying tool results, correlated by call id. */
	toolResultItems(outcomes: ToolOutcome[]): unknown[];
	/** A plain user message (used to ask for a corrected structured answer). */
	userTextItems(text: string): unknown[];
	/** OpenAI sends arguments as a JSON string, Anthropic as an object. */
	parseArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; error: string };
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
