import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { acquireServerConnection, mcpServerConnectionTest } from '../shared/serverConnection';
import { failEveryItem, failItem } from '../shared/nodeErrors';
import { listToolsProperties } from './description';
import { Memo, operations } from './operations';

export class McpListTools implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP List Tools',
		name: 'mcpListTools',
		icon: { light: 'file:mcpListTools.svg', dark: 'file:mcpListTools.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] }}',
		description: 'Discover the tools, resources and prompts of an MCP server',
		defaults: { name: 'MCP List Tools' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [
			// Written out (not the shared serverCredentials constant) so n8n's lint sees each credential
			// is tested by this node's credentialTest; test/unit/nodeDescriptions.test.ts keeps it equal.
			{ name: 'mcpServerHttpApi', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['http'] } } },
			{ name: 'mcpServerStdioApi', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['stdio'] } } },
			{ name: 'mcpServerOAuth2Api', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['oauth'] } } },
		],
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
			return [failEveryItem(this, error)];
		}
		const connection = lease.connection;
		const once = new Memo();
		const output: INodeExecutionData[] = [];
		try {
			for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
				try {
					output.push(...(await operation.call(this, itemIndex, connection, once)));
				} catch (error) {
					output.push(failItem(this, error, itemIndex));
				}
			}
		} finally {
			await lease.release();
		}
		return [output];
	}
}
