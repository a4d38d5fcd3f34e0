/**
 * The vocabulary between the agent loop and the provider adapters: what the model is offered
 * (tools, settings), what it says (a turn, its stop reason and usage) and what it is given back
 * (tool outcomes). Plain JSON, like the run state that embeds it.
 */

export type StopKind =
	| 'end_turn'
	| 'tool_use'
	| 'max_tokens'
	| 'stop_sequence'
	| 'pause_turn'
	| 'refusal'
	| 'context_exceeded'
	| 'other';

export interface Usage {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
}

/** A tool offered to the model: where it lives, and under which name the provider sees it. */
export interface CatalogTool {
	/** Name sent to the provider (unique, provider-safe). */
	providerName: string;
	/** Name sent to `tools/call`, unchanged. */
	mcpName: string;
	/** Index into the run's server list. */
	serverId: string;
	serverName: string;
	title?: string;
	description?: string;
	inputSchema: Record<string, unknown>;
	annotations?: Record<string, unknown>;
	/** Whether the server's credential says its annotations may be believed. */
	annotationsTrusted: boolean;
	fingerprint: string;
	/** Poisoning or drift warnings, shown to the reviewer. */
	warnings?: string[];
	/** Every call of this tool goes to review (e.g. it drifted from its pinned fingerprint). */
	forceReview?: boolean;
	/**
	 * "n8n": a tool supplied by an n8n tool node (Code Tool, Call n8n Workflow Tool, any node used as
	 * a tool); `serverId`/`serverName` are then that node's name. Absent: a tool of an MCP server.
	 */
	source?: 'n8n';
}

export interface ToolImage {
	mimeType: string;
	data: string;
}

/** A tool result in provider-neutral form, already capped in size. */
export interface ToolOutcome {
	id: string;
	isError: boolean;
	text: string;
	images: ToolImage[];
	/** Set when the text was trimmed for the model (Max Tool Result Characters): characters shown, of how many. */
	trimmed?: { shown: number; total: number };
}

/** What the model said in one turn, normalized by the provider adapter. */
export interface ModelTurn {
	/** Native items to append to the transcript (assistant message or Responses output items). */
	transcriptItems: unknown[];
	text: string;
	toolCalls: Array<{ id: string; name: string; rawArguments: unknown }>;
	stop: StopKind;
	usage: Usage;
	refusal?: string;
	/** The searches the provider's own tool search ran in this turn (on its side), for the tool log. */
	providerSearches?: ProviderSearch[];
}

/** One search of a provider's own tool search, as its answer reports it. */
export interface ProviderSearch {
	id: string;
	/** What the model searched for, as it sent it (a query, a pattern). */
	arguments: unknown;
	/** The provider names of the tools it found (loaded for the model from then on). */
	found: string[];
	/** The provider's error code when the search failed. */
	error?: string;
}

/** What a provider adapter reads to build a request: the model part of the run's settings. */
export interface ModelSettings {
	model: string;
	system?: string;
	maxOutputTokens: number;
	temperature?: number;
	toolChoice: { type: 'auto' } | { type: 'required' } | { type: 'none' } | { type: 'tool'; name: string };
	parallelToolCalls: boolean;
	promptCaching: boolean;
	/** A JSON Schema the final answer must match; the model is asked for JSON in that shape. */
	structuredOutput?: Record<string, unknown>;
}
