/** The provider APIs the agent speaks; a leaf module so the run's types and the adapters share it without importing each other. */
export type ProviderId = 'anthropic' | 'openaiChat' | 'openaiResponses';
