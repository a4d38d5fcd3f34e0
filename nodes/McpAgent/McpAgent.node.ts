import type { IExecuteFunctions, ILoadOptionsFunctions, INodeExecutionData, INodeListSearchResult, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { createModelClient } from '../../lib/providers/clients';
import type { ProviderId } from '../../lib/providers/types';
import { agentProperties } from './description';
import { executeAgent } from './execute';
import { CREDENTIAL_KIND_PARAMETER, DEFAULT_CREDENTIAL_KIND, providerConnection, providerCredentials, type CredentialKind } from './providerCredential';
import { AGENT_INPUTS } from './chatModelInput';

export class McpAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Agent',
		name: 'mcpAgent',
		icon: { light: 'file:mcpAgent.svg', dark: 'file:mcpAgent.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["provider"] }}',
		description: 'Run an LLM agent (Anthropic, OpenAI, or any n8n Chat Model) over the tools of MCP servers and n8n tool nodes, with human review',
		defaults: { name: 'MCP Agent' },
		// Main, Tools (MCP Server sub-nodes and n8n's tool nodes alike: the connection type is the same),
		// Memory, and a Chat Model input when the Provider is a connected Chat Model sub-node.
		inputs: AGENT_INPUTS,
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Done', 'Needs Approval'],
		// Not a tool for n8n's AI Agent: n8n's tool version of a node drops its inputs, and this node's
		// Tools and Memory inputs are what it runs on; it also pauses the execution for review.
		usableAsTool: undefined,
		credentials: providerCredentials,
		properties: agentProperties,
	};

	methods = {
		listSearch: {
			async searchModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
				const provider = this.getNodeParameter('provider', 'anthropic') as ProviderId;
				// The Chat Model sub-node picks its own model (the Model parameter is hidden then).
				if (provider === 'chatModel') return { results: [] };
				const kind = this.getNodeParameter(CREDENTIAL_KIND_PARAMETER, DEFAULT_CREDENTIAL_KIND) as CredentialKind;
				const client = createModelClient(await providerConnection(this, provider, kind, { maxRetries: 1, timeoutMs: 30_000 }));
				const needle = (filter ?? '').toLowerCase();
				const models = (await client.listModels()).filter((m) => !needle || m.id.toLowerCase().includes(needle) || m.name?.toLowerCase().includes(needle));
				return { results: models.map((m) => ({ name: m.name ? `${m.name} (${m.id})` : m.id, value: m.id })) };
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeAgent.call(this);
	}
}
