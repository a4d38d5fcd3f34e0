import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { mcpServerConnectionTest } from '../shared/serverConnection';
import { getToolArgumentFields, searchTools } from '../shared/toolPicker';
import { callToolProperties } from './description';
import { executeCallTool } from './execute';

export class McpCallTool implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Call Tool',
		name: 'mcpCallTool',
		icon: { light: 'file:mcpCallTool.svg', dark: 'file:mcpCallTool.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["tool"] && ($parameter["tool"].cachedResultName || $parameter["tool"].value) }}',
		description: 'Call a tool of an MCP server for every input item',
		defaults: { name: 'MCP Call Tool' },
		inputs: [NodeConnectionTypes.Main],
		// A second output, Task Running, only for Pause Long Tasks (MCP Tasks that outlast the node's wait in place).
		outputs: `={{ $parameter.options?.pauseLongTasks === true ? [{ type: "${NodeConnectionTypes.Main}", displayName: "Result" }, { type: "${NodeConnectionTypes.Main}", displayName: "Task Running" }] : ["${NodeConnectionTypes.Main}"] }}`,
		usableAsTool: true,
		credentials: [
			// Written out (not the shared serverCredentials constant) so n8n's lint sees each credential
			// is tested by this node's credentialTest; test/unit/nodeDescriptions.test.ts keeps it equal.
			{ name: 'mcpServerHttpApi', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['http'] } } },
			{ name: 'mcpServerStdioApi', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['stdio'] } } },
			{ name: 'mcpServerOAuth2Api', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['oauth'] } } },
		],
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
