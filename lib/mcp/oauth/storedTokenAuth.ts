import type { AuthProvider } from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';
import type { McpAuth } from './types';

/**
 * Host-held OAuth tokens used after their execution stopped running: the access token as it is
 * now, never refreshed. A refresh goes through n8n's helper on the context of the execution that
 * owns the credential, and a waiting execution's context must not be asked for one (it would
 * persist tokens on a finished run's behalf, or burn the refresh token). So a 401, or no token at
 * all, ends the use: `refused` says so, and the caller leaves the work to the next execution.
 */
export interface StoredTokenAuth extends McpAuth {
	/** Whether a request was refused a token (none held, or the server answered 401). */
	readonly refused: boolean;
}

export function storedTokenAuth(held: McpAuth): StoredTokenAuth {
	let refused = false;
	const refusal = (why: string) => {
		refused = true;
		return new McpFailure(`The stored OAuth token ${why}; it is renewed only on behalf of a running execution.`, 'reconnect');
	};
	const provider: AuthProvider = {
		token: async () => {
			const token = held.storedToken?.();
			if (!token) throw refusal('is not at hand');
			return token;
		},
		onUnauthorized: async () => {
			throw refusal('was refused by the server');
		},
	};
	return {
		// Not 'host': a connection pool must not swap this in as an execution's own auth.
		kind: 'session',
		provider,
		onInsufficientScope: 'throw',
		remedy: held.remedy,
		secrets: () => held.secrets(),
		get secretsVersion() {
			return held.secretsVersion;
		},
		get refused() {
			return refused;
		},
	};
}
