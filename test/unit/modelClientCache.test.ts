/**
 * The Agent's provider client is reused across executions (issue 13: a warm process does not
 * rebuild what an unchanged credential gives): one client per provider, key, base URL and options,
 * keyed by a digest under a per-process secret (never the key itself), bounded, and never cached with a caller's own fetch.
 */
import {
	buildModelClient,
	clearModelClientCache,
	createModelClient,
	MODEL_CLIENT_CACHE_SIZE,
	modelClientCacheKey,
	type ProviderConnection,
} from '../../lib/providers/clients';

const BASE: ProviderConnection = { provider: 'openaiChat', apiKey: 'sk-test-secret-1234567890', baseUrl: 'http://127.0.0.1:9/v1', maxRetries: 2, timeoutMs: 600_000 };

beforeEach(() => clearModelClientCache());

describe('createModelClient (cached)', () => {
	it('returns the same client for an unchanged connection, across providers', () => {
		for (const provider of ['anthropic', 'openaiChat', 'openaiResponses'] as const) {
			const first = createModelClient({ ...BASE, provider });
			expect(createModelClient({ ...BASE, provider })).toBe(first);
		}
	});

	it('builds a new client when anything the client is built from changes', () => {
		const first = createModelClient(BASE);
		const changes: Array<Partial<ProviderConnection>> = [
			{ provider: 'openaiResponses' },
			{ apiKey: 'sk-test-secret-other' },
			{ baseUrl: 'http://127.0.0.1:10/v1' },
			{ organization: 'org-1' },
			{ project: 'proj-1' },
			{ maxRetries: 0 },
			{ timeoutMs: 1000 },
		];
		for (const change of changes) expect(createModelClient({ ...BASE, ...change })).not.toBe(first);
		expect(createModelClient(BASE)).toBe(first);
	});

	it('never caches a connection with its own fetch', async () => {
		const calls: string[] = [];
		const fetch = (async (input: unknown) => {
			calls.push(String(input));
			return new Response(JSON.stringify({ object: 'list', data: [{ id: 'm-1', object: 'model', created: 0, owned_by: 'x' }] }), { status: 200, headers: { 'content-type': 'application/json' } });
		}) as typeof globalThis.fetch;
		const first = createModelClient({ ...BASE, fetch });
		const second = createModelClient({ ...BASE, fetch });
		expect(second).not.toBe(first);
		expect(createModelClient(BASE)).not.toBe(first);
		await expect(second.listModels()).resolves.toEqual([{ id: 'm-1' }]);
		expect(calls).toEqual(['http://127.0.0.1:9/v1/models']);
	});

	it('keeps at most MODEL_CLIENT_CACHE_SIZE clients, dropping the least recently used', () => {
		const first = createModelClient({ ...BASE, apiKey: 'key-0' });
		const second = createModelClient({ ...BASE, apiKey: 'key-1' });
		for (let i = 2; i < MODEL_CLIENT_CACHE_SIZE; i++) createModelClient({ ...BASE, apiKey: `key-${i}` });
		// A hit makes key-0 the most recent: the next new key evicts key-1 instead.
		expect(createModelClient({ ...BASE, apiKey: 'key-0' })).toBe(first);
		createModelClient({ ...BASE, apiKey: `key-${MODEL_CLIENT_CACHE_SIZE}` });
		expect(createModelClient({ ...BASE, apiKey: 'key-0' })).toBe(first);
		expect(createModelClient({ ...BASE, apiKey: 'key-1' })).not.toBe(second);
	});

	it('keys the cache by a keyed digest that does not contain the API key', () => {
		const key = modelClientCacheKey(BASE);
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(key).not.toContain(BASE.apiKey);
		expect(key).not.toContain(Buffer.from(BASE.apiKey).toString('hex'));
		expect(modelClientCacheKey({ ...BASE })).toBe(key);
		expect(modelClientCacheKey({ ...BASE, apiKey: 'sk-test-secret-1234567891' })).not.toBe(key);
	});

	it('leaves buildModelClient building a new client every call', () => {
		expect(buildModelClient(BASE)).not.toBe(buildModelClient(BASE));
	});
});
