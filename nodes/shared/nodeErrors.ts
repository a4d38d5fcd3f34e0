import type { IExecuteFunctions, ILoadOptionsFunctions, INodeExecutionData, ISupplyDataFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { McpAgentError } from '../../lib/errors';
import { failureDetails, McpFailure, redactFailure } from '../../lib/mcp/errors';
import type { Redactor } from '../../lib/mcp/secrets';

/**
 * The one place where the package's failures become n8n errors, for every node:
 * - a remote failure with an HTTP status (a model provider's 429, an MCP server's 401 or 5xx) is a
 *   NodeApiError carrying `httpCode`, as n8n's own API nodes raise it, so Retry On Fail, error
 *   workflows and the editor treat it like theirs;
 * - everything else (a wrong parameter or credential, a refused decision, a server that could not
 *   be reached, an unreadable stored run) is a NodeOperationError;
 * - both carry the item index when there is one, and the error's description (what to do about it)
 *   followed, for a local server, by its last output.
 * The secrets of the server credential the node resolved are removed from message and description.
 */
export type NodeFailure = NodeApiError | NodeOperationError;

type NodeContext = IExecuteFunctions | ILoadOptionsFunctions | ISupplyDataFunctions;

/**
 * The redactor of the server credential a node execution resolved, so that toNodeError removes its
 * secrets from every error the node reports, whichever code path produced the error.
 */
const redactorsByContext = new WeakMap<object, Redactor>();

export function rememberRedactor(context: object, redactor: Redactor): void {
	if (redactor.active) redactorsByContext.set(context, redactor);
}

export function toNodeError(context: NodeContext, error: unknown, itemIndex?: number): NodeFailure {
	const redactor = redactorsByContext.get(context);
	const redact = (text: string) => (redactor ? redactor.text(text) : text);
	const at = itemIndex !== undefined ? { itemIndex } : {};
	if (error instanceof NodeApiError) return error;
	if (error instanceof NodeOperationError) {
		if (!redactor) return error;
		const message = redact(error.message);
		const description = error.description ? redact(error.description) : undefined;
		if (message === error.message && description === (error.description ?? undefined)) return error;
		const index = itemIndex ?? (error.context?.itemIndex as number | undefined);
		return new NodeOperationError(context.getNode(), message, { ...(index !== undefined ? { itemIndex: index } : {}), description });
	}
	if (McpAgentError.isInstance(error)) {
		// McpFailures are redacted where they are made; this catches a secret quoted on another path.
		const failure = McpFailure.isInstance(error) && redactor ? redactFailure(error, redactor) : error;
		const message = redact(failure.message);
		// An MCP failure's advice and the server's last output (kept apart from its message) go under the message.
		const details = McpFailure.isInstance(failure) ? failureDetails(failure) : failure.description;
		const description = details !== undefined ? redact(details) : undefined;
		if (failure.code === 'remote' && failure.httpStatus !== undefined) {
			const httpCode = String(failure.httpStatus);
			const retryAfterSeconds = (failure as { retryAfterSeconds?: unknown }).retryAfterSeconds;
			const response: JsonObject = { message, httpCode, ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}) };
			return new NodeApiError(context.getNode(), response, { message, httpCode, ...(description ? { description } : {}), ...at });
		}
		return new NodeOperationError(context.getNode(), message, { ...(description ? { description } : {}), ...at });
	}
	const message = (error as Error)?.message ?? String(error);
	return new NodeOperationError(context.getNode(), redact(message), at);
}

/** The item a failed item becomes under Continue On Fail, the same in every node. */
export function errorItem(nodeError: NodeFailure, itemIndex: number): INodeExecutionData {
	return { json: { error: nodeError.message, ...(nodeError.description ? { details: nodeError.description } : {}) }, pairedItem: { item: itemIndex } };
}

/**
 * An item's failure: thrown as the n8n error, or (Continue On Fail) returned as its error item so
 * the workflow goes on with the other items.
 */
export function failItem(context: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const nodeError = toNodeError(context, error, itemIndex);
	if (!context.continueOnFail()) throw nodeError;
	return errorItem(nodeError, itemIndex);
}

/**
 * A failure that hits every item (no connection, no tool list): with Continue On Fail, one error
 * item per input item so the workflow goes on; otherwise the error itself.
 */
export function failEveryItem(context: IExecuteFunctions, error: unknown): INodeExecutionData[] {
	const nodeError = toNodeError(context, error);
	if (!context.continueOnFail()) throw nodeError;
	return context.getInputData().map((_item, itemIndex) => errorItem(nodeError, itemIndex));
}
