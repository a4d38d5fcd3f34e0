import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createRedactor, providerSecrets } from '../mcp/secrets';
import { explainProviderError } from './errors';
import type { ModelClient, ProviderId } from './types';

export interface ProviderConnection {
	provider: ProviderId;
	apiKey: string;
	baseUrl?: string;
	organization?: string;
	project?: string;
	/** Retries for 429 and 5xx, with the SDKs' exponential backoff (honouring retry-after). */
	maxRetries: number;
	timeoutMs: number;
	/**
	 * A fetch implementation for the SDK client instead of the global one (a proxying fetch, or an
	 * in-process fake in tests and benchmarks). Unset in the node: the SDKs use the global fetch.
	 */
	fetch?: typeof globalThis.fetch;
}

const LABEL: Record<ProviderId, string> = {
	anthropic: 'Anthropic',
	openaiChat: 'OpenAI',
	openaiResponses: 'OpenAI',
};

/**
 * The real SDK clients behind the ModelClient interface. Tests point the same clients at
 * wire-compatible fakes through the base URL (or an in-process `fetch`); nothing here knows about fakes.
 */
export function createModelClient(connection: ProviderConnection): ModelClient {
	const label = LABEL[connection.provider];
	const redactor = createRedactor(providerSecrets(connection));
	const explained = (error: unknown): Error => {
		const result = explainProviderError(error, label, redactor);
		// Keep what context-overflow detection upstream reads (code and the error body), with the
		// API key removed; not the SDK's error itself, whose message and headers may quote the key.
		const body = (error as { error?: unknown })?.error;
		Object.assign(result, { code: (error as { code?: unknown })?.code, error: redactor.active ? redactor.value(body) : body });
		return result;
	};
	const rethrow = (error: unknown): never => {
		throw explained(error);
	};
	const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
		try {
			return await run();
		} catch (error) {
			throw explained(error);
		}
	};
	/** wrap() for the per-turn request: the same errors, without an async frame around the SDK's promise. */
	const sendWith = (create: () => PromiseLike<unknown>): Promise<unknown> => {
		try {
			return Promise.resolve(create().then(undefined, rethrow));
		} catch (error) {
			return Promise.reject(explained(error));
		}
	};
	if (connection.provider === 'anthropic') {
		const client = new Anthropic({
			apiKey: connection.apiKey,
			baseURL: connection.baseUrl?.replace(/\/+$/, '') || 'https://api.anthropic.com',
			maxRetries: connection.maxRetries,
			timeout: connection.timeoutMs,
			...(connection.fetch ? { fetch: connection.fetch } : {}),
		});
		return {
			send: (body, signal) => sendWith(() => client.messages.create(body as never, signal ? { signal } : undefined)),
			stream: (body, onText, signal) =>
				wrap(() => {
					const stream = client.messages.stream(body as never, signal ? { signal } : undefined);
					stream.on('text', (delta) => onText(delta));
					return stream.finalMessage();
				}),
			listModels: () =>
				wrap(async () => {
					const models: Array<{ id: string; name?: string }> = [];
					for await (const model of client.models.list({ limit: 100 })) models.push({ id: model.id, name: model.display_name });
					return models;
				}),
		};
	}
	const client = new OpenAI({
		apiKey: connection.apiKey || 'no-key',
		baseURL: connection.baseUrl?.replace(/\/+$/, '') || 'https://api.openai.com/v1',
		organization: connection.organization || null,
		project: connection.project || null,
		maxRetries: connection.maxRetries,
		timeout: connection.timeoutMs,
		...(connection.fetch ? { fetch: connection.fetch } : {}),
	});
	const listModels = () =>
		wrap(async () => {
			const models: Array<{ id: string; name?: string }> = [];
			for await (const model of client.models.list()) models.push({ id: model.id });
			return models.sort((a, b) => a.id.localeCompare(b.id));
		});
	if (connection.provider === 'openaiResponses') {
		return {
			send: (body, signal) => sendWith(() => client.responses.create(body as never, signal ? { signal } : undefined)),
			stream: (body, onText, signal) =>
				wrap(() => {
					const stream = client.responses.stream(body as never, signal ? { signal } : undefined);
					stream.on('response.output_text.delta', (event) => onText(event.delta));
					return stream.finalResponse();
				}),
			listModels,
		};
	}
	return {
		send: (body, signal) => sendWith(() => client.chat.completions.create(body as never, signal ? { signal } : undefined)),
		stream: (body, onText, signal) =>
			wrap(() => {
				// Usage arrives in a last chunk only when asked for.
				const stream = client.chat.completions.stream({ ...body, stream_options: { include_usage: true } } as never, signal ? { signal } : undefined);
				stream.on('content.delta', (event) => onText(event.delta));
				return stream.finalChatCompletion();
			}),
		listModels,
	};
}
