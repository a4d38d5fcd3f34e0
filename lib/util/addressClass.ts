import { isIP } from 'node:net';

/**
 * Which part of the network an address belongs to, for deciding whether a host that a remote
 * server named may be contacted from n8n's network (lib/mcp/urlPolicy.ts) or linked on the review
 * page. Pure: IP literals and a few well-known names only; resolving a name is the caller's part.
 *
 * - `loopback`: 127.0.0.0/8, ::1, the name localhost and *.localhost (RFC 6761).
 * - `private`: 10/8, 172.16/12, 192.168/16, fc00::/7 (unique local), fec0::/10 (old site-local),
 *   and 100.64.0.0/10 (carrier-grade NAT, RFC 6598): not reachable from the internet, used inside
 *   clouds, VPNs (Tailscale) and provider networks, so treated like the private ranges.
 * - `link-local`: 169.254/16, fe80::/10.
 * - `metadata`: cloud instance metadata services, which hand out credentials to whoever asks from
 *   the machine: 169.254.169.254 (AWS, Azure, GCP, Oracle, …), 169.254.170.2 (AWS ECS),
 *   fd00:ec2::254 (AWS IPv6), 100.100.100.200 (Alibaba), metadata.google.internal, metadata.goog.
 * - `unspecified`: 0.0.0.0/8 and ::, which Linux connects to this machine.
 * - `reserved`: multicast, 240/4, broadcast, documentation and benchmarking ranges; nothing a
 *   server should name.
 * - `public`: everything else.
 *
 * IPv4 inside IPv6 (::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is classified by the IPv4
 * address it carries.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'reserved';

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);

/** [first address, prefix length, class], most specific first. */
const V4_RANGES: Array<[string, number, AddressClass]> = [
	['0.0.0.0', 8, 'unspecified'],
	['127.0.0.0', 8, 'loopback'],
	['10.0.0.0', 8, 'private'],
	['172.16.0.0', 12, 'private'],
	['192.168.0.0', 16, 'private'],
	['100.64.0.0', 10, 'private'],
	['169.254.0.0', 16, 'link-local'],
	['192.0.0.0', 24, 'reserved'],
	['192.0.2.0', 24, 'reserved'],
	['198.18.0.0', 15, 'reserved'],
	['198.51.100.0', 24, 'reserved'],
	['203.0.113.0', 24, 'reserved'],
	['224.0.0.0', 4, 'reserved'],
	['240.0.0.0', 4, 'reserved'],
];

function v4Number(address: string): number {
	return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function inV4Range(value: number, first: string, prefix: number): boolean {
	const size = 2 ** (32 - prefix);
	const start = v4Number(first);
	return value >= start && value < start + size;
}

function classifyV4(address: string): AddressClass {
	if (METADATA_V4.has(address)) return 'metadata';
	const value = v4Number(address);
	for (const [first, prefix, kind] of V4_RANGES) if (inV4Range(value, first, prefix)) return kind;
	return 'public';
}

/** The 16 bytes of an IPv6 address (already checked with isIP). */
function v6Bytes(address: string): number[] {
	// A dotted IPv4 tail (::ffff:1.2.3.4) as the two groups it stands for.
	const text = address.replace(
		/(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
		(_all, a: string, b: string, c: string, d: string) => `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
	);
	const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
	const headGroups = head ? head.split(':') : [];
	const restGroups = rest ? rest.split(':') : [];
	const missing = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
	const groups = [...headGroups, ...Array<string>(missing).fill('0'), ...restGroups];
	return groups.flatMap((group) => {
		const value = parseInt(group || '0', 16);
		return [value >> 8, value & 0xff];
	});
}

function classifyV6(address: string): AddressClass {
	const b = v6Bytes(address.toLowerCase());
	const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
	const embedded = (at: number) => classifyV4(b.slice(at, at + 4).join('.'));
	if (zeros(0, 16)) return 'unspecified';
	if (zeros(0, 15) && b[15] === 1) return 'loopback';
	if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return embedded(12);
	// NAT64 (RFC 6052 well-known prefix): the gateway connects to the IPv4 address inside.
	if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return embedded(12);
	if (zeros(0, 12)) return 'reserved'; // IPv4-compatible (deprecated)
	if (b[0] === 0x20 && b[1] === 0x02) {
		const inner = embedded(2);
		return inner === 'public' ? 'public' : inner;
	}
	// fd00:ec2::254, AWS's metadata service over IPv6.
	if (b[0] === 0xfd && b[1] === 0x00 && b[2] === 0x0e && b[3] === 0xc2 && zeros(4, 14) && b[14] === 0x02 && b[15] === 0x54) return 'metadata';
	if ((b[0] & 0xfe) === 0xfc) return 'private';
	if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return 'link-local';
	if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return 'private';
	if (b[0] === 0xff) return 'reserved';
	if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'reserved';
	return 'public';
}

/** The class of an IP address (IPv4 or IPv6, no brackets); undefined for anything else. */
export function classifyAddress(address: string): AddressClass | undefined {
	const version = isIP(address);
	if (version === 4) return classifyV4(address);
	if (version === 6) return classifyV6(address);
	return undefined;
}

/** A URL's hostname as an address or name: brackets of IPv6 literals and a final dot removed, lower case. */
export function bareHost(hostname: string): string {
	const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
	return unbracketed.replace(/\.$/, '').toLowerCase();
}

/**
 * The class of a URL's hostname where it is known without resolving it (an IP literal, localhost,
 * a metadata service's name); undefined for any other name.
 */
export function classifyHostLiteral(hostname: string): AddressClass | undefined {
	const host = bareHost(hostname);
	const byAddress = classifyAddress(host);
	if (byAddress) return byAddress;
	if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
	if (METADATA_NAMES.has(host)) return 'metadata';
	return undefined;
}

/** Whether `address` (an IP) lies in `range` (an IP, or CIDR such as 10.0.0.0/8 or fd00::/8). */
export function addressInRange(address: string, range: string): boolean {
	const [base, prefixText] = range.split('/');
	const version = isIP(address);
	if (!version || isIP(base) !== version) return false;
	const bits = version === 4 ? 32 : 128;
	const prefix = prefixText === undefined ? bits : Number(prefixText);
	if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return false;
	const toBytes = (ip: string) => (version === 4 ? ip.split('.').map(Number) : v6Bytes(ip.toLowerCase()));
	const a = toBytes(address);
	const r = toBytes(base);
	for (let bit = 0; bit < prefix; bit++) {
		const mask = 0x80 >> (bit % 8);
		if ((a[bit >> 3] & mask) !== (r[bit >> 3] & mask)) return false;
	}
	return true;
}
