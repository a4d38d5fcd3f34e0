import type { IExecuteFunctions, ILoadOptionsFunctions, INodeCredentialDescription } from 'n8n-workflow';
import type { ProviderConnection } from '../../lib/providers/clients';
import type { ProviderId } from '../../lib/providers/types';

export const ANTHROPIC_CREDENTIAL = 'mcpAgentAnthropicApi';
export const OPENAI_CREDENTIAL = 'mcpAgentOpenAiApi';

export const providerCredentials: INodeCredentialDescription[] = [
	{ name: ANTHROPIC_CREDENTIAL, required: true, displayOptions: { show: { provider: ['anthropic'] } } },
	{ name: OPENAI_CREDENTIAL, required: true, displayOptions: { show: { provider: ['openaiChat', 'openaiResponses'] } } },
];

export async function providerConnection(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	provider: ProviderId,
	extra: { maxRetries: number; timeoutMs: number },
): Promise<ProviderConnection> {
	const data = (await context.getCredentials(provider === 'anthropic' ? ANTHROPIC_CREDENTIAL : OPENAI_CREDENTIAL)) as Record<string, string | undefined>;
	return {
		provider,
		apiKey: data.apiKey ?? '',
		baseUrl: data.baseUrl || undefined,
		organization: data.organization || undefined,
		project: data.project || undefined,
		...extra,
	};
}
