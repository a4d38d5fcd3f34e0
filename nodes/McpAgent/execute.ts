import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { parsePinnedFingerprints } from '../../lib/agent/catalog';
import { agentRunOutput, parseHistory } from '../../lib/agent/output';
import { runAgent } from '../../lib/agent/runAgent';
import { connectServers, systemWithInstructions, type ConnectedServers } from '../../lib/agent/servers';
import { isServerHandle, type ServerHandle } from '../../lib/agent/serverHandle';
import { buildRunSettings, type RawAgentOptions } from '../../lib/agent/settings';
import { awaitingPerson, createRun, nextEffect, step } from '../../lib/agent/step';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { AgentState, OpenApproval } from '../../lib/agent/types';
import { buildApprovalRequest } from '../../lib/approvals/approvalRequest';
import { requestOrigin } from '../../lib/approvals/requestOrigin';
import { openStore, savePausedRun, setReviewTokenHash, type PausedRunStore } from '../../lib/approvals/pausedRuns';
import { actionForItem, isWiredStraightBack, ResumeRefused, type ItemAction } from '../../lib/approvals/resumeInput';
import { reviewLink } from '../../lib/approvals/reviewToken';
import type { ApprovalPolicy } from '../../lib/approvals/policy';
import { parsePatternList } from '../../lib/tools/nameFilter';
import { createModelClient } from '../../lib/providers/clients';
import type { ModelClient, ProviderId } from '../../lib/providers/types';
import { failEveryItem, toNodeError } from '../shared/serverConnection';
import { providerConnection } from './providerCredential';

export interface AgentOptions extends RawAgentOptions {
	appendServerInstructions?: boolean;
	includeTranscript?: boolean;
	maxRetries?: number;
	history?: unknown;
	toolConcurrency?: number;
	toolTimeout?: number;
}

interface ApprovalOptions {
	alwaysAsk?: string;
	neverAsk?: string;
	timeoutHours?: number;
	pinnedFingerprints?: unknown;
	onDrift?: 'block' | 'review';
	withholdFlagged?: boolean;
}

/** Reads the MCP Server sub-nodes connected to the "MCP Servers" input. */
export async function collectServerHandles(context: IExecuteFunctions): Promise<ServerHandle[]> {
	const supplied = await context.getInputConnectionData(NodeConnectionTypes.AiTool, 0);
	const list = (Array.isArray(supplied) ? supplied : supplied ? [supplied] : []).flat();
	const handles: ServerHandle[] = [];
	for (const entry of list) {
		if (isServerHandle(entry)) {
			handles.push(entry);
			continue;
		}
		const name = (entry as { name?: unknown })?.name;
		throw new NodeOperationError(
			context.getNode(),
			`The "MCP Servers" input accepts MCP Server sub-nodes only${typeof name === 'string' ? `, but "${name}" is another kind of tool` : ''}.`,
			{ description: 'Connect an "MCP Server" node (from this package) for each server. n8n\'s own tool nodes work with n8n\'s AI Agent node.' },
		);
	}
	if (handles.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No MCP server connected', {
			description: 'Add an "MCP Server" sub-node with a server credential and connect it to the "MCP Servers" input of this node.',
		});
	}
	return handles;
}

function approvalPolicy(context: IExecuteFunctions, itemIndex: number): ApprovalPolicy {
	const options = context.getNodeParameter('approvalOptions', itemIndex, {}) as ApprovalOptions;
	return {
		mode: context.getNodeParameter('requireApprovalFor', itemIndex, 'notReadOnly') as ApprovalPolicy['mode'],
		listed: parsePatternList(context.getNodeParameter('approvalListedTools', itemIndex, '') as string),
		alwaysAsk: parsePatternList(options.alwaysAsk),
		neverAsk: parsePatternList(options.neverAsk),
	};
}

function pairedIndex(item: INodeExecutionData): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	if (typeof paired === 'number') return paired;
	return paired && typeof paired === 'object' ? paired.item : undefined;
}

interface Shared {
	servers: ConnectedServers;
	model: ModelClient;
	provider: ProviderId;
	store: PausedRunStore;
}

/** A new run from the item's parameters. */
function newRun(this: IExecuteFunctions, itemIndex: number, shared: Shared): AgentState {
	const options = this.getNodeParameter('options', itemIndex, {}) as AgentOptions;
	const userMessage = String(this.getNodeParameter('userMessage', itemIndex, '') ?? '');
	if (!userMessage.trim()) {
		throw new NodeOperationError(this.getNode(), 'User Message is empty', { itemIndex, description: 'Set User Message to the text the agent should work on, e.g. {{ $json.message }}.' });
	}
	const modelId = String(this.getNodeParameter('model', itemIndex, '', { extractValue: true }) ?? '');
	const system = this.getNodeParameter('systemPrompt', itemIndex, '') as string;
	const settings = {
		...buildRunSettings(modelId, options.appendServerInstructions ? systemWithInstructions(system, shared.servers.instructions) : system, options),
		approval: approvalPolicy(this, itemIndex),
	};
	return createRun({ provider: shared.provider, settings, tools: shared.servers.catalog, userMessage, history: parseHistory(options.history) });
}

/**
 * What one input item asks for (see actionForItem): a new run, the continuation of a paused one,
 * nothing (a replayed decision), or a request to hand out again because its calls are still pending.
 */
function actionFor(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData, shared: Shared): ItemAction {
	try {
		return actionForItem(item.json as Record<string, unknown>, { store: shared.store, catalog: shared.servers.catalog, now: new Date(), pairedIndex: pairedIndex(item) });
	} catch (error) {
		if (!(error instanceof ResumeRefused)) throw error;
		throw new NodeOperationError(this.getNode(), error.message, { itemIndex, ...(error.description ? { description: error.description } : {}) });
	}
}

/** The "Needs Approval" item of a paused run, with its own review secret (only its hash is kept). */
function approvalRequestItem(
	this: IExecuteFunctions,
	itemIndex: number,
	state: AgentState,
	approval: OpenApproval,
	link: { reviewUrl?: string; reviewTokenHash: string },
	notice?: string,
): INodeExecutionData {
	// Calls waiting for review and calls whose server asked for input: one item carries both.
	const calls = state.phase.name === 'run_tools' ? awaitingPerson(state.phase) : [];
	const origin = requestOrigin(this.getWorkflow().name, this.getNode().name, this.getMode());
	const request = buildApprovalRequest(state, approval, calls, { ...link, origin, ...(notice ? { notice } : {}) });
	return { json: request as unknown as IDataObject, pairedItem: { item: itemIndex } };
}

function resumeUrl(this: IExecuteFunctions, itemIndex: number): string | undefined {
	return String(this.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '') || undefined;
}

export async function executeAgent(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const provider = this.getNodeParameter('provider', 0) as ProviderId;
	const firstOptions = this.getNodeParameter('options', 0, {}) as AgentOptions;
	const approvalOptions = this.getNodeParameter('approvalOptions', 0, {}) as ApprovalOptions;
	let servers: ConnectedServers;
	try {
		servers = await connectServers(await collectServerHandles(this), {
			pinned: parsePinnedFingerprints(approvalOptions.pinnedFingerprints),
			onDrift: approvalOptions.onDrift ?? 'block',
			withholdFlagged: approvalOptions.withholdFlagged ?? false,
			appendInstructions: firstOptions.appendServerInstructions === true,
		});
	} catch (error) {
		return [...failEveryItem(this, error), []];
	}
	const store = openStore(this.getContext('node') as Record<string, unknown>);
	const finished: INodeExecutionData[] = [];
	const needsApproval: INodeExecutionData[] = [];
	const order: string[] = [];
	try {
		const model = createModelClient(
			await providerConnection(this, provider, { maxRetries: firstOptions.maxRetries ?? 2, timeoutMs: 10 * 60_000 }),
		);
		const shared: Shared = { servers, model, provider, store };
		if (isWiredStraightBack(items.map((item) => item.json as Record<string, unknown>), { store, now: new Date() })) {
			throw new NodeOperationError(this.getNode(), 'A pending approval came back before it expired, and nothing was decided', {
				description: 'Connect "Needs Approval" to an MCP Approval node (or a send-and-wait node), not straight back to this node.',
			});
		}
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const action = actionFor.call(this, itemIndex, items[itemIndex], shared);
				if (action.kind === 'replayed') continue;
				if (action.kind === 'pending') {
					// Still pending: the same approval (id, expiry, calls) goes out again, saying why.
					const { state } = action.run;
					const approval = state.phase.name === 'run_tools' ? state.phase.approval : undefined;
					if (!approval) throw new NodeOperationError(this.getNode(), `The paused run of approval ${action.approvalId} has no open approval`, { itemIndex });
					const link = reviewLink(resumeUrl.call(this, itemIndex), { reviewUrl: action.previousReviewUrl, reviewTokenHash: action.run.reviewTokenHash });
					setReviewTokenHash(store, action.approvalId, link.reviewTokenHash);
					needsApproval.push(approvalRequestItem.call(this, itemIndex, state, approval, link, action.notice));
					order.push(action.approvalId);
					continue;
				}
				const initial = action.kind === 'continue' ? action.state : newRun.call(this, itemIndex, shared);
				const options = this.getNodeParameter('options', itemIndex, {}) as AgentOptions;
				const toolRunnerOptions = {
					connections: servers.connections,
					outputSchemas: servers.outputSchemas,
					concurrency: options.toolConcurrency ?? 4,
					timeoutMs: options.toolTimeout ?? 60_000,
					limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: initial.settings.maxToolResultChars },
				};
				const final = await runAgent(initial, { model, runTools: (calls) => runToolCalls(calls, toolRunnerOptions) });
				const effect = nextEffect(final);
				if (effect.type === 'request_approval') {
					const hours = (this.getNodeParameter('approvalOptions', itemIndex, {}) as ApprovalOptions).timeoutHours ?? 24;
					const now = Date.now();
					const approval = { id: randomUUID(), requestedAt: new Date(now).toISOString(), expiresAt: new Date(now + hours * 3_600_000).toISOString() };
					const paused = step(final, { type: 'approval_opened', approval });
					// A new secret per approval: the token goes only into reviewUrl; the store keeps its hash.
					const link = reviewLink(resumeUrl.call(this, itemIndex));
					savePausedRun(store, approval.id, paused, approval.requestedAt, link.reviewTokenHash);
					needsApproval.push(approvalRequestItem.call(this, itemIndex, paused, approval, link));
					order.push(approval.id);
					continue;
				}
				const json = agentRunOutput(final, options.includeTranscript ?? true);
				if (servers.withheld.length) json.withheldTools = servers.withheld;
				finished.push({ json: json as IDataObject, pairedItem: { item: itemIndex } });
			} catch (error) {
				const nodeError = toNodeError(this, error, itemIndex);
				if (!this.continueOnFail()) throw nodeError;
				finished.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
			}
		}
	} finally {
		await servers.close();
	}
	store.lastOrder = order;
	return [finished, needsApproval];
}
