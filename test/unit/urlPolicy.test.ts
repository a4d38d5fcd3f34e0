/**
 * Which addresses a server may make n8n contact (lib/util/addressClass.ts, lib/mcp/urlPolicy.ts):
 * table tests of the classifier and of the policy, names resolved by an injected resolver (nothing
 * here touches the network).
 */
import { addressInRange, classifyAddress, classifyHostLiteral } from '../../lib/util/addressClass';
import { ALLOWED_PRIVATE_HOSTS_VARIABLE, AddressRefused, serverNamedUrlPolicy, type ResolveHost } from '../../lib/mcp/urlPolicy';
import { McpAgentError } from '../../lib/errors';

describe('classifyAddress', () => {
	it.each([
		['127.0.0.1', 'loopback'],
		['127.255.0.9', 'loopback'],
		['::1', 'loopback'],
		['10.0.0.1', 'private'],
		['172.16.0.1', 'private'],
		['172.31.255.255', 'private'],
		['172.32.0.1', 'public'],
		['192.168.1.1', 'private'],
		['100.64.0.1', 'private'],
		['100.127.255.255', 'private'],
		['100.128.0.1', 'public'],
		['fc00::1', 'private'],
		['fd12:3456::1', 'private'],
		['169.254.1.1', 'link-local'],
		['fe80::1', 'link-local'],
		['169.254.169.254', 'metadata'],
		['169.254.170.2', 'metadata'],
		['100.100.100.200', 'metadata'],
		['fd00:ec2::254', 'metadata'],
		['0.0.0.0', 'unspecified'],
		['0.1.2.3', 'unspecified'],
		['::', 'unspecified'],
		['::ffff:127.0.0.1', 'loopback'],
		['::ffff:7f00:1', 'loopback'],
		['::ffff:a9fe:a9fe', 'metadata'],
		['::ffff:10.1.2.3', 'private'],
		['::ffff:8.8.8.8', 'public'],
		['64:ff9b::a00:1', 'private'],
		['2002:7f00:1::', 'loopback'],
		['224.0.0.1', 'reserved'],
		['255.255.255.255', 'reserved'],
		['ff02::1', 'reserved'],
		['2001:db8::1', 'reserved'],
		['8.8.8.8', 'public'],
		['1.1.1.1', 'public'],
		['2606:4700:4700::1111', 'public'],
	])('%s is %s', (address, kind) => {
		expect(classifyAddress(address)).toBe(kind);
	});

	it('is undefined for names', () => {
		expect(classifyAddress('example.com')).toBeUndefined();
	});

	it.each([
		['[::1]', 'loopback'],
		['localhost', 'loopback'],
		['api.localhost', 'loopback'],
		['LOCALHOST.', 'loopback'],
		['metadata.google.internal', 'metadata'],
		['metadata.google.internal.', 'metadata'],
		['example.com', undefined],
	])('the host %s is %s without resolving', (host, kind) => {
		expect(classifyHostLiteral(host)).toBe(kind);
	});

	it.each([
		['10.1.2.3', '10.0.0.0/8', true],
		['11.1.2.3', '10.0.0.0/8', false],
		['10.0.0.5', '10.0.0.5', true],
		['fd00::5', 'fd00::/8', true],
		['fe00::5', 'fd00::/8', false],
		['10.0.0.5', 'fd00::/8', false],
		['10.0.0.5', '10.0.0.0/33', false],
	])('%s in %s: %s', (address, range, inside) => {
		expect(addressInRange(address, range)).toBe(inside);
	});
});

const DNS: Record<string, string[]> = {
	'public.example': ['93.184.216.34'],
	'mcp.example': ['93.184.216.35'],
	'internal.example': ['10.0.0.1'],
	'mixed.example': ['93.184.216.36', '169.254.169.254'],
	'mcp.corp': ['10.0.0.5'],
	'keycloak.corp': ['10.0.0.6'],
	'v6.example': ['fd00::7'],
};
const resolve: ResolveHost = async (host) => {
	const addresses = DNS[host];
	if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
	return addresses;
};

async function verdict(server: string, target: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
	try {
		await serverNamedUrlPolicy(server, 'OAuth discovery', { resolve, env }).check(target);
		return 'allowed';
	} catch (error) {
		if (error instanceof AddressRefused) return error.reason;
		throw error;
	}
}

describe('serverNamedUrlPolicy', () => {
	it.each([
		// The MCP server's own origin is the user's choice, whatever it is.
		['http://10.0.0.5:8080/mcp', 'http://10.0.0.5:8080/.well-known/oauth-protected-resource', 'allowed'],
		['https://mcp.example/mcp', 'https://public.example/.well-known/oauth-authorization-server', 'allowed'],
		['https://mcp.example/mcp', 'http://public.example/', 'it uses plain http, and only an MCP server on this machine (loopback) may name http addresses'],
		['http://127.0.0.1:3000/mcp', 'http://public.example/', 'allowed'],
		['http://localhost:3000/mcp', 'http://127.0.0.1:4000/', 'allowed'],
		['https://mcp.example/mcp', 'https://internal.example/', "it is a private network address (internal.example resolves to 10.0.0.1), and the MCP server's own address is not"],
		['https://mcp.example/mcp', 'https://10.0.0.1/', "it is a private network address, and the MCP server's own address is not"],
		['https://mcp.example/mcp', 'https://[fd00::7]/', "it is a private network address, and the MCP server's own address is not"],
		['https://mcp.example/mcp', 'https://v6.example/', "it is a private network address (v6.example resolves to fd00::7), and the MCP server's own address is not"],
		['https://mcp.example/mcp', 'https://mixed.example/', "it is a cloud metadata service's address (mixed.example resolves to 169.254.169.254)"],
		['https://mcp.example/mcp', 'https://localhost/', "it is a loopback address (this machine), and the MCP server's own address is not"],
		['https://mcp.example/mcp', 'https://[::ffff:127.0.0.1]/', "it is a loopback address (this machine), and the MCP server's own address is not"],
		['https://mcp.example/mcp', 'https://0.0.0.0/', 'it is an unspecified address (0.0.0.0 or ::)'],
		['https://mcp.example/mcp', 'https://metadata.google.internal/', "it is a cloud metadata service's address"],
		['https://mcp.example/mcp', 'file:///etc/passwd', 'it is not an http or https address (file:)'],
		// Loopback to loopback, private to private: the same class is allowed.
		['http://127.0.0.1:3000/mcp', 'http://127.0.0.1:4000/', 'allowed'],
		['https://mcp.corp/mcp', 'https://keycloak.corp/', 'allowed'],
		['https://mcp.corp/mcp', 'http://keycloak.corp/', 'it uses plain http, and only an MCP server on this machine (loopback) may name http addresses'],
		['https://mcp.corp/mcp', 'https://localhost/', "it is a loopback address (this machine), and the MCP server's own address is not"],
		// Metadata services are never of "the same class".
		['http://127.0.0.1:3000/mcp', 'http://169.254.169.254/latest/meta-data/', "it is a cloud metadata service's address"],
		['http://169.254.10.1/mcp', 'http://169.254.169.254/', "it is a cloud metadata service's address"],
		['http://127.0.0.1:3000/mcp', 'http://internal.example/', "it is a private network address (internal.example resolves to 10.0.0.1), and the MCP server's own address is not"],
		// A server whose name does not resolve counts as public.
		['https://unknown.example/mcp', 'https://10.0.0.1/', "it is a private network address, and the MCP server's own address is not"],
	])('%s naming %s: %s', async (server, target, expected) => {
		expect(await verdict(server, target)).toBe(expected);
	});

	it.each([
		['internal.example', 'https://internal.example/'],
		['10.0.0.0/8', 'https://internal.example/'],
		['10.0.0.1', 'http://10.0.0.1/'],
		[' keycloak.corp , other ', 'http://keycloak.corp/'],
		['169.254.169.254', 'http://169.254.169.254/'],
	])('%s in the environment allows %s', async (list, target) => {
		expect(await verdict('https://mcp.example/mcp', target, { [ALLOWED_PRIVATE_HOSTS_VARIABLE]: list })).toBe('allowed');
	});

	it('an allowed range does not cover the other addresses of a name', async () => {
		expect(await verdict('https://mcp.example/mcp', 'https://mixed.example/', { [ALLOWED_PRIVATE_HOSTS_VARIABLE]: '10.0.0.0/8' })).toMatch(/metadata/);
	});

	it('a name that does not resolve fails as the lookup does (as the fetch would)', async () => {
		await expect(serverNamedUrlPolicy('https://mcp.example/mcp', 'OAuth discovery', { resolve, env: {} }).check('https://nowhere.example/')).rejects.toMatchObject({
			code: 'ENOTFOUND',
		});
	});

	it('a refusal is an McpAgentError naming the host and the reason, never the path or query, with what to do', async () => {
		const policy = serverNamedUrlPolicy('https://mcp.example/mcp', 'OAuth discovery', { resolve, env: {} });
		const error = (await policy.check('https://internal.example:8443/secret-path?token=sk-abcdefghijklmnop').catch((e: unknown) => e)) as AddressRefused;
		expect(McpAgentError.isInstance(error)).toBe(true);
		expect(error).toMatchObject({ code: 'remote', kind: 'refused-address', host: 'internal.example:8443' });
		expect(error.message).toBe(
			"n8n did not contact internal.example:8443, which the MCP server https://mcp.example/mcp named for OAuth discovery: it is a private network address (internal.example resolves to 10.0.0.1), and the MCP server's own address is not.",
		);
		expect(error.message).not.toMatch(/secret-path|token|sk-/);
		expect(error.description).toContain(ALLOWED_PRIVATE_HOSTS_VARIABLE);
	});

	it('guard checks before fetching, and never fetches a refused URL', async () => {
		const fetched: string[] = [];
		const base = async (input: string | URL | Request) => {
			fetched.push(String(input instanceof Request ? input.url : input));
			return new Response('{}');
		};
		const guarded = serverNamedUrlPolicy('https://mcp.example/mcp', 'OAuth discovery', { resolve, env: {} }).guard(base);
		await guarded('https://public.example/a');
		await expect(guarded(new Request('https://internal.example/b'))).rejects.toBeInstanceOf(AddressRefused);
		expect(fetched).toEqual(['https://public.example/a']);
	});

	it('resolves the MCP server once per policy, the target on every check', async () => {
		const asked: string[] = [];
		const counting: ResolveHost = (host) => {
			asked.push(host);
			return resolve(host);
		};
		const policy = serverNamedUrlPolicy('https://mcp.example/mcp', 'OAuth discovery', { resolve: counting, env: {} });
		await policy.check('https://public.example/a');
		await policy.check('https://public.example/b');
		await policy.check('https://mcp.example/c');
		expect(asked).toEqual(['mcp.example', 'public.example', 'public.example']);
	});
});
