import type { AuthProvider } from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';
import { SecretLedger, type McpAuth } from './types';
import { howToAskForScope, type ClientRegistration } from './scopeAdvice';

/**
 * OAuth tokens held by the host: n8n stores them (encrypted) after "Connect my account" and is
 * the only one that can write them back, through its own refresh helper, under its own lock.
 * So the transport gets a minimal AuthProvider over them: a token before every request, refreshed
 * first when it is about to expire, and one refresh through the host when the server answers 401.
 * No OAuthClientProvider: our code never redeems a code or stores a token itself.
 */

/** The token data the host keeps (n8n's `oauthTokenData`): snake_case, with camelCase from old flows. */
export interface HostTokenData {
	access_token?: unknown;
	accessToken?: unknown;
	refresh_token?: unknown;
	refreshToken?: unknown;
	expires_in?: unknown;
	/** Absolute expiry in ms, written by n8n 2.x; n8n 1.x does not write it (then 401-driven only). */
	n8n_expires_at?: unknown;
	scope?: unknown;
	[key: string]: unknown;
}

export interface HostTokenSource {
	/** The token data as the host handed it to this execution. */
	readonly initial: HostTokenData | undefined;
	/** Refreshes through the host (which persists the result) and returns the new token data. */
	refresh(): Promise<HostTokenData | undefined>;
}

export interface HostTokenAuthOptions {
	/** Shown in errors: the credential's name or type, never a value. */
	credentialLabel?: string;
	/**
	 * Runs once before the stored grant's first token is handed out (the issuer checks the host
	 * skipped, lib/mcp/oauth/storedGrantCheck.ts); a rejection keeps the token from being used.
	 */
	checkGrant?: (data: HostTokenData | undefined) => Promise<void>;
	/** The credential's own OAuth client secret: never a token, but redacted like one (a failed refresh may quote it). */
	clientSecret?: string;
	/** How the credential's client was registered (Register Client Automatically), for scope advice. */
	registration?: ClientRegistration;
	now?: () => number;
}

/** n8n's own rule for its MCP nodes: refresh 2 minutes, or a tenth of the lifetime, before expiry. */
const REFRESH_BUFFER_MS = 2 * 60 * 1000;
const REFRESH_BUFFER_RATIO = 0.1;

export function accessTokenOf(data: HostTokenData | undefined): string | undefined {
	const token = data?.access_token ?? data?.accessToken;
	return typeof token === 'string' && token ? token : undefined;
}

function refreshTokenOf(data: HostTokenData | undefined): string | undefined {
	const token = data?.refresh_token ?? data?.refreshToken;
	return typeof token === 'string' && token ? token : undefined;
}

/** True when the token expires within the buffer (and a refresh token exists to renew it). */
export function expiresSoon(data: HostTokenData | undefined, now: number): boolean {
	if (!data || !refreshTokenOf(data)) return false;
	const expiresAt = Number(data.n8n_expires_at);
	if (!Number.isFinite(expiresAt)) return false;
	const lifetimeMs = Number(data.expires_in) * 1000;
	const buffer = Number.isFinite(lifetimeMs) && lifetimeMs > 0 ? Math.min(REFRESH_BUFFER_MS, lifetimeMs * REFRESH_BUFFER_RATIO) : REFRESH_BUFFER_MS;
	return now + buffer >= expiresAt;
}

/** How long after a refresh a 401 is taken for a request that carried the token before it. */
const RECENT_REFRESH_MS = 30_000;

export const RECONNECT_REMEDY = 'Open the credential and click "Connect my account" again (or "Reconnect").';

/**
 * The OAuth error code of a failed refresh, when it says one (`invalid_grant`, `invalid_client`):
 * a fixed vocabulary, safe to show. Anything else the host threw is not repeated.
 */
function oauthErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const record = current as { code?: unknown; body?: { error?: unknown }; message?: unknown; cause?: unknown; description?: unknown };
		for (const candidate of [record.code, record.body?.error, record.message, record.description]) {
			const match = typeof candidate === 'string' ? /\b(invalid_grant|invalid_client|unauthorized_client|invalid_scope|needs to be reconnected)\b/.exec(candidate) : null;
			if (match) return match[1] === 'needs to be reconnected' ? 'invalid_grant' : match[1];
		}
		current = record.cause;
	}
	return undefined;
}

export function hostTokenAuth(source: HostTokenSource, options: HostTokenAuthOptions = {}): McpAuth {
	const now = options.now ?? Date.now;
	const label = options.credentialLabel ? `The OAuth credential "${options.credentialLabel}"` : 'The OAuth credential';
	const ledger = new SecretLedger();
	let data = source.initial;
	ledger.add(accessTokenOf(data), refreshTokenOf(data));
	// Kept apart from the ledger, which forgets its oldest values as tokens rotate.
	const clientSecret = options.clientSecret?.trim() ? [options.clientSecret] : [];
	let inFlight: Promise<void> | undefined;
	/** When the last refresh completed (see onUnauthorized). */
	let refreshedAt: number | undefined;
	let grantChecked: Promise<void> | undefined;
	/** The stored grant passed its check (or has none to pass): only then is its token handed out as stored. */
	let grantPassed = !options.checkGrant;

	const reconnect = (why: string) => new McpFailure(`${label} ${why}. ${RECONNECT_REMEDY}`, 'reconnect');

	// The authorization server gave no refresh token with the grant; many (oidc-provider's default)
	// give one only for offline_access, which n8n does not ask for unless Scope holds it.
	const noRefreshToken = () =>
		new McpFailure(
			`${label} was refused by the MCP server (its access token expired or was revoked) and holds no refresh token to renew it, so every expiry needs a person. ` +
				`Many authorization servers issue a refresh token only when the scope includes "offline_access": ${howToAskForScope('"offline_access"', options.registration)}.`,
			'reconnect',
		);

	const refresh = (): Promise<void> => {
		// One refresh at a time: parallel requests that all hit an expiring token share it (the host
		// also locks across processes; this saves the round trips within one).
		inFlight ??= (async () => {
			let next: HostTokenData | undefined;
			try {
				next = await source.refresh();
			} catch (error) {
				const code = oauthErrorCode(error);
				if (code === 'invalid_grant') throw reconnect('was revoked or has expired (the authorization server answered invalid_grant to the token refresh)');
				if (code) throw reconnect(`could not be refreshed (the authorization server answered ${code})`);
				const detail = error instanceof Error && error.message ? `: ${error.message}` : '';
				throw new McpFailure(`${label} could not be refreshed${detail}. If this persists, ${RECONNECT_REMEDY.charAt(0).toLowerCase()}${RECONNECT_REMEDY.slice(1)}`, 'reconnect');
			}
			if (!accessTokenOf(next)) throw reconnect('has no access token after a refresh');
			data = next;
			refreshedAt = now();
			ledger.add(accessTokenOf(next), refreshTokenOf(next));
		})().finally(() => {
			inFlight = undefined;
		});
		return inFlight;
	};

	const provider: AuthProvider = {
		async token() {
			if (options.checkGrant) {
				await (grantChecked ??= options.checkGrant(source.initial));
				grantPassed = true;
			}
			if (inFlight) await inFlight;
			else if (expiresSoon(data, now())) await refresh();
			const token = accessTokenOf(data);
			if (!token) throw reconnect('is not connected yet (no access token)');
			return token;
		},
		/**
		 * A 401: refresh, and the SDK sends the request once more (a second 401 fails it: the server
		 * refuses even the renewed token). Right after a refresh (another request's, or one running
		 * now), the refused request most likely carried the token before it: it is retried with the
		 * current token instead, so concurrent requests do not each burn a refresh, and a token that
		 * expires later in a long run is still renewed on its 401 (n8n 1.x stores no expiry).
		 */
		async onUnauthorized() {
			if (inFlight) return inFlight;
			if (refreshedAt !== undefined && now() - refreshedAt < RECENT_REFRESH_MS) return;
			if (!refreshTokenOf(data)) throw noRefreshToken();
			await refresh();
		},
	};

	return {
		kind: 'host',
		provider,
		...(options.registration ? { registration: options.registration } : {}),
		onInsufficientScope: 'throw',
		remedy: RECONNECT_REMEDY,
		secrets: () => [...ledger.list(), ...clientSecret],
		storedToken: () => (grantPassed ? accessTokenOf(data) : undefined),
		handedToken: () => accessTokenOf(source.initial),
		get secretsVersion() {
			return ledger.version;
		},
	};
}
