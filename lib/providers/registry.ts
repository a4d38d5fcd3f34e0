import { anthropicMessages } from './anthropicMessages';
import { chatModel } from './chatModel';
import { openAiChat } from './openAiChat';
import { openAiResponses } from './openAiResponses';
import type { ProviderAdapter, ProviderId } from './types';
import { McpAgentError } from '../errors';

const ADAPTERS: Record<ProviderId, ProviderAdapter> = {
	anthropic: anthropicMessages,
	openaiChat: openAiChat,
	openaiResponses: openAiResponses,
	chatModel,
};

export function adapterFor(id: ProviderId): ProviderAdapter {
	// Own keys only: a stored run naming "constructor" must not find Object's.
	const adapter = Object.hasOwn(ADAPTERS, id) ? ADAPTERS[id] : undefined;
	if (!adapter) {
		// The Provider parameter takes no expression: an unknown one comes from a stored (paused) run.
		throw new McpAgentError(`Unknown provider "${id}" (this release speaks ${Object.keys(ADAPTERS).join(', ')})`, {
			code: 'state',
			description: 'The run was paused by a release of n8n-nodes-mcp-agent with a provider this one does not have: resume it with that release (on every n8n instance and queue-mode worker), or start the run again.',
		});
	}
	return adapter;
}
