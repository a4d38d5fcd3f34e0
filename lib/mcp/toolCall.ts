import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from './connection';
import type { ToolDefinition } from '../tools/toolDefinition';
import { compileArgumentValidator, validateArguments, type ArgumentProblem } from '../tools/argumentValidator';

export interface ToolCallOptions {
	timeoutMs?: number;
	/** Progress notifications from the server restart the timeout (long-running tools). */
	resetTimeoutOnProgress?: boolean;
	/** Upper bound even with progress, so a chatty server cannot hold a call forever. */
	maxTotalTimeoutMs?: number;
	signal?: AbortSignal;
}

export class ArgumentValidationError extends Error {
	constructor(readonly tool: string, readonly problems: ArgumentProblem[], summary: string) {
		super(`Invalid arguments for tool "${tool}": ${summary}`);
		this.name = 'ArgumentValidationError';
	}
}

/**
 * Validates, then calls. A validation failure rejects before any byte reaches the server: model or
 * user input is untrusted until it matches the tool's own schema. (A promise chain rather than
 * async functions: fewer suspended frames on each of a large run's calls.)
 */
export function callToolValidated(
	connection: McpConnection,
	tool: ToolDefinition,
	args: unknown,
	options: ToolCallOptions = {},
): Promise<Record<string, unknown>> {
	let outcome: ReturnType<typeof validateArguments>;
	try {
		outcome = validateArguments(tool.inputSchema, args);
	} catch (error) {
		return Promise.reject(error);
	}
	if (!outcome.valid) return Promise.reject(new ArgumentValidationError(tool.name, outcome.problems, outcome.summary));
	const timeout = options.timeoutMs ?? connection.config.requestTimeoutMs;
	return connection.request(`calling tool "${tool.name}"`, (client) =>
		client
			.callTool({ name: tool.name, arguments: args as Record<string, unknown> }, CallToolResultSchema, {
				timeout,
				resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? false,
				...(options.resetTimeoutOnProgress ? { maxTotalTimeout: options.maxTotalTimeoutMs ?? timeout * 10, onprogress: () => undefined } : {}),
				...(options.signal ? { signal: options.signal } : {}),
			})
			.then((result) => {
				checkToolOutput(tool, result);
				return result as Record<string, unknown>;
			}),
	);
}

/**
 * The check Client.callTool() makes when Client.listTools() cached the tool's output schema, which
 * no longer happens since listAllTools() skips listTools() for speed: a tool with an outputSchema
 * must return structuredContent that matches it, unless isError. Only the tool actually called is
 * compiled (on first use, cached by schema).
 */
export function checkToolOutput(tool: Pick<ToolDefinition, 'name' | 'outputSchema'>, result: Record<string, unknown>): void {
	if (!tool.outputSchema || result.isError === true) return;
	if (result.structuredContent === undefined) {
		throw new McpError(ErrorCode.InvalidRequest, `Tool ${tool.name} has an output schema but did not return structured content`);
	}
	let validate: ReturnType<typeof compileArgumentValidator>;
	try {
		validate = compileArgumentValidator(tool.outputSchema);
	} catch (error) {
		throw new McpError(ErrorCode.InvalidParams, `Failed to validate structured content: ${(error as Error).message}`);
	}
	let valid: boolean;
	try {
		valid = validate(result.structuredContent) as boolean;
	} catch (error) {
		// An output schema that recurses without end or exhausts the reference budget (SchemaCompileError).
		throw new McpError(ErrorCode.InvalidParams, `Failed to validate structured content: ${(error as Error).message}`);
	}
	if (!valid) {
		const details = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join(', ');
		throw new McpError(ErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${details}`);
	}
}
