import type { INodeProperties } from 'n8n-workflow';

const show = { show: { authentication: ['oauthClientCredentials'] } };

/**
 * The client-credentials grant on the HTTP credential (lib/mcp/oauth/clientCredentials.ts). The
 * token endpoint is found from the MCP URL (protected-resource metadata), so none is entered;
 * tokens stay in memory for one execution.
 */
export const clientCredentialsProperties: INodeProperties[] = [
	{
		displayName: 'Client ID',
		name: 'clientId',
		type: 'string',
		default: '',
		required: true,
		displayOptions: show,
	},
	{
		displayName: 'Client Authentication',
		name: 'clientAuthMethod',
		type: 'options',
		default: 'client_secret_basic',
		displayOptions: show,
		options: [
			{ name: 'Client Secret (HTTP Basic)', value: 'client_secret_basic' },
			{ name: 'Client Secret (in the Request Body)', value: 'client_secret_post' },
			{ name: 'Private Key JWT', value: 'private_key_jwt', description: 'A JWT signed with your private key (RFC 7523); the authorization server holds the public key' },
		],
	},
	{
		displayName: 'Client Secret',
		name: 'clientSecret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		displayOptions: { show: { authentication: ['oauthClientCredentials'], clientAuthMethod: ['client_secret_basic', 'client_secret_post'] } },
	},
	{
		displayName: 'Private Key',
		name: 'privateKey',
		type: 'string',
		typeOptions: { password: true, rows: 6 },
		default: '',
		placeholder: '-----BEGIN PRIVATE KEY-----',
		displayOptions: { show: { authentication: ['oauthClientCredentials'], clientAuthMethod: ['private_key_jwt'] } },
		description: 'PEM private key (PKCS#8, or EC/RSA PEM). Stored encrypted, never shown in outputs or errors.',
	},
	{
		displayName: 'Signing Algorithm',
		name: 'signingAlgorithm',
		type: 'options',
		default: 'ES256',
		displayOptions: { show: { authentication: ['oauthClientCredentials'], clientAuthMethod: ['private_key_jwt'] } },
		options: ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'].map((alg) => ({ name: alg, value: alg })),
	},
	{
		displayName: 'Scope',
		name: 'scope',
		type: 'string',
		default: '',
		displayOptions: show,
		placeholder: 'mcp:read mcp:write',
		description: 'Space-separated scopes to ask for. Empty: the scopes the server names.',
	},
	{
		displayName: 'Authorization Server Issuer',
		name: 'issuer',
		type: 'string',
		default: '',
		displayOptions: show,
		placeholder: 'https://auth.example.com',
		description: 'Recommended. The issuer these client credentials belong to: they are then sent to no other authorization server, whatever the MCP server names. Empty: the one the MCP server names.',
	},
];
