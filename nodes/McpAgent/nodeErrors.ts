import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { N8nToolRefused } from '../../lib/agent/n8nTools';
import { ProviderError } from '../../lib/providers/errors';
import { toNodeError } from '../shared/serverConnection';

/**
 * The one place the Agent's errors become n8n errors. A model provider's HTTP failure is a
 * NodeApiError carrying the status (as n8n's own model nodes raise), so Retry On Fail, error
 * workflows and the editor treat it like theirs; a 429 names the wait the provider asked for.
 * Everything else goes through the package's common mapping (redacted MCP errors, config errors).
 */
export function agentNodeError(context: IExecuteFunctions, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	const at = itemIndex !== undefined ? { itemIndex } : {};
	if (error instanceof ProviderError && error.status !== undefined) {
		const wait = error.retryAfterSeconds;
		const description =
			wait !== undefined
				? `The provider asked to wait ${wait} s before retrying. With Retry On Fail, set Wait Between Tries to at least ${wait * 1000} ms; raise Max Retries to let the Agent wait and retry by itself.`
				: undefined;
		const response: JsonObject = { message: error.message, httpCode: String(error.status), ...(wait !== undefined ? { retryAfterSeconds: wait } : {}) };
		return new NodeApiError(context.getNode(), response, { message: error.message, httpCode: String(error.status), ...(description ? { description } : {}), ...at });
	}
	if (error instanceof N8nToolRefused) {
		return new NodeOperationError(context.getNode(), error.message, { ...(error.description ? { description: error.description } : {}), ...at });
	}
	return toNodeError(context, error, itemIndex);
}
