import { createHash } from 'node:crypto';
import { discoverOAuthServerInfo, IssuerMismatchError, validateAuthorizationResponseIssuer } from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';
import { describeUrl } from '../secrets';
import type { HostTokenData } from './hostTokenAuth';
import { fetchWithin, limitedFetch } from '../streamLimits';

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
 */

/** Grants that passed, per process: checked once, not on every execution. */
const passed = new Set<string>();

/** How long the metadata may take when the caller names no time (the credential's connect timeout). */
const DEFAULT_CHECK_TIMEOUT_MS = 30_000;

export interface GrantCheckOptions {
	/** The whole discovery, bodies included; past it the check fails closed. */
	timeoutMs?: number;
	/** Tests: the fetch underneath (still bounded in time and size). */
	fetchFn?: typeof fetch;
}

export async function checkStoredGrantIssuer(serverUrl: string, data: HostTokenData | undefined, options: GrantCheckOptions = {}): Promise<void> {
	const callback = data?.callbackQueryString && typeof data.callbackQueryString === 'object' ? (data.callbackQueryString as Record<string, unknown>) : {};
	const iss = typeof callback.iss === 'string' ? callback.iss : undefined;
	const key = createHash('sha256').update(JSON.stringify([serverUrl, iss ?? null])).digest('hex');
	if (passed.has(key)) return;
	const where = describeUrl(serverUrl);
	let info: Awaited<ReturnType<typeof discoverOAuthServerInfo>>;
	try {
		// Metadata is read whole: held to the answer limit, and the discovery to the timeout.
		const fetchFn = limitedFetch(fetchWithin(options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, options.fetchFn)) as typeof fetch;
		info = await discoverOAuthServerInfo(serverUrl, { fetchFn });
	} catch (error) {
		if (error instanceof IssuerMismatchError) {
			throw new McpFailure(`The authorization server of ${where} publishes metadata whose issuer does not match the address it was fetched from (RFC 8414): its tokens are not used. Ask the server's operator; reconnecting does not help.`, 'oauth');
		}
		// Fails closed only where metadata may exist but could not be had now: a server error, or no
		// answer at all. An answer that is no metadata (a web page or other JSON for every path, a 4xx)
		// means, as a 404 does, that there is nothing to check against.
		const status = Number(/\bHTTP (\d{3})\b/.exec(error instanceof Error ? error.message : '')?.[1]);
		// No answer, no whole answer in time, or an answer too large to be metadata.
		const unreachable = ['TypeError', 'TimeoutError', 'AbortError', 'AnswerTooLarge'].includes(String((error as Error | undefined)?.name));
		if (!(status >= 500) && !unreachable) return;
		throw new McpFailure(
			`The stored authorization of ${where} could not be checked: the OAuth metadata of its authorization server could not be loaded (${status ? `HTTP ${status}` : 'no answer'}). Its tokens are not used until the check passes; try again later.`,
			'oauth',
		);
	}
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
