/**
 * The package's one error family. Every failure the package raises on purpose is an McpAgentError
 * (or a subclass: McpFailure, ProviderError, SettingsError, …), so the node glue maps all of them
 * in one place (nodes/shared/nodeErrors.ts) without knowing each class.
 *
 * As in vercel/ai: a marker symbol and `isInstance` instead of `instanceof` (two copies of the
 * package, or of a module bundled twice, still recognise each other's errors); the HTTP status of a
 * remote failure kept apart from the package's own `code`.
 */
const MARKER = Symbol.for('n8n-nodes-mcp-agent.error');

/**
 * What kind of failure it is, for the node glue and for callers that branch without parsing text:
 * - `config`: a parameter, credential or option is wrong; the user fixes the workflow.
 * - `remote`: an MCP server or model provider failed or refused; `httpStatus` when there was one.
 * - `review`: a decision, answer or resume request was refused (forged, stale, incomplete).
 * - `state`: stored run state that this version cannot read (a newer schema, or damaged).
 * - `tool`: a tool call was refused or failed before reaching a server (validation, input requests).
 */
export type McpAgentErrorCode = 'config' | 'remote' | 'review' | 'state' | 'tool';

export interface McpAgentErrorOptions {
	code: McpAgentErrorCode;
	/** What to do about it, for n8n's error description. */
	description?: string;
	/** The remote side's HTTP status, when the failure was an HTTP answer. */
	httpStatus?: number;
	cause?: unknown;
}

export class McpAgentError extends Error {
	readonly [MARKER] = true;
	readonly code: McpAgentErrorCode;
	readonly description?: string;
	readonly httpStatus?: number;

	constructor(message: string, options: McpAgentErrorOptions) {
		super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
		this.name = 'McpAgentError';
		this.code = options.code;
		if (options.description !== undefined) this.description = options.description;
		if (options.httpStatus !== undefined) this.httpStatus = options.httpStatus;
	}

	static isInstance(error: unknown): error is McpAgentError {
		return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
	}
}

/** A parameter, option or credential field that cannot be used as given. */
export function configError(message: string, description?: string): McpAgentError {
	return new McpAgentError(message, { code: 'config', ...(description !== undefined ? { description } : {}) });
}
