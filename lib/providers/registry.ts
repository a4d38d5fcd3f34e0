import { anthropicMessages } from './anthropicMessages';
import { openAiChat } from './openAiChat';
import { openAiResponses } from './openAiResponses';
import type { ProviderAdapter, ProviderId } from './types';

const ADAPTERS: Record<ProviderId, ProviderAdapter> = {
	anthropic: anthropicMessages,
	openaiChat: openAiChat,
	openaiResponses: openAiResponses,
};

export function adapterFor(id: ProviderId): ProviderAdapter {
	const adapter = ADAPTERS[id];
	if (!adapter) throw new Error(`Unknown provider "${id}"`);
	return adapter;
}
