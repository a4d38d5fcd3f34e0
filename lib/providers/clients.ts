import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
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
}

const LABEL: Record<ProviderId, string> = {
	anthropic: 'Anthropic',
	openaiChat: 'OpenAI',
	openaiResponses: 'OpenAI',
};

/**
 * The real SDK clients behind the ModelClient interface. Tests point the same clients at
 * wire-compatible fakes through the base URL; nothing here knows about fakes.
 */
export function createModelClient(connection: ProviderConnection): ModelClient {
	const label = LABEL[connection.provider];
	const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
		try {
			return await run();
		} catch (error) {
			const explained = explainProviderError(error, label);
			// Keep the original for context-overflow detection upstream.
			Object.assign(explained, { cause: error, code: (error as { code?: unknown })?.code, error: (error as { error?: unknown })?.error });
			throw explained;
		}
	};
	if (connection.provider === 'anthropic') {
		const client = new Anthropic({
			apiKey: connection.apiKey,
			baseURL: connection.baseUrl?.replace(/\/+$/, '') || 'https://api.anthropic.com',
			maxRetries: connection.maxRetries,
			timeout: connection.timeoutMs,
		});
		return {
			send: (body, signal) => wrap(() => client.messages.create(body as never, { signal }) as Promise<unknown>),
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
	});
	const listModels = () =>
		wrap(async () => {
			const models: Array<{ id: string; name?: string }> = [];
			for await (const model of client.models.list()) models.push({ id: model.id });
			return models.sort((a, b) => a.id.localeCompare(b.id));
		});
	if (connection.provider === 'openaiResponses') {
		return { send: (body, signal) => wrap(() => client.responses.create(body as never, { signal }) as Promise<unknown>), listModels };
	}
	return { send: (body, signal) => wrap(() => client.chat.completions.create(body as never, { signal }) as Promise<unknown>), listModels };
}
