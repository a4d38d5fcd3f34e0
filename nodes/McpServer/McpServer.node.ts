import type { INodeType, INodeTypeDescription, ISupplyDataFunctions, SupplyData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { SERVER_HANDLE_KIND, type ServerHandle } from '../../lib/agent/serverHandle';
import { subNodeCallLog } from '../McpAgent/subNodeCallLog';
import { parsePatternList } from '../../lib/tools/nameFilter';
import { credentialTypeFor, mcpServerConnectionTest, serverConfigForNode, serverConnectionProperty } from '../shared/serverConnection';
import { nodeOf } from '../shared/nodeOf';

/** A sub-node that points the MCP Agent at one server; connect several for several servers. */
export class McpServer implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Server',
		name: 'mcpServer',
		icon: { light: 'file:mcpServer.svg', dark: 'file:mcpServer.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ { http: "HTTP", oauth: "HTTP with OAuth", stdio: "Local command" }[$parameter["connection"]] }}',
		description: 'An MCP server whose tools the MCP Agent may use',
		defaults: { name: 'MCP Server' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		outputNames: ['MCP Server'],
		credentials: [
			// Written out (not the shared serverCredentials constant) so n8n's lint sees each credential
			// is tested by this node's credentialTest; test/unit/nodeDescriptions.test.ts keeps it equal.
			{ name: 'mcpServerHttpApi', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['http'] } } },
			{ name: 'mcpServerStdioApi', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['stdio'] } } },
			{ name: 'mcpServerOAuth2Api', required: true, testedBy: 'mcpServerConnectionTest', displayOptions: { show: { connection: ['oauth'] } } },
		],
		properties: [
			serverConnectionProperty,
			{
				displayName: 'Include Tools',
				name: 'include',
				type: 'string',
				default: '',
				placeholder: 'e.g. read_*, search',
				description: 'Only tools whose names match one of these glob patterns (comma-separated, case-sensitive). Empty means all. The node\'s name is the server part of "server/tool" patterns and pinned fingerprints in the MCP Agent.',
			},
			{
				displayName: 'Exclude Tools',
				name: 'exclude',
				type: 'string',
				default: '',
				placeholder: 'e.g. delete_*',
				description: 'Tools never offered to the model (comma-separated glob patterns, case-sensitive)',
			},
		],
	};

	methods = { credentialTest: { mcpServerConnectionTest } };

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const connection = this.getNodeParameter('connection', itemIndex, 'http') as string;
		const type = credentialTypeFor(connection);
		const data = (await this.getCredentials(type)) as Record<string, unknown>;
		let handle: ServerHandle;
		try {
			handle = {
				kind: SERVER_HANDLE_KIND,
				name: nodeOf(this).name,
				// OAuth: tokens are refreshed through this sub-node's own context, which owns the credential
				// (a kept connection takes each execution's tokens and context, lib/mcp/pool/swappableAuth.ts).
				config: serverConfigForNode(this, type, data),
				include: parsePatternList(this.getNodeParameter('include', itemIndex, '') as string),
				exclude: parsePatternList(this.getNodeParameter('exclude', itemIndex, '') as string),
				// Tool calls shown as this sub-node's input and output in the execution view.
				callLog: subNodeCallLog(this),
			};
		} catch (error) {
			throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex });
		}
		return { response: handle };
	}
}
