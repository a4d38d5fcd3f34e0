import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpServerCommonProperties } from './mcpServerCommonProperties';
import { mcpServerTransportProperty } from './mcpServerTransportProperty';

/**
 * A remote MCP server behind OAuth 2.1, connected with n8n's own "Connect my account" flow.
 * It extends n8n's `oAuth2Api`, so n8n's OAuth service does the interactive grant from the server
 * URL alone: protected-resource and authorization-server discovery, dynamic client registration,
 * PKCE, the `resource` parameter, encrypted token storage and refresh under its lock (n8n 2.x;
 * n8n 1.x discovers less, see the README). The nodes read the stored tokens and refresh them
 * through n8n's helper (lib/mcp/oauth/hostTokenAuth.ts).
 *
 * The names say "OAuth2" as n8n asks of OAuth 2 credentials (issue 27). When n8n builds the
 * authorization URL, it deletes the stored `scope` of a type named with "OAuth2" that is not on its
 * own list (n8n 1.x always; n8n 2.x unless the type's `scope` field is visible) and applies the
 * type's defaults instead. So the Scope a person enters lives in `mcpScope`, and `scope` is hidden
 * with an expression over it as its default, as n8n's own credentials with editable scopes do
 * (Discord, Gmail: `$self["enabledScopes"]`): both n8n versions then ask for what was entered.
 * Both carry oAuth2Api's display condition, so with Register Client Automatically on neither is
 * there and n8n asks for the scopes the server publishes, as before.
 */
export class McpServerOAuth2Api implements ICredentialType {
	name = 'mcpServerOAuth2Api';

	displayName = 'MCP Server OAuth2 API';

	documentationUrl = 'https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent/blob/main/docs/credentials.md#mcp-server-oauth2-api--mcpserveroauth2api';

	icon = { light: 'file:mcpServer.svg', dark: 'file:mcpServer.dark.svg' } as const;

	extends = ['oAuth2Api'];

	properties: INodeProperties[] = [
		{
			displayName: 'MCP Server URL',
			name: 'serverUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://mcp.example.com/mcp',
			description: 'The MCP endpoint. n8n finds the authorization server from it when you click "Connect my account".',
		},
		{
			displayName: 'Register Client Automatically',
			name: 'useDynamicClientRegistration',
			type: 'boolean',
			default: true,
			description:
				'Whether n8n registers itself with the authorization server (dynamic client registration); it then asks for exactly the scopes the MCP server publishes. Turn off for servers that need a client registered beforehand, when Connect my account fails with "Request failed with status code 400" (the registration was refused), or to set Scope (e.g. add offline_access to get a refresh token): register the OAuth Redirect URL shown above there, then enter its endpoints, client ID, secret and Scope below.',
		},
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'options',
			default: 'pkce',
			options: [
				{ name: 'Authorization Code with PKCE', value: 'pkce' },
				{ name: 'Authorization Code', value: 'authorizationCode' },
			],
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
		},
		{
			displayName: 'Scope',
			name: 'mcpScope',
			type: 'string',
			default: '',
			placeholder: 'mcp:read mcp:write offline_access',
			description: 'Space-separated scopes that Connect my account asks for (add offline_access for a refresh token, if the authorization server needs it)',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
		},
		{
			// What n8n sends: n8n drops a stored `scope` of this type and applies this default (see above).
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: '={{$self["mcpScope"]}}',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
		},
		{
			displayName: 'Resource URL',
			name: 'resourceUrl',
			type: 'string',
			default: '',
			placeholder: 'https://mcp.example.com/mcp',
			description: 'Optional. The resource indicator to ask tokens for, when it differs from what the server publishes (n8n 2.x).',
		},
		mcpServerTransportProperty,
		...mcpServerCommonProperties('How long to wait for the connection and handshake'),
	];
}
