import * as path from 'node:path';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { EVERYTHING_BIN, FIXTURES_DIR } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * MCP Call Tool and `notifications/progress` (issue 29, point 4), through the node's own execute:
 * server-everything's `trigger-long-running-operation` outlives the node's timeout while it
 * reports progress, and a server flooding notifications (test/fixtures/progress-flood-server.js)
 * gets a bounded number of lines on n8n's log, without arguments.
 */
function context(server: string[], tool: string, args: Record<string, unknown>, options: Record<string, unknown>, logs: string[]): IExecuteFunctions {
	const parameters: Record<string, unknown> = { connection: 'stdio', tool: { mode: 'name', value: tool }, argumentsMode: 'json', argumentsJson: JSON.stringify(args), options };
	const items: INodeExecutionData[] = [{ json: {} }];
	const node = { id: 'n1', name: 'MCP Call Tool', type: 'mcpCallTool', typeVersion: 1, position: [0, 0], parameters, credentials: { mcpServerStdioApi: { id: 'c1', name: 'S' } } };
	return {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter: (name: string, _index: number, fallback: unknown, more?: { extractValue?: boolean }) => {
			const value = parameters[name] ?? fallback;
			return more?.extractValue && value && typeof value === 'object' ? (value as { value: unknown }).value : value;
		},
		getCredentials: async () => ({ command: process.execPath, args: JSON.stringify(server), keepServerRunning: false }),
		continueOnFail: () => false,
		logger: { info: (message: string) => logs.push(message), warn: () => undefined, debug: () => undefined, error: () => undefined },
		helpers: { prepareBinaryData: async () => ({}) },
	} as unknown as IExecuteFunctions;
}

describe('MCP Call Tool and progress notifications', () => {
	it('a call longer than the node timeout succeeds while progress arrives (Extend Timeout on Progress, default on), and is logged', async () => {
		const logs: string[] = [];
		const [[item]] = await executeCallTool.call(context([EVERYTHING_BIN], 'trigger-long-running-operation', { duration: 2, steps: 8 }, { timeout: 1500 }, logs));
		expect(item.json).toMatchObject({ isError: false, text: expect.stringContaining('Long running operation completed') });
		const lines = logs.filter((line) => line.includes(' progress '));
		expect(lines[0]).toBe('MCP Call Tool "MCP Call Tool": tool trigger-long-running-operation progress 1/8');
		expect(lines[lines.length - 1]).toBe('MCP Call Tool "MCP Call Tool": tool trigger-long-running-operation progress 8/8');
		expect(lines.length).toBeLessThan(8);
	});

	it('without it the same call fails on its timeout', async () => {
		await expect(
			executeCallTool.call(context([EVERYTHING_BIN], 'trigger-long-running-operation', { duration: 2, steps: 8 }, { timeout: 1500, resetTimeoutOnProgress: false }, [])),
		).rejects.toThrow(/did not answer in time/);
	});

	it('a flood of notifications: the call ends, a few lines on the log, no arguments', async () => {
		const logs: string[] = [];
		const [[item]] = await executeCallTool.call(context([path.join(FIXTURES_DIR, 'progress-flood-server.js')], 'flood', { count: 3000 }, {}, logs));
		expect(item.json).toMatchObject({ isError: false, text: 'flooded 3000' });
		const lines = logs.filter((line) => line.includes(' progress '));
		// The first at once, the last at the end, and one per 5 s between: a flood is no reason for more.
		expect(lines[0]).toMatch(/progress 1\/3000 \(step 1 of 3000\)$/);
		expect(lines[lines.length - 1]).toMatch(/progress 3000\/3000 \(done x+…\)$/);
		expect(lines.length).toBeLessThan(20);
		expect(logs.join('\n')).not.toContain('"count"');
	});
});
