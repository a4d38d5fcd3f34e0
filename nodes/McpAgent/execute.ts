import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { mergeCatalogs, parsePinnedFingerprints, type CatalogOptions, type WithheldEntry } from '../../lib/agent/catalog';
import { buildN8nToolCatalog, groupN8nTools, isN8nTool, isToolkit, type N8nToolIndex, type N8nToolSource } from '../../lib/agent/n8nTools';
import { isChatMemory, loadPriorTurns, saveExchange, type ChatMemory } from '../../lib/agent/memory';
import { agentRunOutput, parseHistory } from '../../lib/agent/output';
import { grantToolKey, runAgent, runStateAtFailure } from '../../lib/agent/runAgent';
import { connectServers, systemWithInstructions, type ConnectedServers } from '../../lib/agent/servers';
import { isServerHandle, type ServerHandle } from '../../lib/agent/serverHandle';
import { buildRunSettings, buildToolLoading, type RawAgentOptions } from '../../lib/agent/settings';
import { createRun, nextEffect } from '../../lib/agent/step';
import { readTaskPauseAfter, readTaskPolicy } from '../shared/taskOptions';
import { runToolCalls, type ToolCallObserver, type ToolRunResult, type ToolRunnerOptions } from '../../lib/agent/toolRunner';
import { progressText, throttleProgress, type ToolProgress } from '../../lib/mcp/progress';
import type { ToolOutcome } from '../../lib/providers/modelTypes';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import { FullResults } from '../../lib/agent/fullResults';
import type { AgentState } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { isApprovalDecision, isApprovalRequest } from '../../lib/approvals/approvalRequest';
import { hasPausedRuns, openStore, type PausedRunStore } from '../../lib/approvals/pausedRuns';
import { actionForItem, mayResume } from '../../lib/approvals/resumeInput';
import type { ItemAction } from '../../lib/approvals/resumeContext';
import { isWiredStraightBack } from '../../lib/approvals/returnedRequestRoute';
import { resumedRuns } from '../../lib/approvals/recentDecisions';
import { allowanceOf, allowanceText } from '../../lib/agent/toolLog';
import type { ApprovalPolicy } from '../../lib/agent/policy';
import { readApprovalRules, type RawRuleEntry } from '../../lib/agent/approvalRulesInput';
import { parsePatternList } from '../../lib/tools/nameFilter';
import type { ModelClient, ProviderId } from '../../lib/providers/types';
import { agentModel, type AgentModel } from './agentModel';
import { inputProvenance, type ResumeProvenance } from './inputProvenance';
import { approvalNodeFollows } from '../shared/approvalWiring';
import { executionIdOf } from '../shared/pausedExecution';
import { pauseForReview, reissueRequest, type HandedOut } from './pauseForReview';
import type { ApprovalOptions } from './approvalOptions';
import { errorItem, failEveryItem, failItem, toNodeError } from '../shared/nodeErrors';
import { itemParameter } from '../shared/itemParameter';
import { nodeOf } from '../shared/nodeOf';
import { grantDriver } from './grantDriver';
import { AGENT_DEFAULTS } from '../../lib/agent/defaults';
import { awaitedLater } from '../../lib/util/awaitedLater';
import { takeWatchedOutcome } from '../../lib/agent/taskWatch';
import type { TaskState } from '../../lib/mcp/toolTask';
import { watchPausedTasks } from './taskWake';

export interface AgentOptions extends RawAgentOptions {
	appendServerInstructions?: boolean;
	includeTranscript?: boolean;
	maxRetries?: number;
	history?: unknown;
	toolConcurrency?: number;
	toolTimeout?: number;
	resetTimeoutOnProgress?: boolean;
	runAsTask?: string;
	maxTaskWait?: number;
	taskPauseAfter?: number;
	enableStreaming?: boolean;
	memorySaveToolCalls?: boolean;
	fullToolResults?: boolean;
}

/** What the tools input supplies: MCP Server sub-nodes and n8n tool nodes. */
export interface ToolSources {
	handles: ServerHandle[];
	n8nTools: N8nToolSource[];
}

/**
 * Reads the tools input: MCP Server sub-nodes (plain handles) and n8n's tool nodes (LangChain tools
 * or toolkits). Anything else is refused by name; so is an input with nothing usable on it.
 */
export async function collectToolSources(context: IExecuteFunctions): Promise<ToolSources> {
	const supplied = await context.getInputConnectionData(NodeConnectionTypes.AiTool, 0);
	// One response per enabled node on the input (a tool, a toolkit, an array of them, or a handle).
	const responses: unknown[] = Array.isArray(supplied) ? supplied : supplied ? [supplied] : [];
	const suppliers = toolInputNodeNames(context, responses.length);
	const handles: ServerHandle[] = [];
	const langChain: unknown[] = [];
	const langChainNodes: Array<string | undefined> = [];
	for (const [index, response] of responses.entries()) {
		for (const entry of [response].flat()) {
			if (isServerHandle(entry)) handles.push(entry);
			else if (isN8nTool(entry) || isToolkit(entry)) {
				langChain.push(entry);
				langChainNodes.push(suppliers[index]);
			} else {
				const name = (entry as { name?: unknown })?.name;
				throw new NodeOperationError(context.getNode(), `The "Tools" input got something that is neither an MCP Server sub-node nor an n8n tool${typeof name === 'string' ? ` ("${name}")` : ''}`, {
					description: 'Connect MCP Server sub-nodes (from this package) and n8n tool nodes (Code Tool, Call n8n Workflow Tool, HTTP Request Tool, any node used as a tool).',
				});
			}
		}
	}
	const n8nTools = groupN8nTools(langChain, langChainNodes);
	// Calls are routed by source name: an n8n tool known by an MCP Server sub-node's name (a tool
	// named after it when n8n 1.x names no node, or a node that names itself so) would take that
	// server's calls, and their review decided on the server's tool. Refused, never guessed.
	const serverNames = new Set(handles.map((handle) => handle.name));
	const clash = n8nTools.find((source) => serverNames.has(source.node));
	if (clash) {
		throw new NodeOperationError(context.getNode(), `An n8n tool on the "Tools" input is known as "${clash.node}", the name of an MCP Server sub-node`, {
			description: 'Rename the MCP Server sub-node (or the n8n tool node) so that every source on the Tools input has its own name.',
		});
	}
	if (handles.length === 0 && n8nTools.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No tools connected', {
			description: 'Connect an "MCP Server" sub-node (with a server credential) or an n8n tool node to the "Tools" input of this node.',
		});
	}
	return { handles, n8nTools };
}

/**
 * The names of the nodes whose responses getInputConnectionData returned, by position: n8n returns
 * one response per enabled node on the input, in the order of getParentNodes (n8n-core's
 * getConnectedNodes, 1.x and 2.x alike). n8n 2.x also names the node in each tool's
 * `metadata.sourceNodeName`; n8n 1.x does not, and these names stand in. Empty when the counts
 * disagree: then no position is trusted.
 */
function toolInputNodeNames(context: IExecuteFunctions, responses: number): Array<string | undefined> {
	if (typeof context.getParentNodes !== 'function') return [];
	const nodes = context.getParentNodes(nodeOf(context).name, { connectionType: NodeConnectionTypes.AiTool, depth: 1 }).filter((node) => !node.disabled);
	return nodes.length === responses ? nodes.map((node) => node.name) : [];
}

/** The chat memory sub-node for an item, if one is connected (it picks the session from the item). */
async function memoryFor(context: IExecuteFunctions, itemIndex: number): Promise<ChatMemory | undefined> {
	const supplied = await context.getInputConnectionData(NodeConnectionTypes.AiMemory, itemIndex);
	const memory = Array.isArray(supplied) ? supplied[0] : supplied;
	if (memory === undefined || memory === null) return undefined;
	if (!isChatMemory(memory)) {
		throw new NodeOperationError(context.getNode(), 'The "Memory" input needs a chat memory node (Simple Memory, Redis Chat Memory, Postgres Chat Memory…)', { itemIndex });
	}
	return memory;
}

function approvalPolicy(context: IExecuteFunctions, itemIndex: number): ApprovalPolicy {
	const options = context.getNodeParameter('approvalOptions', itemIndex, {}) as ApprovalOptions;
	return {
		mode: context.getNodeParameter('requireApprovalFor', itemIndex, AGENT_DEFAULTS.requireApprovalFor) as ApprovalPolicy['mode'],
		listed: parsePatternList(context.getNodeParameter('approvalListedTools', itemIndex, '') as string),
		alwaysAsk: parsePatternList(options.alwaysAsk),
		neverAsk: parsePatternList(options.neverAsk),
		rules: readApprovalRules(
			(context.getNodeParameter('approvalRules', itemIndex, {}) as { rule?: RawRuleEntry[] }).rule,
			options.rulesJson,
		),
	};
}

interface Shared {
	servers: ConnectedServers;
	/** MCP and n8n tools together, names unique across both. */
	catalog: CatalogTool[];
	withheld: WithheldEntry[];
	n8nTools: N8nToolIndex;
	model: ModelClient;
	/** The model a Chat Model sub-node names (new runs record it instead of the hidden Model parameter). */
	modelId?: string;
	provider: ProviderId;
	store: PausedRunStore;
	prompts: Prompts;
	/** Where this execution's input came from (the resume routes trust an answer by it). */
	provenance: ResumeProvenance;
	/** n8n's id of this execution (a Retry runs under a new one). */
	executionId?: string;
	/** An MCP Approval node follows, which can hold a durable task wait (else tasks are waited for in place). */
	canPauseForTasks: boolean;
}

interface Prompts {
	userMessage: (itemIndex: number) => unknown;
	systemPrompt: (itemIndex: number) => string;
}

/**
 * The User Message is an expression on the item (its default is a `??` chain of item paths): read
 * straight from the item when it is only paths, since n8n 2.x spends 1-2 ms per expression.
 */
function promptReaders(context: IExecuteFunctions): Prompts {
	return { userMessage: itemParameter<unknown>(context, 'userMessage', ''), systemPrompt: itemParameter(context, 'systemPrompt', '') };
}

/** A new run from the item's parameters; with a Memory sub-node, the conversation so far comes first. */
async function newRun(this: IExecuteFunctions, itemIndex: number, shared: Shared, memory: ChatMemory | undefined): Promise<AgentState> {
	const options = this.getNodeParameter('options', itemIndex, {}) as AgentOptions;
	const userMessage = String(shared.prompts.userMessage(itemIndex) ?? '');
	if (!userMessage.trim()) {
		throw new NodeOperationError(this.getNode(), 'User Message is empty', { itemIndex, description: 'Set User Message to the text the agent should work on, e.g. {{ $json.chatInput }}.' });
	}
	const modelId = shared.modelId ?? String(this.getNodeParameter('model', itemIndex, '', { extractValue: true }) ?? '');
	const system = shared.prompts.systemPrompt(itemIndex);
	const settings = {
		...buildRunSettings(modelId, options.appendServerInstructions ? systemWithInstructions(system, shared.servers.instructions) : system, options),
		approval: approvalPolicy(this, itemIndex),
	};
	const history = [...parseHistory(options.history), ...(memory ? await loadPriorTurns(memory) : [])];
	return createRun({ provider: shared.provider, settings, tools: shared.catalog, userMessage, history, toolLoading: buildToolLoading(options) });
}

/**
 * What one input item asks for (see actionForItem): a new run, the continuation of a paused one,
 * nothing (a replayed decision), or a request to hand out again because its calls are still pending.
 */
function actionFor(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData, shared: Shared): ItemAction {
	try {
		const { pairedIndex, ...provenance } = shared.provenance;
		return actionForItem(item.json as Record<string, unknown>, {
			store: shared.store,
			catalog: shared.catalog,
			now: new Date(),
			...provenance,
			pairedIndex: pairedIndex(item),
			executionId: shared.executionId,
			provider: shared.provider,
			// Per execution that handed the run out: a Retry's copy applies only a yes given to it
			// (PausedEntry.executionId); runs stored without one are claimed process-wide.
			claimResume: (approvalId, handedOutBy) => resumedRuns.claim([`${handedOutBy ?? ''}/${approvalId}`]),
		});
	} catch (error) {
		throw toNodeError(this, error, itemIndex);
	}
}

/** The MCP servers' tools and the n8n tool nodes' as one catalog, and what either side withheld. */
function mergedTools(servers: ConnectedServers, n8nCatalog: { tools: CatalogTool[]; withheld: WithheldEntry[] }): Pick<Shared, 'catalog' | 'withheld'> {
	return { catalog: mergeCatalogs(servers.catalog, n8nCatalog.tools), withheld: [...servers.withheld, ...n8nCatalog.withheld] };
}

/**
 * An item's run that failed (a provider error after its retries, a malformed answer): when tool
 * calls had already run, their effects stand, so the error says which, and with Continue On Fail
 * the error item carries their log.
 */
function failedRun(context: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const ran = runStateAtFailure(error)?.toolLog ?? [];
	if (ran.length === 0) return failItem(context, error, itemIndex);
	const nodeError = toNodeError(context, error, itemIndex);
	const calls = ran.map((entry) => `${entry.tool}${entry.isError ? ' (failed)' : ''}`).join(', ');
	nodeError.description = [nodeError.description, `Before this failure the run had made ${ran.length} tool call${ran.length === 1 ? '' : 's'}, whose effects stand: ${calls}.`].filter(Boolean).join(' ');
	if (!context.continueOnFail()) throw nodeError;
	const item = errorItem(nodeError, itemIndex);
	(item.json as IDataObject).toolLog = ran as unknown as IDataObject[];
	return item;
}

/**
 * Saves a completed run's exchange (the user's message and the final answer) once, when the run
 * finishes: a run that paused for review saved nothing, and saves here after it is resumed. A
 * failing memory does not throw away the answer (tools may have run): the problem is returned for
 * the output's `memoryError` and logged.
 */
async function saveToMemory(
	context: IExecuteFunctions,
	itemIndex: number,
	loaded: ChatMemory | undefined,
	resumed: boolean,
	final: AgentState,
	options: AgentOptions,
): Promise<string | undefined> {
	if (final.phase.name !== 'finished' || final.phase.status !== 'completed' || final.userMessage === undefined) return undefined;
	const answer = final.phase.text;
	if (!answer.trim()) return undefined;
	try {
		const memory = loaded ?? (resumed ? await memoryFor(context, itemIndex) : undefined);
		if (!memory) return undefined;
		await saveExchange(memory, final.userMessage, answer, options.memorySaveToolCalls ? final.toolLog : undefined);
		return undefined;
	} catch (error) {
		const message = `The answer was not saved to the Memory sub-node: ${(error as Error)?.message ?? String(error)}`;
		context.logger.warn(`MCP Agent "${context.getNode().name}": ${message}`);
		return message;
	}
}

/** The Pinned Fingerprints and related options, for the MCP and the n8n side of the catalog alike. */
function catalogOptions(approvalOptions: ApprovalOptions, appendInstructions: boolean): CatalogOptions {
	return {
		pinned: parsePinnedFingerprints(approvalOptions.pinnedFingerprints),
		onDrift: approvalOptions.onDrift ?? AGENT_DEFAULTS.onDrift,
		withholdFlagged: approvalOptions.withholdFlagged ?? AGENT_DEFAULTS.withholdFlagged,
		appendInstructions,
	};
}

/**
 * Each call on its sub-node in the execution view (MCP Server sub-nodes that provide a call log;
 * n8n's tool nodes log themselves) and one line in n8n's log: tool, source, outcome and duration,
 * never arguments or results.
 */
function toolCallObserver(context: IExecuteFunctions, handles: ServerHandle[]): ToolCallObserver {
	const logs = new Map(handles.filter((handle) => handle.callLog).map((handle) => [handle.name, handle.callLog]));
	return (call) => {
		const source = call.tool?.serverName;
		const tool = call.tool?.mcpName ?? call.providerName;
		const end = source !== undefined ? logs.get(source)?.start({ tool, arguments: call.arguments }) : undefined;
		// Progress on n8n's log: at most one line per call every few seconds, and the last one when it ends.
		const progress = throttleProgress((reported) =>
			context.logger.info(`MCP Agent "${nodeOf(context).name}": tool ${tool}${source !== undefined ? ` on ${source}` : ''} progress ${progressText(reported)}`, {
				tool,
				...(source !== undefined ? { source } : {}),
				progress: reported.progress,
				...(reported.total !== undefined ? { total: reported.total } : {}),
			}),
		);
		const finish = (outcome: ToolOutcome | undefined, durationMs: number, waiting?: 'input' | 'task'): void => {
			progress.flush();
			const result = outcome ? (outcome.isError ? 'error' : 'ok') : waiting === 'task' ? 'still running as a task' : 'waiting for input';
			const allowedBy = allowanceOf(call);
			context.logger.info(`MCP Agent "${nodeOf(context).name}": tool ${tool}${source !== undefined ? ` on ${source}` : ''} (${allowanceText(allowedBy)}): ${result} in ${durationMs} ms`, {
				tool,
				...(source !== undefined ? { source } : {}),
				result,
				durationMs,
				...(allowedBy ? { allowedBy } : {}),
			});
			end?.({ isError: outcome?.isError ?? false, text: outcome?.text ?? '', durationMs, waitingForInput: outcome === undefined && waiting !== 'task', waitingForTask: waiting === 'task' });
		};
		return Object.assign(finish, { progress: (reported: ToolProgress) => progress.push(reported) });
	};
}

/** How one item's tool calls run: the item's concurrency and timeout, its run's cap on a result. */
function toolRunnerOptionsFor(shared: Shared, observer: ToolCallObserver, options: AgentOptions, run: AgentState, signal: AbortSignal | undefined): ToolRunnerOptions {
	return {
		connections: shared.servers.connections,
		outputSchemas: shared.servers.outputSchemas,
		n8nTools: shared.n8nTools,
		observer,
		concurrency: options.toolConcurrency ?? AGENT_DEFAULTS.toolConcurrency,
		timeoutMs: options.toolTimeout ?? AGENT_DEFAULTS.toolTimeoutMs,
		resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? AGENT_DEFAULTS.resetTimeoutOnProgress,
		limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: run.settings.maxToolResultChars },
		tasks: {
			...readTaskPolicy(options),
			...(shared.canPauseForTasks ? { handOffAfterMs: readTaskPauseAfter(options), handOffServers: shared.servers.durable, askPerson: true } : {}),
			...(shared.executionId ? { watched: (server: string, taskId: string, onStatus?: (state: TaskState) => void, onProgress?: (progress: ToolProgress) => void) => takeWatchedOutcome(shared.executionId as string, server, taskId, onStatus, onProgress) } : {}),
		},
		...(signal ? { signal } : {}),
	};
}

/** The runner for a check of calls whose task still runs: one status request each, then the run pauses again. */
function taskCheckOptions(runner: ToolRunnerOptions): ToolRunnerOptions {
	return { ...runner, tasks: { ...(runner.tasks ?? readTaskPolicy({})), handOffAfterMs: 0 } };
}

/** Streaming to the chat or webhook, when n8n streams this execution's response and the option allows it. */
function streamsResponse(context: IExecuteFunctions, options: AgentOptions): boolean {
	if (options.enableStreaming === false) return false;
	try {
		return typeof context.isStreaming === 'function' && context.isStreaming() === true;
	} catch {
		return false;
	}
}

function sendChunk(context: IExecuteFunctions, type: 'begin' | 'item' | 'end', itemIndex: number, content?: string): void {
	try {
		// n8n's own agent does not wait for chunks either: a slow client must not slow the run.
		const sent = context.sendChunk(type, itemIndex, content) as unknown;
		if (sent && typeof (sent as Promise<void>).catch === 'function') (sent as Promise<void>).catch(() => undefined);
	} catch {
		// A closed stream ends nothing but the stream.
	}
}

export async function executeAgent(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const provider = this.getNodeParameter('provider', 0) as ProviderId;
	const firstOptions = this.getNodeParameter('options', 0, {}) as AgentOptions;
	const approvalOptions = this.getNodeParameter('approvalOptions', 0, {}) as ApprovalOptions;
	let servers: ConnectedServers;
	let sources: ToolSources;
	let n8nCatalog: ReturnType<typeof buildN8nToolCatalog>;
	let store: PausedRunStore;
	let modelReady: Promise<AgentModel>;
	try {
		// First: a store from a newer release of the package fails every item before anything connects.
		store = openStore(this.getContext('node') as Record<string, unknown>);
		// The provider credential (or the Chat Model sub-node) and the MCP Server sub-nodes' own
		// credentials are separate reads: they overlap. A tools error still comes first (every item fails with it).
		modelReady = awaitedLater(agentModel(this, provider, { maxRetries: firstOptions.maxRetries ?? AGENT_DEFAULTS.maxRetries, timeoutMs: 10 * 60_000 }));
		sources = await collectToolSources(this);
		n8nCatalog = buildN8nToolCatalog(sources.n8nTools, catalogOptions(approvalOptions, false));
		// A resumed run re-checks approved calls against the server's current definitions: list fresh,
		// whatever route the decision took (decision item, send-and-wait answer, Wait webhook). A new run
		// may use a kept connection's cached list (refreshed on list_changed and after 60 s).
		const resuming = hasPausedRuns(store) || items.some((item) => isApprovalDecision(item.json) || isApprovalRequest(item.json));
		servers = await connectServers(sources.handles, catalogOptions(approvalOptions, firstOptions.appendServerInstructions === true), { toolLists: resuming ? 'fresh' : 'cached' });
	} catch (error) {
		return [failEveryItem(this, error), []];
	}
	const finished: INodeExecutionData[] = [];
	const handedOut: HandedOut[] = [];
	const observer = toolCallObserver(this, sources.handles);
	// n8n's Stop (n8n 1.x has no cancel signal on every version: then runs end by their timeouts).
	const cancelSignal = typeof this.getExecutionCancelSignal === 'function' ? this.getExecutionCancelSignal() : undefined;
	try {
		let ready: AgentModel;
		try {
			ready = await modelReady;
		} catch (error) {
			// A missing or unusable Chat Model sub-node, like a missing credential, fails every item (the servers close below).
			return [failEveryItem(this, error), []];
		}
		const model = ready.client;
		const shared: Shared = {
			servers,
			...mergedTools(servers, n8nCatalog),
			n8nTools: n8nCatalog.index,
			model,
			...(ready.modelId !== undefined ? { modelId: ready.modelId } : {}),
			provider,
			store,
			prompts: promptReaders(this),
			provenance: inputProvenance(this, hasPausedRuns(store)),
			executionId: executionIdOf(this),
			canPauseForTasks: approvalNodeFollows(this),
		};
		if (isWiredStraightBack(items.map((item) => item.json as Record<string, unknown>), { store, now: new Date(), fromApprovalNode: shared.provenance.fromApprovalNode })) {
			throw new NodeOperationError(this.getNode(), 'A pending approval came back before it expired, and nothing was decided', {
				description: 'Connect "Needs Approval" to an MCP Approval node (or a send-and-wait node), not straight back to this node.',
			});
		}
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			let streaming = false;
			try {
				// The listing above is current for the first item only: an earlier item's run may have
				// changed a server's tools (with or without list_changed). An item that may resume a
				// paused run is checked against a new listing.
				if (itemIndex > 0 && hasPausedRuns(store) && mayResume(items[itemIndex].json)) {
					await servers.relist();
					Object.assign(shared, mergedTools(servers, n8nCatalog));
				}
				const action = actionFor.call(this, itemIndex, items[itemIndex], shared);
				if (action.kind === 'replayed') continue;
				if (action.kind === 'pending') {
					handedOut.push(reissueRequest(this, itemIndex, action, shared));
					continue;
				}
				const options = this.getNodeParameter('options', itemIndex, {}) as AgentOptions;
				// A resumed run needs the memory only to save its exchange at the end.
				const memory = action.kind === 'continue' ? undefined : await memoryFor(this, itemIndex);
				const initial = action.kind === 'continue' ? action.state : await newRun.call(this, itemIndex, shared, memory);
				// Full Tool Results in Output: the untrimmed texts stay here, for this item's output only.
				const fullResults = (options.fullToolResults ?? AGENT_DEFAULTS.fullToolResults) ? new FullResults() : undefined;
				const toolRunnerOptions = { ...toolRunnerOptionsFor(shared, observer, options, initial, cancelSignal), ...(fullResults ? { keepFullResults: true } : {}) };
				const kept = (iteration: number) => (ran: ToolRunResult) => {
					fullResults?.keep(iteration, ran.fullResults);
					return ran;
				};
				streaming = streamsResponse(this, options);
				if (streaming) sendChunk(this, 'begin', itemIndex);
				const final = await runAgent(initial, {
					model,
					runTools: (calls, iteration) => runToolCalls(calls, toolRunnerOptions).then(kept(iteration)),
					checkTasks: (calls, iteration) => runToolCalls(calls, taskCheckOptions(toolRunnerOptions)).then(kept(iteration)),
					grants: grantDriver(this, async () => {
						// A grant would let a call through: its definition is checked against a listing made now,
						// not a kept connection's listing of up to a minute ago (a rug pull in between).
						await servers.relist();
						Object.assign(shared, mergedTools(servers, n8nCatalog));
						return new Map(shared.catalog.map((tool) => [grantToolKey(tool.serverName, tool.mcpName), tool.fingerprint]));
					}),
					...(cancelSignal ? { signal: cancelSignal } : {}),
					...(streaming ? { onText: (delta: string) => sendChunk(this, 'item', itemIndex, delta) } : {}),
				});
				const effect = nextEffect(final);
				if (effect.type === 'request_approval') {
					const request = pauseForReview(this, itemIndex, final, shared, action.kind === 'continue' ? action.reopened : undefined);
					if (streaming) sendChunk(this, 'item', itemIndex, `\n\n${String(request.item.json.output)}`);
					handedOut.push(request);
					continue;
				}
				const json = agentRunOutput(final, options.includeTranscript ?? AGENT_DEFAULTS.includeTranscript);
				if (fullResults) json.toolCalls = fullResults.attachTo(final.toolLog);
				if (shared.withheld.length) json.withheldTools = shared.withheld;
				const memoryProblem = await saveToMemory(this, itemIndex, memory, action.kind === 'continue', final, options);
				if (memoryProblem) json.memoryError = memoryProblem;
				finished.push({ json: json as IDataObject, pairedItem: { item: itemIndex } });
			} catch (error) {
				finished.push(failedRun(this, error, itemIndex));
			} finally {
				if (streaming) sendChunk(this, 'end', itemIndex);
			}
		}
	} finally {
		await servers.close();
	}
	watchPausedTasks(this, handedOut, sources.handles, firstOptions);
	store.lastOrder = handedOut.map((request) => request.approvalId);
	return [finished, handedOut.map((request) => request.item)];
}
