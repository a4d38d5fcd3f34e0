/**
 * The package's one error family. Every failure the package raises on purpose is an McpAgentError
 * (or a subclass: McpFailure, ProviderError, SettingsError, …), so the node glue maps all of them
 * in one place (nodes/shared/nodeErrors.ts) without knowing each class.
 *
 * As in vercel/ai: a marker symbol and `isInstance` instead of `instanceof` (two copies of the
 * package, or of a module bundled twice, still recognise each other's errors); the HTTP status of a
 * remote failure kept apart from the package's own `code`. The marker is the one way the family is
 * recognised: a subclass that callers must tell apart (McpFailure, ProviderError, …) carries a
 * marker of its own (`Symbol.for`, see hasMarker) and a static `isInstance`; nothing in lib/ or
 * nodes/ tests the family with `instanceof` (test/unit/errorFamily.test.ts keeps it so).
 */
const MARKER = Symbol.for('n8n-nodes-mcp-agent.error');

/**
 * What kind of failure it is, for the node glue and for callers that branch without parsing text:
 * - `config`: a parameter, credential or option is wrong; the user fixes the workflow.
 * - `remote`: an MCP server or model provider failed or refused; `httpStatus` when there was one.
 * - `review`: a decision, answer or resume request was refused (forged, stale, incomplete).
 * - `state`: stored run state that this version cannot read (a newer schema, or damaged).
 * - `tool`: a tool call was refused or failed before reaching a server (validation, input requests).
 * - `cancelled`: the execution was stopped (n8n's Stop, a cancelled execution); nothing to fix.
 */
export type McpAgentErrorCode = 'config' | 'remote' | 'review' | 'state' | 'tool' | 'cancelled';

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
		return hasMarker(error, MARKER);
	}
}

/**
 * Whether `value` carries `marker` (a `Symbol.for` key set to true by a class of the family): the
 * check behind every `isInstance`, true for errors made by another copy of the package as well.
 */
export function hasMarker(value: unknown, marker: symbol): boolean {
	return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * The description of a failure no input can cause (a state the code should never reach): the one
 * thing to do is to report it.
 */
export const REPORT_A_BUG =
	'This is a fault of n8n-nodes-mcp-agent, not of the workflow. Please report it, with this message, at https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent/issues.';

/** A parameter, option or credential field that cannot be used as given. */
export function configError(message: string, description?: string): McpAgentError {
	return new McpAgentError(message, { code: 'config', ...(description !== undefined ? { description } : {}) });
}
