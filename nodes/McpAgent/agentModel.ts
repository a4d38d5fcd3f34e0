import type { IExecuteFunctions } from 'n8n-workflow';
import { createModelClient } from '../../lib/providers/clients';
import type { ModelClient, ProviderId } from '../../lib/providers/types';
import { connectedChatModel } from './chatModelInput';
import { providerConnection } from './providerCredential';

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
	return { client: createModelClient(await providerConnection(context, provider, extra)) };
}
