import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { acquireServerConnection, failEveryItem, mcpServerConnectionTest, serverCredentials, toNodeError } from '../shared/serverConnection';
import { listToolsProperties } from './description';
import { Memo, operations } from './operations';

export class McpListTools implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP List Tools',
		name: 'mcpListTools',
		icon: 'file:mcp.svg',
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] }}',
		description: 'Discover the tools, resources and prompts of an MCP server',
		defaults: { name: 'MCP List Tools' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: serverCredentials,
		properties: listToolsProperties,
	};

	methods = {
		credentialTest: { mcpServerConnectionTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operationName = this.getNodeParameter('operation', 0) as string;
		const operation = operations[operationName];
		if (!operation) throw new NodeOperationError(this.getNode(), `Unknown operation "${operationName}"`);
		let lease: Awaited<ReturnType<typeof acquireServerConnection>>;
		try {
			lease = await acquireServerConnection(this);
		} catch (error) {
			return failEveryItem(this, error);
		}
		const connection = lease.connection;
		const once = new Memo();
		const output: INodeExecutionData[] = [];
		try {
			for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
				try {
					output.push(...(await operation.call(this, itemIndex, connection, once)));
				} catch (error) {
					const nodeError = toNodeError(this, error, itemIndex);
					if (!this.continueOnFail()) throw nodeError;
					output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
				}
			}
		} finally {
			await lease.release();
		}
		return [output];
	}
}
