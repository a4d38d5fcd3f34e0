/** The provider APIs the agent speaks; a leaf module so the run's types and the adapters share it without importing each other. */
export type ProviderId = 'anthropic' | 'openaiChat' | 'openaiResponses';

/** The Provider option's name for each API, as the node shows it. */
export const PROVIDER_NAMES: Readonly<Record<ProviderId, string>> = {
	anthropic: 'Anthropic (Messages API)',
	openaiChat: 'OpenAI (Chat Completions)',
	openaiResponses: 'OpenAI (Responses API)',
};
