/**
 * toNodeError removes the secrets of the credential the node resolved from every error it reports,
 * whichever code path made the error (a tool's isError text, a thrown Error, an McpFailure).
 */
import { NodeOperationError, type IExecuteFunctions, type INode } from 'n8n-workflow';
import { McpFailure } from '../../lib/mcp/errors';
import { REDACTED } from '../../lib/mcp/secrets';
import { resolveServerConfig } from '../../nodes/shared/serverConnection';
import { toNodeError } from '../../nodes/shared/nodeErrors';

const TOKEN = 'sk-live-abcdef1234567890';
const NODE: INode = { id: '1', name: 'MCP Call Tool', type: 'mcpCallTool', typeVersion: 1, position: [0, 0], parameters: {} };

function executeContext(): IExecuteFunctions {
	return {
		getNodeParameter: () => 'http',
		getCredentials: async () => ({ url: 'http://127.0.0.1:1/mcp', authentication: 'bearer', token: TOKEN }),
		getNode: () => NODE,
		getInputData: () => [{ json: {} }],
	} as unknown as IExecuteFunctions;
}

describe('toNodeError after resolveServerConfig', () => {
	it('redacts plain errors, NodeOperationErrors (message and description) and McpFailures', async () => {
		const context = executeContext();
		await resolveServerConfig(context);
		expect(toNodeError(context, new Error(`upstream said ${TOKEN}`), 2).message).toBe(`upstream said ${REDACTED}`);
		const fromNode = toNodeError(context, new NodeOperationError(NODE, `Tool "x" reported an error: ${TOKEN}`, { itemIndex: 1, description: `see ${TOKEN}` }));
		expect({ message: fromNode.message, description: fromNode.description, itemIndex: fromNode.context.itemIndex }).toEqual({
			message: `Tool "x" reported an error: ${REDACTED}`,
			description: `see ${REDACTED}`,
			itemIndex: 1,
		});
		const failure = toNodeError(context, new McpFailure(`failed with ${TOKEN}`, 'protocol', `stderr ${TOKEN}`));
		expect(failure.message).toBe(`failed with ${REDACTED}`);
		expect(failure.description).toBe(`Last output of the server:\nstderr ${REDACTED}`);
	});

	it('leaves errors of another node execution (no secrets resolved) as they are', () => {
		const error = new NodeOperationError(NODE, 'plain');
		expect(toNodeError(executeContext(), error)).toBe(error);
	});
});
