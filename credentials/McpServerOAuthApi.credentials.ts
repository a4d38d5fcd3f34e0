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
 * The name deliberately avoids "OAuth2", against the linter's naming rule: n8n (1.x always, 2.x
 * without a visible scope field) deletes the stored scope of a credential whose type name contains
 * "OAuth2" and that is not on its own list, which would lose the scope a person entered.
 */
/* eslint-disable n8n-nodes-base/cred-class-name-missing-oauth2-suffix, n8n-nodes-base/cred-class-field-name-missing-oauth2, n8n-nodes-base/cred-class-field-display-name-missing-oauth2 */
export class McpServerOAuthApi implements ICredentialType {
	name = 'mcpServerOAuthApi';

	displayName = 'MCP Server (OAuth) API';
	/* eslint-enable n8n-nodes-base/cred-class-name-missing-oauth2-suffix, n8n-nodes-base/cred-class-field-name-missing-oauth2, n8n-nodes-base/cred-class-field-display-name-missing-oauth2 */

	documentationUrl = 'https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent/blob/main/docs/credentials.md#mcp-server-oauth-api--mcpserveroauthapi';

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
				'Whether n8n registers itself with the authorization server (dynamic client registration); it then asks for exactly the scopes the MCP server publishes. Turn off for servers that need a client registered beforehand, when Connect my account fails with "Request failed with status code 400" (the registration was refused), or to set Scope (e.g. add offline_access to get a refresh token): register the OAuth Redirect URL shown above there, then enter its endpoints, client ID, secret and scope below.',
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
