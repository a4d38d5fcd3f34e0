import { createHash } from 'node:crypto';
import { discoverOAuthServerInfo, IssuerMismatchError, validateAuthorizationResponseIssuer } from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';
import { describeUrl } from '../secrets';
import type { HostTokenData } from './hostTokenAuth';
import { hasRebuildableBody, readLimited, withBody } from '../streamLimits';
import { AddressRefused, serverNamedUrlPolicy, type ResolveHost } from '../urlPolicy';

/**
 * The issuer checks of MCP 2026-07-28 for a grant the host (n8n) redeemed. n8n does not check the
 * authorization response's `iss` (RFC 9207) nor the metadata's `issuer` echo (RFC 8414 §3.3)
 * before redeeming the code, but it keeps the callback's extra parameters (`iss` among them) in
 * `oauthTokenData.callbackQueryString`. So before the first use of a stored grant we discover the
 * server's authorization server and check both; a grant that fails is not used. This is the part
 * our code can enforce: the code was already redeemed by then, but its token never reaches the
 * MCP server. Where no metadata can be found (endpoints entered by hand), there is nothing to
 * check against and the grant is used as n8n stored it. Where metadata exists but cannot be loaded
 * now (a server error, a network failure), the check fails closed: the grant waits for a run in
 * which it can be checked, since skipping it is what an attacker who can break the connection
 * would want.
 *
 * Every address the discovery fetches other than the MCP server's own (the authorization servers
 * its protected-resource metadata names, their metadata) is the server's choice: it is held to
 * lib/mcp/urlPolicy.ts, and a refusal fails the check before anything is sent there.
 */

/** Grants that passed, per process: checked once, not on every execution. */
const passed = new Set<string>();

/** OAuth metadata documents are a few KB: more is no metadata. */
const MAX_METADATA_BYTES = 1024 * 1024;

/**
 * The discovery's fetch: one deadline for all of it, every answer read whole here (within the
 * deadline and MAX_METADATA_BYTES), and the first trouble kept (no answer, not complete in time, too
 * large, a server error), since the SDK's discovery swallows some failures and goes on.
 */
function watchedDiscoveryFetch(
	timeoutMs: number,
	base: typeof fetch,
): { fetch: typeof fetch; readonly trouble: string | undefined; readonly refused: AddressRefused | undefined } {
	const deadline = AbortSignal.timeout(timeoutMs);
	const watched = {
		trouble: undefined as string | undefined,
		refused: undefined as AddressRefused | undefined,
		fetch: (async (url: string | URL | Request, init?: RequestInit) => {
			try {
				const response = await base(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
				if (response.status >= 500) watched.trouble ??= `HTTP ${response.status}`;
				return hasRebuildableBody(response) ? withBody(response, await readLimited(response.body, MAX_METADATA_BYTES, 'The OAuth metadata')) : response;
			} catch (error) {
				if (AddressRefused.isInstance(error)) {
					watched.refused ??= error;
					throw error;
				}
				const name = (error as Error | undefined)?.name;
				watched.trouble ??=
					name === 'AnswerTooLarge' ? 'an answer larger than 1 MB' : deadline.aborted || name === 'TimeoutError' ? `not complete within ${timeoutMs / 1000} s` : 'no answer';
				throw error;
			}
		}) as typeof fetch,
	};
	return watched;
}

/** How long the metadata may take when the caller names no time (the credential's connect timeout). */
const DEFAULT_CHECK_TIMEOUT_MS = 30_000;

export interface GrantCheckOptions {
	/** The whole discovery, every request and body included; past it the check fails closed. */
	timeoutMs?: number;
	/** Tests: the fetch underneath (still bounded in time and size, and held to the URL policy). */
	fetchFn?: typeof fetch;
	/** Tests: the resolver of the URL policy. */
	resolve?: ResolveHost;
	/** The environment the URL policy reads (process.env by default). */
	env?: NodeJS.ProcessEnv;
}

export async function checkStoredGrantIssuer(serverUrl: string, data: HostTokenData | undefined, options: GrantCheckOptions = {}): Promise<void> {
	const callback = data?.callbackQueryString && typeof data.callbackQueryString === 'object' ? (data.callbackQueryString as Record<string, unknown>) : {};
	const iss = typeof callback.iss === 'string' ? callback.iss : undefined;
	const key = createHash('sha256').update(JSON.stringify([serverUrl, iss ?? null])).digest('hex');
	if (passed.has(key)) return;
	const where = describeUrl(serverUrl);
	const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
	const policy = serverNamedUrlPolicy(serverUrl, 'OAuth discovery', { ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.env ? { env: options.env } : {}) });
	const watched = watchedDiscoveryFetch(timeoutMs, policy.fetch(options.fetchFn));
	const couldNotCheck = (reason: string) =>
		new McpFailure(
			`The stored authorization of ${where} could not be checked: the OAuth metadata of its authorization server could not be loaded (${reason}). Its tokens are not used until the check passes; try again later.`,
			'oauth',
		);
	let info: Awaited<ReturnType<typeof discoverOAuthServerInfo>>;
	try {
		info = await discoverOAuthServerInfo(serverUrl, { fetchFn: watched.fetch });
	} catch (error) {
		if (watched.refused) throw watched.refused;
		if (error instanceof IssuerMismatchError) {
			throw new McpFailure(`The authorization server of ${where} publishes metadata whose issuer does not match the address it was fetched from (RFC 8414): its tokens are not used. Ask the server's operator; reconnecting does not help.`, 'oauth');
		}
		// Fails closed only where metadata may exist but could not be had now: a server error, no
		// answer, no whole answer in time, or one too large to be metadata. An answer that is no
		// metadata (a web page or other JSON for every path, a 4xx) means, as a 404 does, that there is
		// nothing to check against.
		const status = Number(/\bHTTP (\d{3})\b/.exec(error instanceof Error ? error.message : '')?.[1]);
		if (watched.trouble) throw couldNotCheck(watched.trouble);
		if (status >= 500) throw couldNotCheck(`HTTP ${status}`);
		return;
	}
	// The discovery goes on past a step that failed (the protected-resource metadata, which names the
	// authorization server, falls back to the server's origin): such a failure still fails closed.
	if (watched.refused) throw watched.refused;
	if (watched.trouble) throw couldNotCheck(watched.trouble);
	const metadata = info.authorizationServerMetadata;
	if (!metadata) return;
	try {
		validateAuthorizationResponseIssuer({
			iss,
			expectedIssuer: metadata.issuer,
			issParameterSupported: (metadata as { authorization_response_iss_parameter_supported?: unknown }).authorization_response_iss_parameter_supported === true,
		});
	} catch {
		// The received value is attacker-controllable (a mix-up attack): it is not repeated.
		throw new McpFailure(
			`The stored authorization of ${where} did not come from its authorization server: the authorization response's issuer (iss) is ${iss === undefined ? 'missing although the server promises it' : 'a different one'} (RFC 9207). Its tokens are not used. Open the credential and click "Connect my account" again.`,
			'reconnect',
		);
	}
	passed.add(key);
}
