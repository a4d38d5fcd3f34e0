import { McpFailure } from '../../lib/mcp/errors';

/** The McpFailure a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function mcpFailureOf(promise: Promise<unknown>): Promise<McpFailure> {
	try {
		await promise;
	} catch (error) {
		expect(error).toBeInstanceOf(McpFailure);
		return error as McpFailure;
	}
	throw new Error('expected a failure');
}
