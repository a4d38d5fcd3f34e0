/**
 * How a person gets n8n's "Connect my account" to ask for a scope. The credential's Scope field
 * (`mcpScope`, which its hidden `scope` follows: credentials/McpServerOAuth2Api.credentials.ts) is
 * shown only with Register Client Automatically off; with it on, n8n asks for exactly the
 * scopes the MCP server publishes (its protected-resource metadata's `scopes_supported`, else the
 * authorization server's) and registers with those, so no field can add one.
 */

/** How the OAuth credential's client came to be: n8n's dynamic registration, or entered by hand. */
export type ClientRegistration = 'automatic' | 'manual';

/** One clause, `named` already quoted ("offline_access"), ending in "Connect my account" again. */
export function howToAskForScope(named: string, registration: ClientRegistration | undefined): string {
	if (registration === 'manual') return `open the credential, add ${named} to Scope, and click "Connect my account" again`;
	if (registration === 'automatic') {
		return (
			`with Register Client Automatically on, n8n asks for exactly the scopes the MCP server publishes (its scopes_supported) and shows no Scope field, ` +
			`so either the server's operator publishes ${named} there, or you turn Register Client Automatically off, register a client with the authorization server ` +
			`(for the OAuth Redirect URL shown in the credential), enter its endpoints, client ID and secret, put ${named} with the other scopes you need in Scope, and click "Connect my account" again`
		);
	}
	return `open the credential, add ${named} to Scope (shown when Register Client Automatically is off), and click "Connect my account" again`;
}
