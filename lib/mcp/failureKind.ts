/** What kind of MCP failure it is; a leaf module so the OAuth explanations and the errors module share it. */
export type McpFailureKind =
	| 'dns'
	| 'refused'
	| 'unauthorized'
	| 'forbidden'
	| 'tls'
	| 'not-mcp'
	| 'http-status'
	| 'timeout'
	| 'process-exited'
	| 'spawn-failed'
	| 'session-expired'
	| 'protocol'
	| 'disabled'
	| 'config'
	/** OAuth: the grant is gone or refused; a person has to reconnect the credential. */
	| 'reconnect'
	/** OAuth: 403 insufficient_scope; the message names the scope. */
	| 'insufficient-scope'
	/** OAuth: discovery, issuer checks, the token endpoint. */
	| 'oauth'
	/** A URL the server named that n8n does not contact (lib/mcp/urlPolicy.ts). */
	| 'refused-address'
	| 'unknown';
