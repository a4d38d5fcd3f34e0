import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { agentRunOutput, parseHistory } from '../../lib/agent/output';
import { runAgent } from '../../lib/agent/runAgent';
import { connectServers, systemWithInstructions, type ConnectedServers } from '../../lib/agent/servers';
import { isServerHandle, type ServerHandle } from '../../lib/agent/serverHandle';
import { buildRunSettings, type RawAgentOptions } from '../../lib/agent/settings';
import { createRun } from '../../lib/agent/step';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import { createModelClient } from '../../lib/providers/clients';
import type { ProviderId } from '../../lib/providers/types';
import { toNodeError } from '../shared/serverConnection';
import { providerConnection } from './providerCredential';

export interface AgentOptions extends RawAgentOptions {
	appendServerInstructions?: boolean;
	includeTranscript?: boolean;
	maxRetries?: number;
	history?: unknown;
	toolConcurrency?: number;
	toolTimeout?: number;
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

export async function executeAgent(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const provider = this.getNodeParameter('provider', 0) as ProviderId;
	const firstOptions = this.getNodeParameter('options', 0, {}) as AgentOptions;
	let servers: ConnectedServers;
	try {
		servers = await connectServers(await collectServerHandles(this));
	} catch (error) {
		throw toNodeError(this, error);
	}
	const output: INodeExecutionData[] = [];
	try {
		const model = createModelClient(
			await providerConnection(this, provider, { maxRetries: firstOptions.maxRetries ?? 2, timeoutMs: 10 * 60_000 }),
		);
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const options = this.getNodeParameter('options', itemIndex, {}) as AgentOptions;
				const userMessage = String(this.getNodeParameter('userMessage', itemIndex, '') ?? '');
				if (!userMessage.trim()) throw new NodeOperationError(this.getNode(), 'User Message is empty', { itemIndex, description: 'Set User Message to the text the agent should work on, e.g. {{ $json.message }}.' });
				const modelId = String(this.getNodeParameter('model', itemIndex, '', { extractValue: true }) ?? '');
				const system = this.getNodeParameter('systemPrompt', itemIndex, '') as string;
				const settings = buildRunSettings(modelId, options.appendServerInstructions ? systemWithInstructions(system, servers.instructions) : system, options);
				const initial = createRun({ provider, settings, tools: servers.catalog, userMessage, history: parseHistory(options.history) });
				const final = await runAgent(initial, {
					model,
					runTools: (calls) =>
						runToolCalls(calls, {
							connections: servers.connections,
							concurrency: options.toolConcurrency ?? 4,
							timeoutMs: options.toolTimeout ?? 60_000,
							limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: settings.maxToolResultChars },
						}),
				});
				output.push({ json: agentRunOutput(final, options.includeTranscript ?? true) as IDataObject, pairedItem: { item: itemIndex } });
			} catch (error) {
				const nodeError = toNodeError(this, error, itemIndex);
				if (!this.continueOnFail()) throw nodeError;
				output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
			}
		}
	} finally {
		await servers.close();
	}
	return [output];
}
