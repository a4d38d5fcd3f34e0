/** The provider APIs the agent speaks; a leaf module so the run's types and the adapters share it without importing each other. */
export type ProviderId = ApiProviderId | 'chatModel';

/**
 * The providers reached over their HTTP API with the Agent's own credential and SDK client
 * (clients.ts); 'chatModel' drives a connected Chat Model sub-node's model instead (chatModelClient.ts).
 */
export type ApiProviderId = 'anthropic' | 'openaiChat' | 'openaiResponses';

/** The Provider option's name for each API, as the node shows it. */
export const PROVIDER_NAMES: Readonly<Record<ProviderId, string>> = {
	anthropic: 'Anthropic (Messages API)',
	openaiChat: 'OpenAI (Chat Completions)',
	openaiResponses: 'OpenAI (Responses API)',
	chatModel: 'Chat Model (Connected Sub-Node)',
};
