import type { IExecuteFunctions } from 'n8n-workflow';
import { createModelClient } from '../../lib/providers/clients';
import type { ModelClient, ProviderId } from '../../lib/providers/types';
import { connectedChatModel } from './chatModelInput';
import { CREDENTIAL_KIND_PARAMETER, DEFAULT_CREDENTIAL_KIND, providerConnection, type CredentialKind } from './providerCredential';

/** The model a run talks to: a built-in provider's API client, or a connected Chat Model sub-node's model. */
export interface AgentModel {
	client: ModelClient;
	/** Set for a Chat Model sub-node: the model it names (the Agent's own Model parameter is hidden then). */
	modelId?: string;
}

export async function agentModel(context: IExecuteFunctions, provider: ProviderId, extra: { maxRetries: number; timeoutMs: number }): Promise<AgentModel> {
	if (provider === 'chatModel') {
		const { client, modelId } = await connectedChatModel(context);
		return { client, modelId };
	}
	const kind = context.getNodeParameter(CREDENTIAL_KIND_PARAMETER, 0, DEFAULT_CREDENTIAL_KIND) as CredentialKind;
	return { client: createModelClient(await providerConnection(context, provider, kind, extra)) };
}
