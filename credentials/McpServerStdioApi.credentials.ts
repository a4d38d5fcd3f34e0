import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpServerCommonProperties, mcpServerRootsProperty } from './mcpServerCommonProperties';

/**
 * A local MCP server started as a process on the n8n host. Disabled unless the administrator
 * sets N8N_MCP_AGENT_ALLOW_STDIO=true. Tested by the MCP nodes' `mcpServerConnectionTest`.
 */
export class McpServerStdioApi implements ICredentialType {
	name = 'mcpServerStdioApi';

	displayName = 'MCP Server (Local Command) API';

	documentationUrl = 'https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent/blob/main/docs/credentials.md#mcp-server-local-command-api--mcpserverstdioapi';

	icon = { light: 'file:mcpServerLocal.svg', dark: 'file:mcpServerLocal.dark.svg' } as const;

	properties: INodeProperties[] = [
		{
			displayName: 'Local command servers run with the permissions of n8n. They only work when the n8n administrator sets the environment variable N8N_MCP_AGENT_ALLOW_STDIO=true.',
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Command',
			name: 'command',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'npx',
			description: 'The program to start, e.g. npx, node, uvx or an absolute path. No shell is used.',
		},
		{
			displayName: 'Arguments',
			name: 'args',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			placeholder: '-y @modelcontextprotocol/server-filesystem "/data/my files"',
			description: 'Words separated by spaces; quote an argument that contains spaces ("..." or \'...\'), or give a JSON array of strings',
		},
		{
			displayName: 'Environment Variables',
			name: 'environment',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			placeholder: 'LOG_LEVEL=info',
			description: 'One NAME=value per line (or a JSON object). Only PATH, HOME and a few basics are inherited from n8n.',
		},
		{
			displayName: 'Secret Environment Variables',
			name: 'secretEnvironment',
			type: 'string',
			typeOptions: { password: true, rows: 3 },
			default: '',
			placeholder: 'API_KEY=...',
			description: 'Like Environment Variables, for secrets: stored encrypted, never shown',
		},
		{
			displayName: 'Working Directory',
			name: 'cwd',
			type: 'string',
			default: '',
			description: 'Directory to start the command in; empty means n8n\'s own',
		},
		mcpServerRootsProperty('Paths are on the n8n host.'),
		...mcpServerCommonProperties('How long to wait for the process to start and answer the handshake (npx downloads count)'),
	];
}
