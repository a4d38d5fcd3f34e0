import * as path from 'node:path';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { FIXTURES_DIR } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * Issue 26, point 5, against test/fixtures/db-error-server.js (a stdio server named "sdk-orders"
 * that answers a bad query with a JSON-RPC error, as the postgres server does): the error names the
 * server by its own name and the credential's, not by the command every node server shares; and
 * "On Tool Error: Return as Data" covers JSON-RPC errors as well as isError results.
 */
const CREDENTIAL_NAME = 'Orders DB (read only)';

function context(tool: string, args: Record<string, unknown>, options: Record<string, unknown>, continueOnFail = false): IExecuteFunctions {
	const parameters: Record<string, unknown> = {
		connection: 'stdio',
		tool: { mode: 'name', value: tool },
		argumentsMode: 'json',
		argumentsJson: JSON.stringify(args),
		options,
	};
	const items: INodeExecutionData[] = [{ json: {} }];
	const node = {
		id: 'n1',
		name: 'MCP Call Tool',
		type: 'mcpCallTool',
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { mcpServerStdioApi: { id: 'cred-orders', name: CREDENTIAL_NAME } },
	};
	return {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter: (name: string, _index: number, fallback: unknown, extra?: { extractValue?: boolean }) => {
			const value = parameters[name] ?? fallback;
			return extra?.extractValue && value && typeof value === 'object' ? (value as { value: unknown }).value : value;
		},
		getCredentials: async () => ({ command: process.execPath, args: JSON.stringify([path.join(FIXTURES_DIR, 'db-error-server.js')]), keepServerRunning: false }),
		continueOnFail: () => continueOnFail,
		helpers: { prepareBinaryData: async () => ({}) },
	} as unknown as IExecuteFunctions;
}

const BAD_QUERY = { sql: 'select * from nope' };

describe('MCP Call Tool and a JSON-RPC error from a local-command server', () => {
	it('the error names the server and the credential, not the command', async () => {
		const [[item]] = await executeCallTool.call(context('query', BAD_QUERY, {}, true));
		const message = String(item.json.error);
		expect(message).toContain(`MCP server "sdk-orders" (credential "${CREDENTIAL_NAME}") returned an error while calling tool "query"`);
		expect(message).toContain('relation "nope" does not exist');
		expect(message).not.toContain(process.execPath);
	});

	it('On Tool Error "Fail the Item" (the default) fails the item', async () => {
		await expect(executeCallTool.call(context('query', BAD_QUERY, {}))).rejects.toThrow(/returned an error while calling tool "query"/);
	});

	it('On Tool Error "Return as Data" outputs it as an isError item with the server\'s own code, message and data', async () => {
		const [[item]] = await executeCallTool.call(context('query', BAD_QUERY, { isErrorHandling: 'data' }));
		expect(item.json).toEqual({
			tool: 'query',
			isError: true,
			text: 'relation "nope" does not exist',
			content: [],
			jsonRpcError: { code: -32603, message: 'relation "nope" does not exist', data: { position: 15 } },
		});
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('"Return as Data" still returns isError results as they are, and a good query works', async () => {
		const [[soft]] = await executeCallTool.call(context('soft_fail', {}, { isErrorHandling: 'data' }));
		expect(soft.json).toMatchObject({ tool: 'soft_fail', isError: true, text: 'soft failure' });
		const [[rows]] = await executeCallTool.call(context('query', { sql: 'select 1' }, { isErrorHandling: 'data' }));
		expect(rows.json).toMatchObject({ isError: false, data: [{ id: 1 }] });
	});

	it('"Return as Data" does not cover arguments that fail the tool\'s schema: the item fails', async () => {
		await expect(executeCallTool.call(context('query', {}, { isErrorHandling: 'data' }))).rejects.toThrow(/sql/);
	});
});
