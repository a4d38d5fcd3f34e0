/**
 * The URL policy's fetch connects to the addresses its check saw, never resolving the name again
 * (lib/mcp/pinnedFetch.ts): a DNS answer that changes after the check cannot move the request.
 * Against a loopback server only; the names (*.test) resolve through an injected resolver and
 * nowhere else.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { serverNamedUrlPolicy, type ResolveHost } from '../../lib/mcp/urlPolicy';
import { fetchPinned } from '../../lib/mcp/pinnedFetch';
import { fetchWithCheckedRedirects } from '../../lib/mcp/checkedRedirects';

let server: Server;
let port = 0;
let seen: Array<{ host?: string; method?: string; url?: string; type?: string; body: string }> = [];

beforeAll(async () => {
	server = createServer((req: IncomingMessage, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			seen.push({ host: req.headers.host, method: req.method, url: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks).toString() });
			if (req.url === '/gzip') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ packed: true })));
			else if (req.url === '/hop') res.writeHead(307, { location: `http://mirror.test:${port}/meta` }).end();
			else if (req.url === '/moved') res.writeHead(302, { location: 'http://elsewhere.test/' }).end();
			else if (req.url !== '/silent') res.writeHead(200, { 'content-type': 'application/json', 'x-two': 'a' }).end(JSON.stringify({ ok: true }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	seen = [];
});

function policyFetch(resolve: ResolveHost): typeof fetch {
	return serverNamedUrlPolicy(`http://127.0.0.1:${port}/mcp`, 'OAuth discovery', { resolve, env: {} }).fetch();
}

it('connects to the address the check saw, with the URL host in the Host header, and resolves the name once', async () => {
	const answers = [['127.0.0.1'], ['10.0.0.1']];
	const asked: string[] = [];
	// A rebinding resolver: a loopback answer for the check, a private one for anyone asking again.
	const rebinding: ResolveHost = async (host) => {
		asked.push(host);
		return answers.shift() ?? ['10.0.0.1'];
	};
	const response = await policyFetch(rebinding)(`http://as.test:${port}/meta?x=1`);
	expect(await response.json()).toEqual({ ok: true });
	expect(response.headers.get('x-two')).toBe('a');
	expect(asked).toEqual(['as.test']);
	expect(seen).toEqual([{ host: `as.test:${port}`, method: 'GET', url: '/meta?x=1', type: undefined, body: '' }]);
});

it('sends a form body as fetch does (content type and length), and unpacks a gzip answer', async () => {
	const fetchFn = policyFetch(async () => ['127.0.0.1']);
	const posted = await fetchFn(`http://as.test:${port}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }) });
	expect(posted.status).toBe(200);
	expect(seen[0]).toMatchObject({ method: 'POST', type: 'application/x-www-form-urlencoded;charset=UTF-8', body: 'grant_type=client_credentials' });
	const packed = await fetchFn(`http://as.test:${port}/gzip`);
	expect(packed.headers.get('content-encoding')).toBeNull();
	expect(await packed.json()).toEqual({ packed: true });
});

it('returns a redirect as it is (no request to where it points)', async () => {
	const response = await policyFetch(async () => ['127.0.0.1'])(`http://as.test:${port}/moved`);
	expect(response.status).toBe(302);
	expect(response.headers.get('location')).toBe('http://elsewhere.test/');
	expect(seen).toHaveLength(1);
});

it('fails as fetch fails: the abort reason on a timeout, "fetch failed" with the network cause', async () => {
	await expect(fetchPinned(new URL(`http://as.test:${port}/silent`), ['127.0.0.1'], { signal: AbortSignal.timeout(200) })).rejects.toMatchObject({ name: 'TimeoutError' });
	const closed = createServer();
	await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
	const closedPort = (closed.address() as AddressInfo).port;
	await new Promise((resolve) => closed.close(resolve));
	await expect(fetchPinned(new URL(`http://as.test:${closedPort}/`), ['127.0.0.1'])).rejects.toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
});

it("the MCP server's own origin goes through fetch untouched, nothing resolved", async () => {
	const asked: string[] = [];
	const fetchFn = policyFetch(async (host) => {
		asked.push(host);
		return ['127.0.0.1'];
	});
	await (await fetchFn(`http://127.0.0.1:${port}/mcp-own`)).text();
	await (await fetchFn(`http://127.0.0.1:${port}/x`)).text();
	expect(asked).toEqual([]);
	expect(seen.map((entry) => entry.host)).toEqual([`127.0.0.1:${port}`, `127.0.0.1:${port}`]);
});

it('a redirect followed under the policy is pinned too (a model endpoint on loopback redirecting to a name)', async () => {
	const asked: string[] = [];
	const fetchFn = fetchWithCheckedRedirects(undefined, 'the model endpoint', {
		env: {},
		resolve: async (host) => {
			asked.push(host);
			return ['127.0.0.1'];
		},
	});
	const response = await fetchFn(`http://127.0.0.1:${port}/hop`, { method: 'POST', body: '{"a":1}' });
	expect(await response.json()).toEqual({ ok: true });
	expect(asked).toEqual(['mirror.test']);
	expect(seen.map((entry) => [entry.host, entry.method, entry.url, entry.body])).toEqual([
		[`127.0.0.1:${port}`, 'POST', '/hop', '{"a":1}'],
		[`mirror.test:${port}`, 'POST', '/meta', '{"a":1}'],
	]);
});
