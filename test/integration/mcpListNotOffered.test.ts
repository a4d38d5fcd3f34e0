import * as path from 'node:path';
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import { McpListTools } from '../../nodes/McpListTools/McpListTools.node';
import { EVERYTHING_BIN, FIXTURES_DIR } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * Issue 26, point 5: a listing the server does not offer (test/fixtures/db-error-server.js has the
 * tools capability only) is said, not zero items in silence; a server that offers it still lists.
 */
function context(args: string[], parameters: Record<string, unknown>, continueOnFail = false): IExecuteFunctions {
	const items: INodeExecutionData[] = [{ json: {} }];
	const node = { id: 'n1', name: 'MCP List', type: 'mcpListTools', typeVersion: 1, position: [0, 0], parameters };
	const all = { connection: 'stdio', ...parameters };
	return {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter: (name: string, _index: number, fallback: unknown) => (name in all ? all[name as keyof typeof all] : fallback),
		getCredentials: async () => ({ command: process.execPath, args: JSON.stringify(args), keepServerRunning: false }),
		continueOnFail: () => continueOnFail,
		helpers: { prepareBinaryData: async () => ({}) },
	} as unknown as IExecuteFunctions;
}

const list = (ctx: IExecuteFunctions) => new McpListTools().execute.call(ctx);
const TOOLS_ONLY = [path.join(FIXTURES_DIR, 'db-error-server.js')];

describe('MCP List Tools: a listing the server does not offer', () => {
	it('One Item per Entry fails the item, naming the server and what it lacks', async () => {
		await expect(list(context(TOOLS_ONLY, { operation: 'listPrompts', outputMode: 'perTool' }))).rejects.toMatchObject({
			constructor: NodeOperationError,
			message: 'The MCP server "sdk-orders" does not offer prompts',
			description: expect.stringContaining('no "prompts" capability'),
		});
		const [[item]] = await list(context(TOOLS_ONLY, { operation: 'listResources' }, true));
		expect(item.json.error).toBe('The MCP server "sdk-orders" does not offer resources');
	});

	it('One Item With All Entries: the empty list with a notice', async () => {
		const [[item]] = await list(context(TOOLS_ONLY, { operation: 'listResourceTemplates', outputMode: 'single' }));
		expect(item.json).toEqual({
			resourceTemplates: [],
			count: 0,
			notice: 'The MCP server "sdk-orders" does not offer resource templates: its initialize answer has no "resources" capability.',
		});
	});

	it('a server that offers prompts still lists them (server-everything)', async () => {
		const [out] = await list(context([EVERYTHING_BIN, 'stdio'], { operation: 'listPrompts', outputMode: 'perTool' }));
		expect(out.length).toBeGreaterThan(0);
	});
});
