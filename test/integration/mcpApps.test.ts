import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { IExecuteFunctions, ILoadOptionsFunctions, INodeExecutionData } from 'n8n-workflow';
import { buildCatalog } from '../../lib/agent/catalog';
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { describeTools } from '../../lib/tools/listedTools';
import { APP_ONLY_REASON } from '../../lib/tools/mcpApps';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { McpListTools } from '../../nodes/McpListTools/McpListTools.node';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { searchTools } from '../../nodes/shared/toolPicker';
import { minimalPdf } from '../support/minimalPdf';
import { PDF_BIN, stdioConfig } from '../support/servers';

/**
 * MCP Apps against server-pdf 2.0.4 (issue 26, point 3): its app-only tools (`_meta.ui.visibility:
 * ["app"]`, save_pdf among them) never reach a model, MCP List Tools shows `_meta` and marks them,
 * and MCP Call Tool calls one only by a person's explicit choice, not as a tool of n8n's AI Agent.
 */
process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const APP_ONLY = ['poll_pdf_commands', 'read_pdf_bytes', 'save_pdf', 'submit_page_data', 'submit_save_data', 'submit_viewer_state'];
const VIEWER = 'ui://pdf-viewer/mcp-app.html';

let dir: string;
let connection: McpConnection;
let tools: ToolDefinition[];

beforeAll(async () => {
	dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-apps-')));
	writeFileSync(path.join(dir, 'doc.pdf'), minimalPdf());
	connection = await McpConnection.open(stdioConfig(process.execPath, [PDF_BIN, '--stdio', dir]));
	tools = await listAllTools(connection);
});

afterAll(async () => {
	await connection?.close();
	rmSync(dir, { recursive: true, force: true });
});

it("the Agent offers the model none of server-pdf's app-only tools", () => {
	const { tools: offered, withheld } = buildCatalog([{ id: 'pdf', name: 'pdf', tools }]);
	expect(offered.map((t) => t.mcpName).sort()).toEqual(['display_pdf', 'interact', 'list_pdfs']);
	expect(withheld).toEqual(APP_ONLY.map((tool) => ({ server: 'pdf', tool, reason: APP_ONLY_REASON })));
});

it('MCP List Tools keeps _meta and marks app-only tools and the ui:// resource', () => {
	const listed = describeTools(tools, connection.server, { trustAnnotations: false, providerFormats: false });
	expect(listed.filter((t) => t.appOnly).map((t) => t.name)).toEqual(APP_ONLY);
	const display = listed.find((t) => t.name === 'display_pdf');
	expect(display).toMatchObject({ _meta: { ui: { resourceUri: VIEWER } }, uiResourceUri: VIEWER });
	expect(display).not.toHaveProperty('appOnly');
	expect(listed.find((t) => t.name === 'save_pdf')).toMatchObject({ _meta: { ui: { visibility: ['app'] } }, appOnly: true });
});

/** A node context over a local-command credential for server-pdf; `type` is the node's type. */
function nodeContext(type: string, parameters: Record<string, unknown>, continueOnFail = false) {
	const items: INodeExecutionData[] = [{ json: {} }];
	const node = { id: 'n1', name: 'Node', type, typeVersion: 1, position: [0, 0], parameters };
	const read = (name: string, fallback: unknown, extra?: { extractValue?: boolean }) => {
		const value = parameters[name] ?? fallback;
		return extra?.extractValue && value && typeof value === 'object' ? (value as { value: unknown }).value : value;
	};
	return {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter: (name: string, indexOrFallback: unknown, fallbackOrExtra?: unknown, extra?: { extractValue?: boolean }) =>
			typeof indexOrFallback === 'number' ? read(name, fallbackOrExtra, extra) : read(name, indexOrFallback, fallbackOrExtra as { extractValue?: boolean }),
		getCredentials: async () => ({ command: process.execPath, args: JSON.stringify([PDF_BIN, '--stdio', dir]), keepServerRunning: false }),
		continueOnFail: () => continueOnFail,
		helpers: { prepareBinaryData: async () => ({}) },
	};
}

function callToolContext(type: string, tool: string, args: Record<string, unknown>): IExecuteFunctions {
	const parameters = { connection: 'stdio', tool: { mode: 'name', value: tool }, argumentsMode: 'json', argumentsJson: JSON.stringify(args), options: {} };
	return nodeContext(type, parameters) as unknown as IExecuteFunctions;
}

it('MCP List Tools (the node) outputs _meta and appOnly', async () => {
	const context = nodeContext('mcpListTools', { connection: 'stdio', operation: 'listTools', outputMode: 'perTool', options: {} });
	const [items] = await new McpListTools().execute.call(context as unknown as IExecuteFunctions);
	const save = items.find((item) => item.json.name === 'save_pdf');
	expect(save?.json).toMatchObject({ appOnly: true, _meta: { ui: { visibility: ['app'] } } });
	expect(items.find((item) => item.json.name === 'display_pdf')?.json).toMatchObject({ uiResourceUri: VIEWER });
});

it("MCP Call Tool's picker marks app-only tools", async () => {
	const context = nodeContext('mcpCallTool', { connection: 'stdio' });
	const { results } = await searchTools.call(context as unknown as ILoadOptionsFunctions);
	const save = results.find((r) => r.value === 'save_pdf');
	expect(save?.name).toMatch(/\[app-only\]$/);
	expect(save?.description).toMatch(/^App-only tool \(MCP Apps\)/);
	expect(results.find((r) => r.value === 'list_pdfs')?.name).toBe('list_pdfs');
});

it('MCP Call Tool as a node calls an app-only tool by explicit choice', async () => {
	const [[item]] = await executeCallTool.call(callToolContext('mcpCallTool', 'read_pdf_bytes', { url: path.join(dir, 'doc.pdf'), offset: 0, byteCount: 8 }));
	expect(item.json).toMatchObject({ tool: 'read_pdf_bytes', isError: false });
});

it("MCP Call Tool as a tool of n8n's AI Agent refuses an app-only tool, and still calls the others", async () => {
	await expect(executeCallTool.call(callToolContext('n8n-nodes-mcp-agent.mcpCallToolTool', 'save_pdf', { url: path.join(dir, 'doc.pdf'), data: '' }))).rejects.toThrow(
		'Tool "save_pdf" is an app-only tool (MCP Apps: its _meta.ui.visibility leaves out "model"), so it is not called for a model',
	);
	const [[item]] = await executeCallTool.call(callToolContext('n8n-nodes-mcp-agent.mcpCallToolTool', 'list_pdfs', {}));
	expect(item.json).toMatchObject({ tool: 'list_pdfs', isError: false });
});
