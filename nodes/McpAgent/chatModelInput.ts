import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { assertToolCallingModel, chatModelClient, chatModelName } from '../../lib/providers/chatModelClient';
import type { ModelClient } from '../../lib/providers/types';
import { McpAgentError } from '../../lib/errors';
import { nodeOf } from '../shared/nodeOf';

/** The input's name on the canvas, and in errors when n8n does not say which node is connected. */
export const CHAT_MODEL_INPUT = 'Chat Model';

/** A Chat Model sub-node's model, ready for the agent loop. */
export interface ConnectedChatModel {
	client: ModelClient;
	/** The model's name as the sub-node's model reports it, else the sub-node's name (the run's `model`). */
	modelId: string;
	/** The Chat Model sub-node, as errors name it. */
	nodeName: string;
}

/**
 * The Agent's inputs for a Provider: with "Chat Model (Connected Sub-Node)", a Chat Model input
 * beside Tools and Memory, as n8n's own AI Agent has it. An expression n8n evaluates in the editor
 * and when the node runs (n8n 1.x and 2.x alike), so it must be self-contained: no helpers, only the
 * connection types as strings. An unset Provider is the default, a built-in provider.
 */
export const AGENT_INPUTS = `={{ ((provider) => {
	const inputs = ['main'];
	if (provider === 'chatModel') inputs.push({ type: 'ai_languageModel', displayName: '${CHAT_MODEL_INPUT}', required: true, maxConnections: 1 });
	inputs.push({ type: 'ai_tool', displayName: 'Tools', required: true });
	inputs.push({ type: 'ai_memory', displayName: 'Memory', required: false, maxConnections: 1 });
	return inputs;
})($parameter.provider) }}`;

/** The enabled node on the Chat Model input, as n8n lists the node's parents (undefined when it cannot say). */
function chatModelNodeName(context: IExecuteFunctions): string | undefined {
	if (typeof context.getParentNodes !== 'function') return undefined;
	const nodes = context.getParentNodes(nodeOf(context).name, { connectionType: NodeConnectionTypes.AiLanguageModel, depth: 1 }).filter((node) => !node.disabled);
	return nodes[0]?.name;
}

/**
 * The model of the Chat Model sub-node, read anew on every execution: a run that paused for review
 * and is resumed (after a restart, on another worker) gets the sub-node's model again, with its
 * credential and options as they are then. A missing sub-node, or a model that cannot call tools,
 * is refused before anything runs, naming the sub-node.
 */
export async function connectedChatModel(context: IExecuteFunctions): Promise<ConnectedChatModel> {
	const supplied = await context.getInputConnectionData(NodeConnectionTypes.AiLanguageModel, 0);
	// n8n gives one response for an input of one connection; an array on some versions and paths.
	const model: unknown = Array.isArray(supplied) ? supplied[0] : supplied;
	const nodeName = chatModelNodeName(context) ?? CHAT_MODEL_INPUT;
	if (model === undefined || model === null) {
		throw new NodeOperationError(context.getNode(), `No Chat Model sub-node is connected to the "${CHAT_MODEL_INPUT}" input`, {
			description: 'With Provider "Chat Model (Connected Sub-Node)", connect one of n8n\'s Chat Model nodes (OpenAI, Anthropic, Google Gemini, Ollama…) to the Chat Model input, and enable it; or pick a built-in provider.',
		});
	}
	try {
		assertToolCallingModel(model, nodeName);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), (error as Error).message, McpAgentError.isInstance(error) ? { description: error.description } : {});
	}
	return { client: chatModelClient(model), modelId: chatModelName(model) ?? nodeName, nodeName };
}
