import { lookup } from 'node:dns/promises';
import { addressInRange, bareHost, classifyAddress, classifyHostLiteral, type AddressClass } from '../util/addressClass';
import { McpFailure } from './errors';
import { hasMarker } from '../errors';
import { describeUrl } from './secrets';
import { fetchPinned } from './pinnedFetch';
import { proxyConfigured } from './leanHttpTransport';

/**
 * Which URLs a remote MCP server may make n8n request. The credential's MCP server URL is the
 * user's choice; every other address our code fetches because a server named it (the
 * authorization servers of its protected-resource metadata, the endpoints of their metadata, a
 * resource_metadata URL in a 401) is the server's choice, and without a rule a server on the
 * internet could make n8n send requests to hosts inside n8n's network or to a cloud metadata
 * service. The rule, for a URL with another origin than the MCP server's:
 *
 * - http or https only; https unless the MCP server itself is on loopback (local development);
 * - every address the host resolves to (dns.lookup, all of them) must be public, or of the same
 *   class as the MCP server's own address (an internal MCP server may use an internal
 *   authorization server); metadata services, unspecified and reserved addresses never are;
 * - an administrator may exempt hosts from both: ALLOWED_PRIVATE_HOSTS_VARIABLE, a comma-separated
 *   list of host names, IP addresses and CIDR ranges.
 *
 * DNS rebinding: `fetch()` connects to the addresses the check saw (lib/mcp/pinnedFetch.ts), so a
 * name whose answer changes after the check (a zero TTL) cannot reach another address. Where a
 * proxy is configured in the environment, or a caller hands its own fetch (`guard`, tests), the
 * fetch resolves again by itself: that residual gap is for a firewall on n8n's egress to close.
 */
export const ALLOWED_PRIVATE_HOSTS_VARIABLE = 'N8N_MCP_AGENT_ALLOWED_PRIVATE_HOSTS';

const DEFAULT_NAMED_BY = 'the MCP server';

/** Every address a host name resolves to. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolve: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export interface UrlPolicyOptions {
	env?: NodeJS.ProcessEnv;
	/** Tests: the resolver (the system's by default). */
	resolve?: ResolveHost;
	/** Who names the URLs, in messages: "the MCP server" unless said otherwise ("the model endpoint"). */
	namedBy?: string;
}

const REFUSED_MARKER = Symbol.for('n8n-nodes-mcp-agent.error.AddressRefused');

/** A URL a server named that n8n did not contact. The message names its host and the reason, never its path or query. */
export class AddressRefused extends McpFailure {
	readonly [REFUSED_MARKER] = true;

	constructor(
		message: string,
		readonly host: string,
		readonly reason: string,
		description: string,
	) {
		super(message, 'refused-address', undefined, undefined, description);
		this.name = 'AddressRefused';
	}

	static isInstance(error: unknown): error is AddressRefused {
		return hasMarker(error, REFUSED_MARKER);
	}
}

/** The AddressRefused in an error's cause chain (the SDK may wrap what our fetch threw). */
export function refusalIn(error: unknown): AddressRefused | undefined {
	let current: unknown = error;
	for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
		if (AddressRefused.isInstance(current)) return current;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

const CLASS_WORDS: Record<Exclude<AddressClass, 'public'>, string> = {
	loopback: 'a loopback address (this machine)',
	private: 'a private network address',
	'link-local': 'a link-local address',
	metadata: "a cloud metadata service's address",
	unspecified: 'an unspecified address (0.0.0.0 or ::)',
	reserved: 'a reserved address',
};

/** Classes a server may name when its own address is of the same class. */
const SAME_CLASS_ALLOWED = new Set<AddressClass>(['loopback', 'private', 'link-local']);

export function allowedPrivateHosts(env: NodeJS.ProcessEnv = process.env): string[] {
	return (env[ALLOWED_PRIVATE_HOSTS_VARIABLE] ?? '')
		.split(',')
		.map((entry) => bareHost(entry.trim()))
		.filter(Boolean);
}

interface Resolved {
	addresses: Array<{ address: string; kind: AddressClass }>;
	/** The host was a literal (an IP, localhost, a metadata name): nothing was resolved. */
	literal: boolean;
}

async function resolveClasses(hostname: string, resolve: ResolveHost): Promise<Resolved> {
	const host = bareHost(hostname);
	const literal = classifyHostLiteral(host);
	if (literal) return { addresses: [{ address: host, kind: literal }], literal: true };
	const addresses = await resolve(host);
	return { addresses: addresses.map((address) => ({ address, kind: classifyAddress(address) ?? 'reserved' })), literal: false };
}

export interface ServerNamedUrlPolicy {
	/** Resolves when `target` may be fetched; rejects with AddressRefused when not (or with the resolver's error). */
	check(target: string | URL): Promise<void>;
	/** `fetchImpl` that checks every URL before fetching it. */
	guard<F extends (input: string | URL | Request, init?: RequestInit) => Promise<Response>>(fetchImpl: F): F;
	/**
	 * fetch for the server's requests: its own origin as fetch does; another origin checked, then
	 * connected to the checked addresses only (fetchPinned, no second lookup a DNS answer could
	 * change under). With `base` (tests), or a proxy in the environment, the check is made and
	 * `base` (or fetch) resolves again by itself.
	 */
	fetch(base?: typeof fetch): typeof fetch;
}

/**
 * The policy for URLs the MCP server at `serverUrl` names. `purpose` says in messages what the URL
 * was for ("OAuth discovery").
 */
export function serverNamedUrlPolicy(serverUrl: string, purpose: string, options: UrlPolicyOptions = {}): ServerNamedUrlPolicy {
	const resolve = options.resolve ?? systemResolve;
	const namedBy = options.namedBy ?? DEFAULT_NAMED_BY;
	const allowed = allowedPrivateHosts(options.env);
	let server: URL | undefined;
	try {
		server = new URL(serverUrl);
	} catch {
		server = undefined;
	}
	let serverClasses: Promise<Set<AddressClass>> | undefined;
	// The MCP server's own classes: an unresolvable server counts as public (the strictest rule).
	const ownClasses = () =>
		(serverClasses ??= server
			? resolveClasses(server.hostname, resolve).then(
					(resolved) => new Set(resolved.addresses.map((entry) => entry.kind)),
					() => new Set<AddressClass>(['public']),
				)
			: Promise.resolve(new Set<AddressClass>(['public'])));

	const refuse = (target: URL, reason: string) => {
		const where = server ? `${namedBy} ${describeUrl(server.href)}` : namedBy;
		return new AddressRefused(
			`n8n did not contact ${target.host}, which ${where} named for ${purpose}: ${reason}.`,
			target.host,
			reason,
			`A server can name any address, so n8n contacts only public https hosts for it, and hosts of ${namedBy}'s own kind of network. If ${target.hostname} is meant to be reached, an administrator can allow it: add it to the environment variable ${ALLOWED_PRIVATE_HOSTS_VARIABLE} (comma-separated host names, IP addresses or CIDR ranges such as 10.0.0.0/8) for n8n and every worker, and restart n8n.`,
		);
	};

	/** The checked URL, and the addresses a fetch must connect to (absent: nothing was resolved, the name is the user's or an administrator's). */
	const inspect = async (input: string | URL): Promise<{ target: URL; addresses?: string[] }> => {
		let target: URL;
		try {
			target = new URL(input);
		} catch {
			throw new AddressRefused(
				`n8n did not contact an address ${namedBy} named for ${purpose}: it is not a valid URL.`,
				'',
				'not a valid URL',
				"Ask the server's operator to publish valid URLs.",
			);
		}
		if (server && target.origin === server.origin) return { target };
		if (target.protocol !== 'https:' && target.protocol !== 'http:') throw refuse(target, `it is not an http or https address (${target.protocol})`);
		const host = bareHost(target.hostname);
		if (allowed.includes(host)) return { target };
		const own = await ownClasses();
		const serverOnLoopback = [...own].every((kind) => kind === 'loopback');
		const resolved = await resolveClasses(host, resolve);
		const listed = (address: string) => allowed.some((entry) => addressInRange(address, entry));
		for (const { address, kind } of resolved.addresses) {
			if (kind === 'public' || listed(address)) continue;
			if (SAME_CLASS_ALLOWED.has(kind) && own.has(kind)) continue;
			const seen = resolved.literal ? '' : ` (${host} resolves to ${address})`;
			throw refuse(target, `it is ${CLASS_WORDS[kind]}${seen}${SAME_CLASS_ALLOWED.has(kind) ? `, and ${namedBy}'s own address is not` : ''}`);
		}
		if (target.protocol === 'http:' && !serverOnLoopback && !resolved.addresses.every((entry) => listed(entry.address))) {
			throw refuse(target, `it uses plain http, and only ${namedBy === DEFAULT_NAMED_BY ? 'an MCP server' : namedBy} on this machine (loopback) may name http addresses`);
		}
		return resolved.literal ? { target } : { target, addresses: resolved.addresses.map((entry) => entry.address) };
	};

	return {
		check: async (target) => {
			await inspect(target);
		},
		guard(fetchImpl) {
			return (async (input: string | URL | Request, init?: RequestInit) => {
				await inspect(input instanceof Request ? input.url : input);
				return fetchImpl(input, init);
			}) as typeof fetchImpl;
		},
		fetch(base) {
			return async (input, init) => {
				const { target, addresses } = await inspect(input instanceof Request ? input.url : input);
				// With a proxy in the environment the proxy connects (and resolves), not us.
				if (addresses?.length && !base && !(input instanceof Request) && !proxyConfigured()) return fetchPinned(target, addresses, init);
				return (base ?? fetch)(input, init);
			};
		},
	};
}
