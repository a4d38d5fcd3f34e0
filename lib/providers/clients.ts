import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createRedactor, providerSecrets } from '../mcp/secrets';
import { explainProviderError, ProviderError } from './errors';
import { McpAgentError, REPORT_A_BUG } from '../errors';
import { modelFetch, type ModelReading } from './modelFetch';
import { SecretDigest } from '../util/secretDigest';
import type { ModelClient, ProviderId } from './types';
import { anthropicMessageFromEvents, chatCompletionFromChunks, streamBudget } from './streamedResponses';

export interface ProviderConnection {
	provider: ProviderId;
	apiKey: string;
	baseUrl?: string;
	organization?: string;
	project?: string;
	/** Headers sent with every request (n8n's own OpenAI and Anthropic credentials may add one); their values are secrets. */
	headers?: Record<string, string>;
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
	chatModel: 'Chat Model',
};

/** Most models a model list returns (the editor's dropdown); the SDKs would page on without end. */
export const MAX_LISTED_MODELS = 1000;

/** Most clients kept for reuse in one process (least recently used dropped first). */
export const MODEL_CLIENT_CACHE_SIZE = 16;

/**
 * Under a per-process secret: cache keys tell equal connections apart from different ones inside
 * this process and say nothing about the API key to anyone who sees them (a heap snapshot's keys).
 */
const cacheKeyDigest = new SecretDigest();

/** Map insertion order is the recency order: a hit is moved to the end, the first entry is the oldest. */
const cachedClients = new Map<string, ModelClient>();

/**
 * The cache key of a connection: a keyed digest of everything the SDK client is built from (provider,
 * key, base URL, organization, project, retries, timeout, headers), never the API key in readable form.
 */
export function modelClientCacheKey(connection: ProviderConnection): string {
	const parts = [connection.provider, connection.apiKey, connection.baseUrl ?? '', connection.organization ?? '', connection.project ?? '', String(connection.maxRetries), String(connection.timeoutMs), connection.headers ?? {}];
	return cacheKeyDigest.of(JSON.stringify(parts));
}

/**
 * The model client for a connection, reused across executions while its credential and options are
 * unchanged: every execution of an Agent built a new SDK client before, which a warm process need
 * not repeat. The SDK clients keep no per-request state, so executions running at once can share
 * one. A connection with its own `fetch` is never cached (a function cannot be told equal by value).
 */
export function createModelClient(connection: ProviderConnection): ModelClient {
	if (connection.fetch) return buildModelClient(connection);
	const key = modelClientCacheKey(connection);
	const cached = cachedClients.get(key);
	if (cached) {
		cachedClients.delete(key);
		cachedClients.set(key, cached);
		return cached;
	}
	const client = buildModelClient(connection);
	cachedClients.set(key, client);
	while (cachedClients.size > MODEL_CLIENT_CACHE_SIZE) cachedClients.delete(cachedClients.keys().next().value as string);
	return client;
}

/** Drops every cached client (tests; a process that wants no key held beyond its use). */
export function clearModelClientCache(): void {
	cachedClients.clear();
}

/**
 * The real SDK clients behind the ModelClient interface. Tests point the same clients at
 * wire-compatible fakes through the base URL (or an in-process `fetch`); nothing here knows about fakes.
 * A new client each call; createModelClient() reuses them.
 */
export function buildModelClient(connection: ProviderConnection): ModelClient {
	if (connection.provider === 'chatModel') {
		// No API key or base URL: the Chat Model sub-node holds its own connection (chatModelClient.ts).
		throw new McpAgentError('The Chat Model provider has no API client of its own: it drives the model of a connected Chat Model sub-node', { code: 'config', description: REPORT_A_BUG });
	}
	const label = LABEL[connection.provider];
	// A custom header's value is as secret as the key (it often is one: a gateway's token).
	const redactor = createRedactor([...providerSecrets(connection), ...Object.values(connection.headers ?? {})]);
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
	/**
	 * The whole model call, its body included, within the connection's timeout: the SDKs' own timeout
	 * ends when the headers arrive, and an endpoint that then trickles (or streams without end) would
	 * hold the run for ever. The caller's signal (a cancelled execution) still ends it too.
	 */
	const withDeadline = <T>(signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
		const deadline = new AbortController();
		let timer: NodeJS.Timeout | undefined;
		let onAbort: (() => void) | undefined;
		// Settles at the deadline or the caller's abort even while the SDK sleeps before a retry
		// (its sleep does not watch the signal; the request it then makes fails on the aborted one).
		const ended = new Promise<never>((_, reject) => {
			timer = setTimeout(() => {
				const error = new ProviderError(`${label}: the model's answer was not complete after ${Math.round(connection.timeoutMs / 1000)} s (the whole call, its body included, must end within the timeout)`);
				deadline.abort(error);
				reject(error);
			}, connection.timeoutMs);
			onAbort = () => {
				deadline.abort(signal?.reason);
				reject(signal?.reason instanceof Error ? signal.reason : new McpAgentError('The model call was cancelled', { code: 'cancelled', description: 'The execution was stopped while the model was answering; nothing needs fixing.' }));
			};
			if (signal?.aborted) onAbort();
			else signal?.addEventListener('abort', onAbort, { once: true });
		});
		const running = run(deadline.signal);
		// Whichever loses the race settles unobserved.
		running.catch(() => undefined);
		ended.catch(() => undefined);
		const done = () => {
			clearTimeout(timer);
			if (onAbort) signal?.removeEventListener('abort', onAbort);
		};
		return Promise.race([running, ended]).then(
			(value) => {
				done();
				return value;
			},
			(error: unknown) => {
				done();
				throw error;
			},
		);
	};
	/**
	 * A model list within the timeout, and at most MAX_LISTED_MODELS of it: the SDKs keep asking for
	 * pages while the server says there are more.
	 */
	const listed = (list: (signal: AbortSignal) => AsyncIterable<{ id: string; name?: string }>) =>
		withDeadline(undefined, (bounded) =>
			wrap(async () => {
				const models: Array<{ id: string; name?: string }> = [];
				for await (const model of list(bounded)) {
					models.push(model);
					if (models.length >= MAX_LISTED_MODELS) break;
				}
				return models;
			}),
		);
	// One SDK client per way of reading answers (modelFetch): whole, or as a stream for streamed requests.
	if (connection.provider === 'anthropic') {
		const anthropic = (reading: ModelReading) =>
			new Anthropic({
				apiKey: connection.apiKey,
				baseURL: connection.baseUrl?.replace(/\/+$/, '') || 'https://api.anthropic.com',
				maxRetries: connection.maxRetries,
				timeout: connection.timeoutMs,
				fetch: modelFetch(connection.fetch, reading),
				...(connection.headers ? { defaultHeaders: connection.headers } : {}),
			});
		const client = anthropic('whole');
		const streaming = anthropic('stream');
		return {
			send: (body, signal) => withDeadline(signal, (bounded) => sendWith(() => client.messages.create(body as never, { signal: bounded }))),
			// Raw events, put together here (streamedResponses.ts): the SDK's helper throws on arguments that are not JSON.
			stream: (body, onText, signal) =>
				withDeadline(signal, (bounded) =>
					wrap(async () => anthropicMessageFromEvents((await streaming.messages.create({ ...(body as object), stream: true } as never, { signal: bounded })) as unknown as AsyncIterable<unknown>, onText)),
				),
			listModels: () =>
				listed(async function* (signal) {
					for await (const model of client.models.list({ limit: 100 }, { signal })) yield { id: model.id, name: model.display_name };
				}),
		};
	}
	const openAi = (reading: ModelReading) =>
		new OpenAI({
			apiKey: connection.apiKey || 'no-key',
			baseURL: connection.baseUrl?.replace(/\/+$/, '') || 'https://api.openai.com/v1',
			organization: connection.organization || null,
			project: connection.project || null,
			maxRetries: connection.maxRetries,
			timeout: connection.timeoutMs,
			fetch: modelFetch(connection.fetch, reading),
			...(connection.headers ? { defaultHeaders: connection.headers } : {}),
		});
	const client = openAi('whole');
	const streaming = openAi('stream');
	const listModels = () =>
		listed(async function* (signal) {
			for await (const model of client.models.list({ signal })) yield { id: model.id };
		}).then((models) => models.sort((a, b) => a.id.localeCompare(b.id)));
	if (connection.provider === 'openaiResponses') {
		return {
			send: (body, signal) => withDeadline(signal, (bounded) => sendWith(() => client.responses.create(body as never, { signal: bounded }))),
			stream: (body, onText, signal) =>
				withDeadline(signal, (bounded) =>
					wrap(() => {
						const stream = streaming.responses.stream(body as never, { signal: bounded });
						// The same text bound as the other APIs (streamedResponses.ts): past it the stream is aborted.
						const take = streamBudget();
						let cut: Error | undefined;
						stream.on('response.output_text.delta', (event) => {
							if (cut) return;
							try {
								take(event.delta);
							} catch (error) {
								cut = error as Error;
								stream.abort();
								return;
							}
							onText(event.delta);
						});
						return stream.finalResponse().catch((error: unknown) => {
							throw cut ?? error;
						});
					}),
				),
			listModels,
		};
	}
	return {
		send: (body, signal) => withDeadline(signal, (bounded) => sendWith(() => client.chat.completions.create(body as never, { signal: bounded }))),
		// Raw chunks, put together here (streamedResponses.ts): the SDK's helper throws on a strict tool's arguments that are not JSON.
		// Usage arrives in a last chunk only when asked for.
		stream: (body, onText, signal) =>
			withDeadline(signal, (bounded) =>
				wrap(async () =>
					chatCompletionFromChunks(
						(await streaming.chat.completions.create({ ...(body as object), stream: true, stream_options: { include_usage: true } } as never, { signal: bounded })) as unknown as AsyncIterable<unknown>,
						onText,
					),
				),
			),
		listModels,
	};
}
