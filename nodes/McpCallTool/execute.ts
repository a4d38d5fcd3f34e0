import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { listToolsCached } from '../../lib/mcp/listing';
import type { McpConnection } from '../../lib/mcp/connection';
import { callToolAnsweringInput, checkToolTask, InputRequestRefused, type AnsweredToolCall, type HandedOffToolCall, type HandOffCallOptions } from '../../lib/mcp/toolCall';
import { McpFailure, type ServerErrorAnswer } from '../../lib/mcp/errors';
import { extractToolResult } from '../../lib/tools/callResult';
import { coerceFieldValues } from '../../lib/tools/schemaFields';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { isAppOnlyTool } from '../../lib/tools/mcpApps';
import { mapWithConcurrency } from '../../lib/util/mapWithConcurrency';
import { parseJsonParameter } from '../../lib/util/jsonParameter';
import { quoteToolName } from '../../lib/tools/toolNameRule';
import { itemParameter } from '../shared/itemParameter';
import { acquireServerConnection } from '../shared/serverConnection';
import { failEveryItem, failItem } from '../shared/nodeErrors';
import { toBinaryData } from '../shared/binaryData';
import { valueAtOwnPath } from '../../lib/util/ownPath';
import { awaitedLater } from '../../lib/util/awaitedLater';
import { TaskFailed, type TaskState } from '../../lib/mcp/toolTask';
import { readTaskPolicy } from '../shared/taskOptions';
import { cleanMessage, progressText, throttleProgress } from '../../lib/mcp/progress';
import { isCallToolTaskWait, type CallToolTaskWaitItem } from '../../lib/approvals/callToolTaskWait';
import { followedOutcome, pausedCall, pauseItems, taskPauseFor, taskWaitsOf, waitOfReturnedItem, type PausedCall, type TaskPause } from './taskPause';

/** Per-item parameter readers (resolved once when they hold no expression). */
interface ItemParameters {
	tool: (itemIndex: number) => string;
	argumentsMode: (itemIndex: number) => string;
	argumentsJson: (itemIndex: number) => unknown;
	argumentsField: (itemIndex: number) => string;
	arguments: (itemIndex: number) => { value?: Record<string, unknown> | null };
}

interface CallOptions {
	concurrency?: number;
	resetTimeoutOnProgress?: boolean;
	binaryPropertyPrefix?: string;
	isErrorHandling?: 'fail' | 'data';
	onInputRequest?: 'decline' | 'fail';
	timeout?: number;
	runAsTask?: 'whenRequired' | 'whenSupported' | 'never';
	maxTaskWait?: number;
	pauseLongTasks?: boolean;
	taskPauseAfter?: number;
}

/** One item's outcome: its Result item, or its call still running as a task (for Task Running). */
type ItemOutcome = { done: INodeExecutionData } | { running: PausedCall };

/** A tool by name, and the tools of the listing it was looked for in (named when it is missing). */
type ToolLookup = (name: string) => Promise<{ tool?: ToolDefinition; known: Map<string, ToolDefinition> }>;

/** The listed tools by name, per listing: a kept connection's cached list maps once, not per execution. */
const toolsByName = new WeakMap<ToolDefinition[], Map<string, ToolDefinition>>();

function indexTools(tools: ToolDefinition[]): Map<string, ToolDefinition> {
	let index = toolsByName.get(tools);
	if (!index) {
		index = new Map(tools.map((tool) => [tool.name, tool]));
		toolsByName.set(tools, index);
	}
	return index;
}

function parameterReaders(context: IExecuteFunctions): ItemParameters {
	return {
		tool: itemParameter(context, 'tool', '', { extractValue: true }),
		argumentsMode: itemParameter(context, 'argumentsMode', 'fields'),
		argumentsJson: itemParameter<unknown>(context, 'argumentsJson', '{}'),
		argumentsField: itemParameter(context, 'argumentsField', ''),
		arguments: itemParameter<{ value?: Record<string, unknown> | null }>(context, 'arguments', { value: null }),
	};
}

/**
 * Every input item over one connection: the tool list is fetched once (or taken from the kept
 * connection's recent listing), each item is validated and called (optionally several at a time),
 * and the connection is released however the run ends (kept for the next execution, or closed
 * when Keep Server Running is off).
 */
export async function executeCallTool(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	// The credential is a database read: the parameters are read while it runs (a warm execution's
	// own work is about a millisecond, a tenth of it here).
	const leasing = awaitedLater(acquireServerConnection(this));
	let read: { options: CallOptions; params: ItemParameters } | { failed: unknown };
	try {
		read = { options: this.getNodeParameter('options', 0, {}) as CallOptions, params: parameterReaders(this) };
	} catch (error) {
		read = { failed: error };
	}
	if ('failed' in read) {
		// A lease handed out is always given back (or the kept connection would count as in use),
		// without holding up the error: n8n's own (an expression's, with its parameter) as it is.
		void leasing.then((lease) => lease.release(), () => undefined);
		throw read.failed;
	}
	const { options, params } = read;
	let lease: Awaited<typeof leasing>;
	try {
		lease = await leasing;
	} catch (error) {
		return [failEveryItem(this, error)];
	}
	const connection = lease.connection;
	try {
		let listed: Map<string, ToolDefinition>;
		try {
			listed = indexTools(await listToolsCached(connection));
		} catch (error) {
			return [failEveryItem(this, error)];
		}
		// A kept connection's listing may be up to a minute old: a tool it lacks is looked for once
		// more in a fresh listing (shared by the execution's items) before the item fails.
		let relisted: Promise<Map<string, ToolDefinition>> | undefined;
		const tools: ToolLookup = async (name) => {
			const found = listed.get(name);
			if (found) return { tool: found, known: listed };
			relisted ??= listToolsCached(connection, { fresh: true }).then(indexTools, () => listed);
			const fresh = await relisted;
			return { tool: fresh.get(name), known: fresh };
		};
		const pause = taskPauseFor(this, options, lease);
		// Only read (and created) when an item pauses or comes back: most executions have no task wait.
		let waits: Record<string, unknown> | undefined;
		const waitsHere = () => (waits ??= taskWaitsOf(this));
		const outcomes = await mapWithConcurrency(items, options.concurrency ?? 1, async (item, itemIndex): Promise<ItemOutcome> => {
			try {
				if (isCallToolTaskWait(item.json)) return await checkReturnedItem.call(this, item.json, itemIndex, tools, connection, options, pause, waitsHere());
				return await callForItem.call(this, itemIndex, tools, connection, options, params, pause);
			} catch (error) {
				return { done: failItem(this, error, itemIndex) };
			}
		});
		const results = outcomes.flatMap((outcome) => ('done' in outcome ? [outcome.done] : []));
		// Task Running exists only with Pause Long Tasks (and not for a tool of n8n's AI Agent, which has one output).
		if (options.pauseLongTasks !== true || runsAsAiAgentTool(this)) return [results];
		const paused = outcomes.flatMap((outcome) => ('running' in outcome ? [outcome.running] : []));
		return [results, pauseItems(this, paused, paused.length ? waitsHere() : {}, connection, options)];
	} finally {
		await lease.release();
	}
}

async function callForItem(
	this: IExecuteFunctions,
	itemIndex: number,
	tools: ToolLookup,
	connection: McpConnection,
	options: CallOptions,
	params: ItemParameters,
	pause: TaskPause | undefined,
): Promise<ItemOutcome> {
	const toolName = String(params.tool(itemIndex) ?? '').trim();
	if (!toolName) throw new NodeOperationError(this.getNode(), 'No tool selected', { itemIndex });
	const { tool, known: listing } = await tools(toolName);
	if (!tool) {
		const known = [...listing.keys()];
		throw new NodeOperationError(this.getNode(), `The server has no tool named ${quoteToolName(toolName)}`, {
			itemIndex,
			description: `Tools on this server: ${known.slice(0, 50).join(', ')}${known.length > 50 ? ', …' : ''}`,
		});
	}
	// MCP Apps: a tool for the app alone is never a model's to call; as a tool of n8n's AI Agent,
	// this node's call is the model's (the person chose the tool, the model when to call it).
	if (isAppOnlyTool(tool) && runsAsAiAgentTool(this)) {
		throw new NodeOperationError(this.getNode(), `Tool ${quoteToolName(tool.name)} is an app-only tool (MCP Apps: its _meta.ui.visibility leaves out "model"), so it is not called for a model`, {
			itemIndex,
			description: 'MCP Call Tool calls such a tool only as a regular node in a workflow, not as a tool of an AI Agent. Choose another tool, or call this one from a workflow step.',
		});
	}
	const args = readArguments.call(this, itemIndex, tool, params);
	const answered = await callOrCheck(this, tool, itemIndex, options, pause ? { handOffAfterMs: pause.handOffAfterMs } : {}, (callOptions) =>
		callToolAnsweringInput(connection, tool, args, callOptions),
	);
	if ('done' in answered) return answered;
	if ('running' in answered) return { running: pausedCall({ tool: tool.name, task: answered.running, ...(answered.notes ? { notes: answered.notes } : {}) }, itemIndex) };
	return { done: await resultItem(this, tool.name, answered, itemIndex, options) };
}

/**
 * An item back from MCP Approval: its task checked (or its outcome taken from this process's
 * follow-up), and its result out on Result as if the call had been quick, or out on Task Running
 * again while it runs. The wait is forgotten once the task has ended, however it ended.
 */
async function checkReturnedItem(
	this: IExecuteFunctions,
	request: CallToolTaskWaitItem,
	itemIndex: number,
	tools: ToolLookup,
	connection: McpConnection,
	options: CallOptions,
	pause: TaskPause | undefined,
	waits: Record<string, unknown>,
): Promise<ItemOutcome> {
	const wait = waitOfReturnedItem(this, request, itemIndex, waits);
	let answered: AnsweredToolCall | HandedOffToolCall | ItemOutcome | undefined;
	try {
		// The tool as listed now (for its output schema), or as it was called if the server no longer lists it.
		const tool = (await tools(wait.tool)).tool ?? { name: wait.tool, inputSchema: { type: 'object' } };
		// Without a pause (Pause Long Tasks turned off meanwhile) the check waits in place up to the task's deadline.
		const handOffAfterMs = pause ? 0 : Math.max(0, wait.task.deadline - Date.now()) + 1_000;
		answered = await callOrCheck(this, tool, itemIndex, options, { handOffAfterMs }, (callOptions) => {
			// What the follow-up saw (last status, last progress) goes on n8n's log as a check's would.
			const followed = followedOutcome(this, wait, callOptions);
			return checkToolTask(connection, tool, wait.task, { ...callOptions, ...(followed ? { followed } : {}) });
		});
	} finally {
		// A task that ended (result, failure, limit) or a check that failed: nothing more to wait for.
		if (!answered || !('running' in answered)) delete waits[request.approvalId];
	}
	if ('running' in answered) return { running: pausedCall({ ...wait, task: answered.running }, itemIndex, request.approvalId) };
	if ('done' in answered) return answered;
	const notes = [...(wait.notes ?? []), ...(answered.notes ?? [])];
	return { done: await resultItem(this, wait.tool, notes.length ? { ...answered, notes } : answered, itemIndex, options) };
}

/**
 * A call or a task check with the node's options (timeout, progress on n8n's log, Stop), a failed
 * task or a JSON-RPC error as an isError item with "Return as Data", and a refused input request
 * explained.
 */
function callOrCheck<T extends AnsweredToolCall | HandedOffToolCall>(
	context: IExecuteFunctions,
	tool: ToolDefinition,
	itemIndex: number,
	options: CallOptions,
	extra: Pick<HandOffCallOptions, 'handOffAfterMs'>,
	run: (callOptions: HandOffCallOptions) => Promise<T>,
): Promise<T | { done: INodeExecutionData }> {
	const returnErrorsAsData = options.isErrorHandling === 'data';
	// Progress on n8n's log, throttled (one line every few seconds at most, and the last one); never arguments.
	const progress = throttleProgress((reported) => {
		if (typeof context.logger?.info !== 'function') return;
		context.logger.info(`MCP Call Tool "${context.getNode().name}": tool ${tool.name} progress ${progressText(reported)}`, {
			tool: tool.name,
			itemIndex,
			progress: reported.progress,
			...(reported.total !== undefined ? { total: reported.total } : {}),
		});
	});
	// A task's status changes on n8n's log too: 2026-07-28 tasks have no progress notifications, their statusMessage says how they go.
	let lastStatus = '';
	const onTaskStatus = (state: TaskState) => {
		const message = typeof state.statusMessage === 'string' ? cleanMessage(state.statusMessage) : '';
		const shown = message ? `${state.status} (${message})` : state.status;
		if (shown === lastStatus || typeof context.logger?.info !== 'function') return;
		lastStatus = shown;
		context.logger.info(`MCP Call Tool "${context.getNode().name}": tool ${tool.name} task ${shown}`, { tool: tool.name, itemIndex, taskStatus: state.status });
	};
	const taskPolicy = readTaskPolicy(options);
	const signal = typeof context.getExecutionCancelSignal === 'function' ? context.getExecutionCancelSignal() : undefined;
	return run({
		timeoutMs: options.timeout && options.timeout > 0 ? options.timeout : undefined,
		resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? true,
		onProgress: (reported) => progress.push(reported),
		onTaskStatus,
		onInputRequest: options.onInputRequest === 'fail' ? 'fail' : 'decline',
		runAsTask: taskPolicy.mode,
		maxTaskWaitMs: taskPolicy.maxWaitMs,
		...extra,
		// n8n's Stop (n8n 1.x may have no cancel signal: calls then end by their timeouts). A task is cancelled on the server.
		...(signal ? { signal } : {}),
	})
		.catch((error: unknown): { done: INodeExecutionData } => {
			// The server answered the call with a JSON-RPC error (a bad query): a tool error in other words.
			if (returnErrorsAsData && McpFailure.isInstance(error) && error.serverError) return { done: serverErrorItem(tool.name, error.serverError, itemIndex) };
			// The server ended the call's task as failed (or cancelled it): a tool error too.
			if (returnErrorsAsData && TaskFailed.isInstance(error)) return { done: taskFailedItem(tool.name, error, itemIndex) };
			if (!InputRequestRefused.isInstance(error)) throw error;
			throw new NodeOperationError(context.getNode(), error.message, {
				itemIndex,
				description: 'Set Options > On Input Request to "Decline" to let the server finish without the input, or use the MCP Agent with MCP Approval so a person can answer.',
			});
		})
		.finally(() => progress.flush());
}

/** A completed call's item: its content, structured result and binaries, or the tool's error. */
async function resultItem(context: IExecuteFunctions, toolName: string, answered: AnsweredToolCall, itemIndex: number, options: CallOptions): Promise<INodeExecutionData> {
	const { result, notes } = answered;
	const output = extractToolResult(toolName, result, options.binaryPropertyPrefix || 'data');
	// After the result's own notes (binaries not stored, ...), which must not be lost.
	if (notes) (output.json as unknown as IDataObject).notes = [...(output.json.notes ?? []), ...notes];
	if (output.json.isError && (options.isErrorHandling ?? 'fail') === 'fail') {
		throw new NodeOperationError(context.getNode(), `Tool ${quoteToolName(toolName)} reported an error: ${output.json.text || 'no message'}`, {
			itemIndex,
			description: 'Set Options > On Tool Error to "Return as Data" to receive such results (and JSON-RPC errors the server answers with) as items.',
		});
	}
	const binary = await toBinaryData(context, output.binaries);
	return { json: output.json as unknown as IDataObject, ...(binary ? { binary } : {}), pairedItem: { item: itemIndex } };
}

/**
 * "Return as Data" for a JSON-RPC error the server answered the call with: shaped like an isError
 * result (`isError: true`, the server's message as `text`), with the error itself as `jsonRpcError`.
 */
function serverErrorItem(tool: string, serverError: ServerErrorAnswer, itemIndex: number): INodeExecutionData {
	const json = { tool, isError: true, text: serverError.message, content: [], jsonRpcError: serverError };
	return { json: json as unknown as IDataObject, pairedItem: { item: itemIndex } };
}

/**
 * "Return as Data" for a task the server ended as failed or cancelled: shaped like an isError
 * result (the message as `text`), with the task's id, status and message as `task`.
 */
function taskFailedItem(tool: string, failure: TaskFailed, itemIndex: number): INodeExecutionData {
	const task = { taskId: failure.taskId, status: failure.status, ...(failure.statusMessage !== undefined ? { statusMessage: failure.statusMessage } : {}) };
	const json = { tool, isError: true, text: failure.message, content: [], task };
	return { json: json as unknown as IDataObject, pairedItem: { item: itemIndex } };
}

/**
 * Whether this run is a tool call of n8n's AI Agent: n8n gives a node used as a tool the type
 * `<type>Tool` (here `…mcpCallToolTool`) and, where it runs the tool as a sub-node, says so itself.
 */
function runsAsAiAgentTool(context: IExecuteFunctions): boolean {
	// isToolExecution is new in n8n 2.x: older hosts (and test doubles) may lack it.
	return context.getNode().type.endsWith('mcpCallToolTool') || context.isToolExecution?.() === true;
}

function readArguments(this: IExecuteFunctions, itemIndex: number, tool: ToolDefinition, params: ItemParameters): unknown {
	const mode = params.argumentsMode(itemIndex);
	if (mode === 'item') {
		// The item itself (or one of its fields) is the arguments object: no expression runs per
		// item, and n8n 2.x evaluates each expression in an isolate (1-2 ms per item).
		const json = this.getInputData()[itemIndex].json as Record<string, unknown>;
		const field = String(params.argumentsField(itemIndex) ?? '').trim();
		const value = field ? valueAtOwnPath(json, field.split('.')) : json;
		if (value === undefined) {
			throw new NodeOperationError(this.getNode(), `The input item has no field "${field}"`, {
				itemIndex,
				description: 'Set Arguments Field to the path of the arguments object, or leave it empty to use the whole item.',
			});
		}
		return value;
	}
	if (mode === 'json') {
		try {
			return parseJsonParameter(params.argumentsJson(itemIndex), 'Arguments (JSON)', {});
		} catch (error) {
			throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex });
		}
	}
	const mapped = params.arguments(itemIndex);
	return coerceFieldValues(tool.inputSchema, mapped?.value ?? {});
}
