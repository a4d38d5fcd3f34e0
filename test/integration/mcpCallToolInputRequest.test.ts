import * as path from 'node:path';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { FIXTURES_DIR } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * MCP Call Tool's *On Input Request* against a 2026-07-28 server (input_required) and a 2025-era
 * server (elicitation/create in the middle of the call): Decline lets the server finish and notes
 * it on the item; Fail the Item fails the item naming the tool and the server's message.
 */
function context(fixture: string, tool: string, args: Record<string, unknown>, options: Record<string, unknown>, continueOnFail = false): IExecuteFunctions {
	const parameters: Record<string, unknown> = {
		connection: 'stdio',
		tool: { mode: 'name', value: tool },
		argumentsMode: 'json',
		argumentsJson: JSON.stringify(args),
		options,
	};
	const items: INodeExecutionData[] = [{ json: {} }];
	const node = { id: 'n1', name: 'MCP Call Tool', type: 'mcpCallTool', typeVersion: 1, position: [0, 0], parameters };
	return {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter: (name: string, _index: number, fallback: unknown, extra?: { extractValue?: boolean }) => {
			const value = parameters[name] ?? fallback;
			return extra?.extractValue && value && typeof value === 'object' ? (value as { value: unknown }).value : value;
		},
		getCredentials: async () => ({ command: process.execPath, args: JSON.stringify([path.join(FIXTURES_DIR, fixture), 'stdio']) }),
		continueOnFail: () => continueOnFail,
		helpers: { prepareBinaryData: async () => ({}) },
	} as unknown as IExecuteFunctions;
}

describe.each([
	['a 2026-07-28 server', 'modern-server.js', 'confirm_delete', { path: '/x' }, 'not deleted (decline)', '"Delete /x?"', 'The server asked for input ("Delete /x?"); MCP Call Tool declined it (Options > On Input Request).'],
	[
		'a 2025-era server',
		'legacy-server.js',
		'ask_person',
		{},
		'elicitation: decline',
		'"What is your name?"',
		'The server asked for input ("What is your name?") during this call; it was declined because input requests can only be answered by a person when the server supports MCP 2026-07-28.',
	],
])('MCP Call Tool, On Input Request, %s', (_label, fixture, tool, args, declinedText, asked, note) => {
	it('Decline (the default): the item carries the server\'s result and a note', async () => {
		const [[item]] = await executeCallTool.call(context(fixture, tool, args, {}));
		expect(item.json).toMatchObject({ tool, isError: false, text: declinedText, notes: [note] });
	});

	it('Fail the Item: the item fails naming the tool and the request', async () => {
		await expect(executeCallTool.call(context(fixture, tool, args, { onInputRequest: 'fail' }))).rejects.toThrow(
			`Tool "${tool}" asked for input (${asked}), and On Input Request is set to fail the item.`,
		);
		const [[item]] = await executeCallTool.call(context(fixture, tool, args, { onInputRequest: 'fail' }, true));
		expect(item.json.error).toBe(`Tool "${tool}" asked for input (${asked}), and On Input Request is set to fail the item.`);
	});
});
