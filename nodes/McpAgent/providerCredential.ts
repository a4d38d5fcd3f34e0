import type { IExecuteFunctions, ILoadOptionsFunctions, INodeCredentialDescription } from 'n8n-workflow';
import type { ProviderConnection } from '../../lib/providers/clients';
import type { ApiProviderId } from '../../lib/providers/types';

export const ANTHROPIC_CREDENTIAL = 'mcpAgentAnthropicApi';
export const OPENAI_CREDENTIAL = 'mcpAgentOpenAiApi';
/** n8n's own credential types, as its Anthropic and OpenAI nodes (and Chat Model nodes) use them. */
export const N8N_ANTHROPIC_CREDENTIAL = 'anthropicApi';
export const N8N_OPENAI_CREDENTIAL = 'openAiApi';

/** Which credential a built-in provider reads: the package's own ('mcpAgent', the default) or n8n's ('n8n'). */
export type CredentialKind = 'mcpAgent' | 'n8n';
export const CREDENTIAL_KIND_PARAMETER = 'providerCredential';
export const DEFAULT_CREDENTIAL_KIND: CredentialKind = 'mcpAgent';

const ANTHROPIC: ApiProviderId[] = ['anthropic'];
const OPENAI: ApiProviderId[] = ['openaiChat', 'openaiResponses'];

export const providerCredentials: INodeCredentialDescription[] = [
	{ name: ANTHROPIC_CREDENTIAL, required: true, displayOptions: { show: { provider: ANTHROPIC, [CREDENTIAL_KIND_PARAMETER]: ['mcpAgent'] } } },
	{ name: N8N_ANTHROPIC_CREDENTIAL, required: true, displayOptions: { show: { provider: ANTHROPIC, [CREDENTIAL_KIND_PARAMETER]: ['n8n'] } } },
	{ name: OPENAI_CREDENTIAL, required: true, displayOptions: { show: { provider: OPENAI, [CREDENTIAL_KIND_PARAMETER]: ['mcpAgent'] } } },
	{ name: N8N_OPENAI_CREDENTIAL, required: true, displayOptions: { show: { provider: OPENAI, [CREDENTIAL_KIND_PARAMETER]: ['n8n'] } } },
];

/** The credential type a provider reads for a kind. */
export function credentialTypeFor(provider: ApiProviderId, kind: CredentialKind): string {
	if (provider === 'anthropic') return kind === 'n8n' ? N8N_ANTHROPIC_CREDENTIAL : ANTHROPIC_CREDENTIAL;
	return kind === 'n8n' ? N8N_OPENAI_CREDENTIAL : OPENAI_CREDENTIAL;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/**
 * A provider connection from a credential's decrypted data. The package's own types name their
 * fields baseUrl / organization / project; n8n's name them url / organizationId and may add one
 * custom header (`header`, `headerName`, `headerValue`; absent in older n8n releases), sent with
 * every model request.
 */
export function connectionFromCredential(
	provider: ApiProviderId,
	kind: CredentialKind,
	data: Record<string, unknown>,
	extra: { maxRetries: number; timeoutMs: number },
): ProviderConnection {
	if (kind === 'n8n') {
		const headerName = data.header === true ? text(data.headerName) : undefined;
		const headerValue = typeof data.headerValue === 'string' ? data.headerValue : undefined;
		return {
			provider,
			apiKey: typeof data.apiKey === 'string' ? data.apiKey : '',
			baseUrl: text(data.url),
			organization: provider === 'anthropic' ? undefined : text(data.organizationId),
			project: undefined,
			...(headerName && headerValue !== undefined ? { headers: { [headerName]: headerValue } } : {}),
			...extra,
		};
	}
	return {
		provider,
		apiKey: typeof data.apiKey === 'string' ? data.apiKey : '',
		baseUrl: text(data.baseUrl),
		organization: text(data.organization),
		project: text(data.project),
		...extra,
	};
}

export async function providerConnection(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	provider: ApiProviderId,
	kind: CredentialKind,
	extra: { maxRetries: number; timeoutMs: number },
): Promise<ProviderConnection> {
	const data = (await context.getCredentials(credentialTypeFor(provider, kind))) as Record<string, unknown>;
	return connectionFromCredential(provider, kind, data, extra);
}
