import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from '../mcp/connection';
import { McpFailure } from '../mcp/errors';
import { checkToolOutput } from '../mcp/toolCall';
import { setEntry } from './ownEntry';
import { outputSchemaKey } from './servers';
import { mapWithConcurrency } from '../util/mapWithConcurrency';
import { errorOutcome, toolOutcomeFromMcp, type OutcomeLimits } from './toolOutcome';
import type { PlannedCall, ToolOutcome } from './types';

export interface ToolRunnerOptions {
	connections: Map<string, McpConnection>;
	concurrency: number;
	timeoutMs: number;
	limits: OutcomeLimits;
	/** From connectServers(): the output schemas to check results against. */
	outputSchemas?: Map<string, Record<string, unknown>>;
}

export interface ToolRunResult {
	outcomes: ToolOutcome[];
	durations: Record<string, number>;
}

/**
 * Runs every requested call of a turn (bounded concurrency, per-call timeout). Nothing here
 * throws: a timeout, a dead server or an MCP isError all become error results for the model.
 */
export function runToolCalls(calls: PlannedCall[], options: ToolRunnerOptions): Promise<ToolRunResult> {
	const durations: Record<string, number> = {};
	// One call per turn is the common case: no lanes to schedule. (Not an async function: one
	// suspended frame less per turn; runOne and mapWithConcurrency never throw synchronously.)
	if (calls.length === 1) return runOne(calls[0], options, durations).then((outcome) => ({ outcomes: [outcome], durations }));
	return mapWithConcurrency(calls, options.concurrency, (call) => runOne(call, options, durations)).then((outcomes) => ({ outcomes, durations }));
}

/** One call to its outcome; never rejects. A promise chain, not an async function: one suspended frame less per call. */
function runOne(call: PlannedCall, options: ToolRunnerOptions, durations: Record<string, number>): Promise<ToolOutcome> {
	const started = performance.now();
	const done = (outcome: ToolOutcome): ToolOutcome => {
		setEntry(durations, call.id, Math.round(performance.now() - started));
		return outcome;
	};
	const failed = (error: unknown): ToolOutcome => {
		const message = error instanceof McpFailure ? error.summary : error instanceof Error ? error.message : String(error);
		return done(errorOutcome(call.id, `The tool call failed: ${message}`, options.limits));
	};
	try {
		if (!call.tool) return Promise.resolve(done(errorOutcome(call.id, call.rejection ?? 'Unknown tool.', options.limits)));
		const connection = options.connections.get(call.tool.serverId);
		if (!connection) return Promise.resolve(done(errorOutcome(call.id, `Server "${call.tool.serverName}" is not connected.`, options.limits)));
		const { mcpName, serverId } = call.tool;
		return connection
			.request(`calling tool "${mcpName}"`, (client) =>
				client.callTool({ name: mcpName, arguments: call.arguments as Record<string, unknown> }, CallToolResultSchema, { timeout: options.timeoutMs }).then((output) => {
					checkToolOutput({ name: mcpName, outputSchema: options.outputSchemas?.get(outputSchemaKey(serverId, mcpName)) }, output);
					return output as Record<string, unknown>;
				}),
			)
			.then((result) => {
				try {
					return done(toolOutcomeFromMcp(call.id, result, options.limits));
				} catch (error) {
					return failed(error);
				}
			}, failed);
	} catch (error) {
		return Promise.resolve(failed(error));
	}
}
