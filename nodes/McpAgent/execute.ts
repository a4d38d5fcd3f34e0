import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { parsePinnedFingerprints } from '../../lib/agent/catalog';
import { agentRunOutput, parseHistory } from '../../lib/agent/output';
import { runAgent } from '../../lib/agent/runAgent';
import { connectServers, systemWithInstructions, type ConnectedServers } from '../../lib/agent/servers';
import { isServerHandle, type ServerHandle } from '../../lib/agent/serverHandle';
import { buildRunSettings, type RawAgentOptions } from '../../lib/agent/settings';
import { createRun, nextEffect, pendingReviews, step } from '../../lib/agent/step';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { AgentState, ReviewDecision } from '../../lib/agent/types';
import { buildApprovalRequest, isApprovalDecision, isApprovalRequest } from '../../lib/approvals/approvalRequest';
import { readChannelDecision } from '../../lib/approvals/channelDecision';
import { openStore, restorePausedRun, savePausedRun, takePausedRun, type PausedRunStore } from '../../lib/approvals/pausedRuns';
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

/**
 * What one input item asks for: a new run, or the continuation of a paused one (a decision from
 * the review page, an answer from a send-and-wait channel, or an expired approval). Returns the
 * state to drive, or undefined for a replayed decision, which changes nothing.
 */
function stateForItem(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData, shared: Shared): AgentState | undefined {
	const json = item.json as Record<string, unknown>;
	const now = new Date().toISOString();
	const resume = (approvalId: string, apply: (state: AgentState) => AgentState): AgentState | undefined => {
		const taken = takePausedRun(shared.store, approvalId);
		if (taken.kind === 'replayed') return undefined;
		if (taken.kind === 'unknown') {
			throw new NodeOperationError(this.getNode(), `No paused run is waiting for approval ${approvalId} in this execution`, { itemIndex });
		}
		let state: AgentState;
		try {
			state = apply(taken.state);
		} catch (error) {
			restorePausedRun(shared.store, approvalId, taken.state, now);
			throw new NodeOperationError(this.getNode(), `Decision rejected: ${(error as Error).message}`, { itemIndex });
		}
		// Pinning at execution time: approved calls run only if their tool is still what the reviewer saw.
		return step(state, { type: 'catalog_refreshed', tools: shared.servers.catalog });
	};

	if (isApprovalDecision(json)) {
		return resume(json.approvalId, (state) =>
			step(state, { type: 'approval_decided', approvalId: json.approvalId, decisions: json.decisions as ReviewDecision[], reviewer: json.reviewer, decidedAt: json.decidedAt ?? now }),
		);
	}
	if (isApprovalRequest(json)) {
		// The MCP Approval node passes the request through unchanged only when its wait ran out.
		if (Date.now() < Date.parse(json.expiresAt)) {
			throw new NodeOperationError(this.getNode(), 'A pending approval came back before it expired', {
				itemIndex,
				description: 'Connect "Needs Approval" to an MCP Approval node (or a send-and-wait node), not straight back to this node.',
			});
		}
		return resume(json.approvalId, (state) => step(state, { type: 'approval_expired', approvalId: json.approvalId, at: now }));
	}
	const channel = readChannelDecision(json);
	if (channel) {
		const index = pairedIndex(item);
		// Paired back to the "Needs approval" item it answers; with a single pending approval, that one.
		const approvalId = channel.approvalId ?? (index !== undefined ? shared.store.lastOrder[index] : shared.store.lastOrder.length === 1 ? shared.store.lastOrder[0] : undefined);
		if (!approvalId) {
			throw new NodeOperationError(this.getNode(), 'An approval answer arrived, but it is not clear which pending approval it answers', {
				itemIndex,
				description: 'Wire the send-and-wait node directly between "Needs Approval" and this node, or add an approvalId field to its output.',
			});
		}
		return resume(approvalId, (state) => {
			if (state.phase.name !== 'run_tools') throw new Error('the run is not waiting for a decision');
			const decisions: ReviewDecision[] = pendingReviews(state.phase).map((call) => ({
				callId: call.id,
				argsHash: call.review?.argsHash ?? '',
				decision: channel.approved ? 'approve' : 'deny',
				...(channel.reason ? { reason: channel.reason } : !channel.approved ? { reason: 'denied through the approval channel' } : {}),
			}));
			return step(state, { type: 'approval_decided', approvalId, decisions, reviewer: channel.reviewer ?? 'approval channel', decidedAt: now });
		});
	}

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
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const initial = stateForItem.call(this, itemIndex, items[itemIndex], shared);
				if (!initial) continue;
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
					savePausedRun(store, approval.id, paused, approval.requestedAt);
					const reviewUrl = String(this.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '') || undefined;
					needsApproval.push({ json: buildApprovalRequest(paused, approval, effect.calls, reviewUrl) as unknown as IDataObject, pairedItem: { item: itemIndex } });
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
