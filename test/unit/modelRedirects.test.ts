/**
 * A model endpoint's redirects (lib/mcp/checkedRedirects.ts through modelFetch): followed as fetch
 * follows them, except to a host the URL policy refuses. Fake fetches only: nothing is contacted.
 */
import { fetchWithCheckedRedirects } from '../../lib/mcp/checkedRedirects';
import { AddressRefused, ALLOWED_PRIVATE_HOSTS_VARIABLE, type ResolveHost } from '../../lib/mcp/urlPolicy';
import { createModelClient } from '../../lib/providers/clients';
import { ProviderError } from '../../lib/providers/errors';

interface Sent {
	url: string;
	method: string;
	headers: Record<string, string>;
	body: string | null;
}

/** A fetch answering from `routes` (by URL; a string is a redirect target, 307 unless `status` says otherwise). */
function routedFetch(routes: Record<string, { status: number; location?: string } | 'ok'>): { fetch: typeof fetch; sent: Sent[] } {
	const sent: Sent[] = [];
	const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
		const url = String(input);
		const headers: Record<string, string> = {};
		new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
		sent.push({ url, method: (init?.method ?? 'GET').toUpperCase(), headers, body: init?.body == null ? null : String(init.body) });
		expect(init?.redirect).toBe('manual');
		const route = routes[url];
		if (!route) throw new Error(`unexpected request to ${url}`);
		if (route === 'ok') return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
		return new Response(null, { status: route.status, headers: route.location ? { location: route.location } : {} });
	}) as typeof fetch;
	return { fetch: fetchFn, sent };
}

const resolve: ResolveHost = async (host) => ({ 'api.example': ['93.184.216.34'], 'mirror.example': ['93.184.216.35'], 'internal.example': ['10.0.0.9'] })[host] ?? [];

describe('fetchWithCheckedRedirects', () => {
	it('follows a same-origin 302 of a POST as a GET without its body, as fetch does', async () => {
		const { fetch, sent } = routedFetch({ 'https://api.example/v1/a': { status: 302, location: '/v1/b' }, 'https://api.example/v1/b': 'ok' });
		const response = await fetchWithCheckedRedirects(fetch, 'the model endpoint', { resolve, env: {} })('https://api.example/v1/a', {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
			body: '{"x":1}',
		});
		expect(response.status).toBe(200);
		expect(sent.map((s) => [s.method, s.url, s.body, s.headers['content-type'], s.headers.authorization])).toEqual([
			['POST', 'https://api.example/v1/a', '{"x":1}', 'application/json', 'Bearer k'],
			['GET', 'https://api.example/v1/b', null, undefined, 'Bearer k'],
		]);
	});

	it('follows a 307 to a public https host with the method and body, without the Authorization header', async () => {
		const { fetch, sent } = routedFetch({ 'https://api.example/v1/a': { status: 307, location: 'https://mirror.example/v1/a' }, 'https://mirror.example/v1/a': 'ok' });
		await fetchWithCheckedRedirects(fetch, 'the model endpoint', { resolve, env: {} })('https://api.example/v1/a', {
			method: 'POST',
			headers: { authorization: 'Bearer k', 'x-api-key': 'k2' },
			body: 'b',
		});
		expect(sent[1]).toMatchObject({ method: 'POST', url: 'https://mirror.example/v1/a', body: 'b' });
		expect(sent[1].headers.authorization).toBeUndefined();
		expect(sent[1].headers['x-api-key']).toBe('k2');
	});

	it.each([
		['http://169.254.169.254/latest/meta-data/', "it is a cloud metadata service's address"],
		['https://internal.example/', "it is a private network address (internal.example resolves to 10.0.0.9), and the model endpoint's own address is not"],
		['http://mirror.example/', 'it uses plain http, and only the model endpoint on this machine (loopback) may name http addresses'],
	])('does not follow a redirect to %s', async (location, reason) => {
		const { fetch, sent } = routedFetch({ 'https://api.example/v1/a': { status: 307, location } });
		const failure = await fetchWithCheckedRedirects(fetch, 'the model endpoint', { resolve, env: {} })('https://api.example/v1/a', { method: 'POST', body: 'b' }).catch(
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(AddressRefused);
		expect((failure as AddressRefused).reason).toBe(reason);
		expect((failure as AddressRefused).message).toContain('which the model endpoint https://api.example/v1/a named for a redirect');
		expect(sent).toHaveLength(1);
	});

	it('follows it when an administrator allows the host', async () => {
		const { fetch, sent } = routedFetch({ 'https://api.example/v1/a': { status: 307, location: 'https://internal.example/' }, 'https://internal.example/': 'ok' });
		await fetchWithCheckedRedirects(fetch, 'the model endpoint', { resolve, env: { [ALLOWED_PRIVATE_HOSTS_VARIABLE]: 'internal.example' } })('https://api.example/v1/a');
		expect(sent).toHaveLength(2);
	});

	it('stops after 20 redirects and hands back the last answer', async () => {
		const { fetch, sent } = routedFetch({ 'https://api.example/loop': { status: 302, location: '/loop' } });
		const response = await fetchWithCheckedRedirects(fetch, 'the model endpoint', { resolve, env: {} })('https://api.example/loop');
		expect(response.status).toBe(302);
		expect(sent).toHaveLength(21);
	});
});

describe('a model client whose endpoint redirects to a metadata service', () => {
	it('fails with a ProviderError naming the host, the reason and the variable; nothing is sent there', async () => {
		const { fetch, sent } = routedFetch({ 'https://93.184.216.34/v1/chat/completions': { status: 307, location: 'http://169.254.169.254/latest/meta-data/iam/' } });
		const client = createModelClient({ provider: 'openaiChat', apiKey: 'k', baseUrl: 'https://93.184.216.34/v1', maxRetries: 0, timeoutMs: 5000, fetch });
		const failure = await client.send({ model: 'm', messages: [] }).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(ProviderError);
		expect((failure as ProviderError).message).toContain(
			"n8n did not contact 169.254.169.254, which the model endpoint https://93.184.216.34/v1/chat/completions named for a redirect: it is a cloud metadata service's address.",
		);
		expect((failure as ProviderError).message).toContain(ALLOWED_PRIVATE_HOSTS_VARIABLE);
		expect(sent.map((s) => s.url)).toEqual(['https://93.184.216.34/v1/chat/completions']);
	});
});
