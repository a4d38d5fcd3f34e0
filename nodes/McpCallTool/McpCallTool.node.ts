import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { mcpServerConnectionTest, serverCredentials } from '../shared/serverConnection';
import { getToolArgumentFields, searchTools } from '../shared/toolPicker';
import { callToolProperties } from './description';
import { executeCallTool } from './execute';

export class McpCallTool implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Call Tool',
		name: 'mcpCallTool',
		icon: 'file:mcp.svg',
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["tool"] && ($parameter["tool"].cachedResultName || $parameter["tool"].value) }}',
		description: 'Call a tool of an MCP server for every input item',
		defaults: { name: 'MCP Call Tool' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: serverCredentials,
		properties: callToolProperties,
	};

	methods = {
		listSearch: { searchTools },
		resourceMapping: { getToolArgumentFields },
		credentialTest: { mcpServerConnectionTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeCallTool.call(this);
	}
}
