import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpServerCommonProperties, mcpServerRootsProperty } from './mcpServerCommonProperties';
import { mcpServerTransportProperty } from './mcpServerTransportProperty';
import { clientCredentialsProperties } from './mcpServerClientCredentialsProperties';

/**
 * A remote MCP server reached over HTTP. Tested by the MCP nodes' `mcpServerConnectionTest`,
 * which performs the real handshake and tools/list (an HTTP request alone cannot prove it).
 */
export class McpServerHttpApi implements ICredentialType {
	name = 'mcpServerHttpApi';

	displayName = 'MCP Server (HTTP) API';

	documentationUrl = 'https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent/blob/main/docs/credentials.md#mcp-server-http-api--mcpserverhttpapi';

	icon = { light: 'file:mcpServer.svg', dark: 'file:mcpServer.dark.svg' } as const;

	properties: INodeProperties[] = [
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/mcp',
			description: 'The MCP endpoint, usually ending in /mcp (Streamable HTTP) or /sse (legacy SSE)',
		},
		mcpServerTransportProperty,
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			default: 'none',
			options: [
				{ name: 'None', value: 'none' },
				{ name: 'Bearer Token', value: 'bearer' },
				{ name: 'Custom Headers', value: 'headers' },
				{
					name: 'OAuth Client Credentials',
					value: 'oauthClientCredentials',
					description: 'For automations without a person: the client-credentials grant with a client secret or a private key (private_key_jwt). For servers where a person signs in, use the "MCP Server OAuth2 API" credential.',
				},
			],
		},
		{
			displayName: 'Bearer Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authentication: ['bearer'] } },
			description: 'Sent as "Authorization: Bearer &lt;token&gt;"',
		},
		{
			displayName: 'Headers',
			name: 'headers',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			displayOptions: { show: { authentication: ['headers'] } },
			placeholder: 'X-API-Key: abc123',
			description: 'One "Name: value" per line, or a JSON object. Values are stored encrypted and never shown in outputs or errors.',
		},
		...clientCredentialsProperties,
		mcpServerRootsProperty("Paths are on the server's machine."),
		...mcpServerCommonProperties('How long to wait for the connection and handshake'),
	];
}
