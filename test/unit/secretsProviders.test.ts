/**
 * Provider errors never carry the API key: SDK errors and OpenAI-compatible proxies quote it
 * ("Incorrect API key provided: sk-..."), and the explained error is what reaches the node.
 */
import { createModelClient } from '../../lib/providers/clients';
import { explainProviderError, isContextOverflow, ProviderError } from '../../lib/providers/errors';
import { createRedactor, REDACTED } from '../../lib/mcp/secrets';
import type { ProviderId } from '../../lib/providers/types';

const KEY = 'sk-proj-Abc123Def456Ghi789';

function answering(status: number, reply: unknown): typeof globalThis.fetch {
	return (async () => new Response(JSON.stringify(reply), { status, headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
}

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
	const failure = await promise.then(
		() => undefined,
		(error: unknown) => error,
	);
	expect(failure).toBeInstanceOf(ProviderError);
	return failure as ProviderError;
}

describe('provider errors carrying the API key', () => {
	it.each(['anthropic', 'openaiChat', 'openaiResponses'] as ProviderId[])('%s: an error body quoting the key comes back redacted', async (provider) => {
		const fetch = answering(400, { error: { type: 'invalid_request_error', message: `Incorrect API key provided: ${KEY}. You can find your API key at ...` } });
		const client = createModelClient({ provider, apiKey: KEY, baseUrl: 'http://fake.invalid/v1', maxRetries: 0, timeoutMs: 5000, fetch });
		const failure = await failureOf(client.send({ model: 'm', max_tokens: 10, messages: [] }));
		expect(failure.message).toContain(`Incorrect API key provided: ${REDACTED}`);
		expect(JSON.stringify({ message: failure.message, error: (failure as unknown as { error: unknown }).error })).not.toContain('Abc123');
		expect((failure as unknown as { cause?: unknown }).cause).toBeUndefined();
	});

	it('a network error quoting the key (a proxy URL with it) is redacted, and listModels too', async () => {
		const fetch = (async () => {
			throw new TypeError(`fetch failed for http://proxy.invalid/?key=${KEY}`);
		}) as unknown as typeof globalThis.fetch;
		const client = createModelClient({ provider: 'openaiChat', apiKey: KEY, baseUrl: 'http://fake.invalid/v1', maxRetries: 0, timeoutMs: 5000, fetch });
		const failure = await failureOf(client.listModels());
		expect(failure.message).not.toContain('Abc123');
	});

	it('context-overflow detection still works on the redacted error', async () => {
		const fetch = answering(400, { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long (key ${KEY})` } });
		const client = createModelClient({ provider: 'anthropic', apiKey: KEY, baseUrl: 'http://fake.invalid', maxRetries: 0, timeoutMs: 5000, fetch });
		const failure = await failureOf(client.send({ model: 'm', max_tokens: 10, messages: [] }));
		expect(isContextOverflow(failure)).toBe(true);
		expect(JSON.stringify((failure as unknown as { error: unknown }).error)).not.toContain('Abc123');
	});

	it('explainProviderError with a redactor, also for an already explained ProviderError', () => {
		const redactor = createRedactor([KEY]);
		expect(explainProviderError({ status: 403, message: `key ${KEY} may not use this model` }, 'OpenAI', redactor).message).toBe(`OpenAI refused the request (403 Forbidden): key ${REDACTED} may not use this model`);
		const explained = new ProviderError(`saw ${KEY}`, 400);
		expect(explainProviderError(explained, 'OpenAI', redactor).message).toBe(`saw ${REDACTED}`);
		const clean = new ProviderError('kept', 400);
		expect(explainProviderError(clean, 'OpenAI', redactor)).toBe(clean);
	});
});
