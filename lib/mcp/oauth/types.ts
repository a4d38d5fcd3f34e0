import type { AuthProvider, OAuthClientProvider } from '@modelcontextprotocol/client';
import type { ClientRegistration } from './scopeAdvice';

/**
 * How an HTTP connection authenticates with OAuth, whatever the grant behind it: tokens held by
 * the host (n8n's "Connect my account"), the client-credentials grant, or an interactive session
 * driven outside n8n (conformance, tests). The transport gets `provider`; everything else is for
 * our own error messages and redaction.
 */
export interface McpAuth {
	/**
	 * Who holds the grant: the host (n8n's stored tokens; a person reconnects), a client-credentials
	 * client (an administrator changes what it may do), or an interactive session of our own.
	 */
	readonly kind: 'host' | 'client-credentials' | 'session';
	readonly provider: AuthProvider | OAuthClientProvider;
	/**
	 * What a 403 `insufficient_scope` does: `throw` (no person can consent in the middle of a run;
	 * the error names the scope) or `reauthorize` (an interactive session asks for the union).
	 */
	readonly onInsufficientScope: 'throw' | 'reauthorize';
	/** Host-held tokens: how the credential's OAuth client was registered, for scope advice. */
	readonly registration?: ClientRegistration;
	/** What a person should do when the server keeps refusing the credential, one sentence. */
	readonly remedy: string;
	/**
	 * Every token and client secret this auth has held so far (tokens rotate during a run, and an
	 * old one echoed later must still be hidden). Read again whenever `secretsVersion` changes.
	 */
	secrets(): string[];
	readonly secretsVersion: number;
	/**
	 * The access token held now, never refreshed (host-held tokens): what a kept connection sends
	 * while no execution is using it (its closing DELETE, a stream reconnecting), when no context
	 * may be asked for a refresh.
	 */
	storedToken?(): string | undefined;
	/**
	 * The access token the host handed this auth (host-held tokens), before any refresh of its own;
	 * never sent from here. A kept connection compares it with the tokens it produced itself: any
	 * other token means the credential was connected again, perhaps to another account.
	 */
	handedToken?(): string | undefined;
}

/** Keeps the values an auth has seen, bounded, and counts changes for redactors to notice. */
export class SecretLedger {
	private readonly values: string[] = [];
	version = 0;

	constructor(private readonly limit = 32) {}

	add(...candidates: Array<string | undefined>): void {
		for (const value of candidates) {
			if (typeof value !== 'string' || !value.trim() || this.values.includes(value)) continue;
			this.values.push(value);
			if (this.values.length > this.limit) this.values.shift();
			this.version++;
		}
	}

	list(): string[] {
		return [...this.values];
	}
}
