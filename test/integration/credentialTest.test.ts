import type { ICredentialTestFunctions } from 'n8n-workflow';
import { mcpServerConnectionTest } from '../../nodes/shared/serverConnection';
import { collectToolSources } from '../../nodes/McpAgent/execute';
import * as path from 'node:path';
import { EVERYTHING_BIN, FIXTURES_DIR, freePort, startEverythingHttp } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';
const context = {} as ICredentialTestFunctions;

describe('credential Test button (mcpServerConnectionTest)', () => {
	it('reports server, version, protocol and tool count for a stdio server', async () => {
		const result = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'x', type: 'mcpServerStdioApi',
			data: { command: process.execPath, args: JSON.stringify([EVERYTHING_BIN, 'stdio']) },
		});
		expect(result.status).toBe('OK');
		expect(result.message).toMatch(/^Connected to .*everything.* protocol \d{4}-\d{2}-\d{2}: \d+ tools\.$/);
	});

	it('a server with an empty version string: no stray space or comma (issue 26, point 5)', async () => {
		const result = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'Orders DB', type: 'mcpServerStdioApi',
			data: { command: process.execPath, args: JSON.stringify([path.join(FIXTURES_DIR, 'db-error-server.js')]) },
		});
		expect(result).toEqual({ status: 'OK', message: expect.stringMatching(/^Connected to sdk-orders, protocol \d{4}-\d{2}-\d{2}: 2 tools\.$/) });
	});

	it('reports the same over Streamable HTTP', async () => {
		const server = await startEverythingHttp();
		try {
			const result = await mcpServerConnectionTest.call(context, { id: '1', name: 'x', type: 'mcpServerHttpApi', data: { url: server.url } });
			expect(result).toMatchObject({ status: 'OK', message: expect.stringMatching(/tools\.$/) });
		} finally {
			await server.stop();
		}
	});

	it('reports the precise failure: refused port, exited process with stderr, bad argument format', async () => {
		const port = await freePort();
		const refused = await mcpServerConnectionTest.call(context, { id: '1', name: 'x', type: 'mcpServerHttpApi', data: { url: `http://127.0.0.1:${port}/mcp`, connectTimeout: 3000 } });
		expect(refused).toMatchObject({ status: 'Error', message: expect.stringMatching(/Connection refused/) });
		const exited = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'x', type: 'mcpServerStdioApi',
			data: { command: process.execPath, args: '-e "console.error(\'missing ALLOWED_DIR\'); process.exit(4)"' },
		});
		expect(exited).toMatchObject({ status: 'Error', message: expect.stringMatching(/exited with code 4[\s\S]*missing ALLOWED_DIR/) });
		const badArgs = await mcpServerConnectionTest.call(context, { id: '1', name: 'x', type: 'mcpServerStdioApi', data: { command: 'node', args: '"unclosed' } });
		expect(badArgs).toMatchObject({ status: 'Error', message: expect.stringMatching(/Arguments.*unclosed " quote/) });
	});

	it('never shows secret header values in errors', async () => {
		const port = await freePort();
		const result = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'x', type: 'mcpServerHttpApi',
			data: { url: `http://127.0.0.1:${port}/mcp?key=topsecretquery`, authentication: 'headers', headers: 'X-Api-Key: topsecretheader', connectTimeout: 3000 },
		});
		expect(result.status).toBe('Error');
		expect(result.message).not.toMatch(/topsecret/);
	});
});

describe('credential Test button never echoes secrets (issue 10, point 3)', () => {
	const TOKEN = 'sk-live-abcdef1234567890';

	it('a bearer token containing a line break: a clear error naming the field, without the token', async () => {
		const port = await freePort();
		const result = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'x', type: 'mcpServerHttpApi',
			data: { url: `http://127.0.0.1:${port}/mcp`, authentication: 'bearer', token: `${TOKEN}\nX-Evil: 1`, connectTimeout: 3000 },
		});
		expect(result).toEqual({ status: 'Error', message: 'The Bearer Token in the credential contains a line break; paste it again without it.' });
	});

	it('a custom header value with a control character: named, not echoed', async () => {
		const result = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'x', type: 'mcpServerHttpApi',
			data: { url: 'http://127.0.0.1:1/mcp', authentication: 'headers', headers: JSON.stringify({ 'X-Api-Key': `${TOKEN}\u0007` }) },
		});
		expect(result).toEqual({ status: 'Error', message: 'Headers (credential): the value of header X-Api-Key contains a control character' });
	});

	it('a stdio server printing its secret environment variable before exiting: the Test message shows [redacted]', async () => {
		const result = await mcpServerConnectionTest.call(context, {
			id: '1', name: 'x', type: 'mcpServerStdioApi',
			data: { command: process.execPath, args: JSON.stringify(['-e', 'console.error("key is " + process.env.API_KEY); process.exit(5)']), secretEnvironment: `API_KEY=${TOKEN}` },
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/exited with code 5[\s\S]*key is \[redacted\]/);
		expect(result.message).not.toContain('abcdef1234567890');
	});

	it('a token in the URL path is not shown in the refused message', async () => {
		const port = await freePort();
		const result = await mcpServerConnectionTest.call(context, { id: '1', name: 'x', type: 'mcpServerHttpApi', data: { url: `http://127.0.0.1:${port}/${TOKEN}/mcp`, connectTimeout: 3000 } });
		expect(result).toMatchObject({ status: 'Error', message: expect.stringMatching(/Connection refused/) });
		expect(result.message).not.toContain('abcdef1234567890');
	});
});

describe('MCP Agent "Tools" input', () => {
	const fakeContext = (supplied: unknown) =>
		({ getInputConnectionData: async () => supplied, getNode: () => ({ name: 'MCP Agent', type: 'x', typeVersion: 1, parameters: {}, id: '1', position: [0, 0] }) }) as never;

	it('accepts n8n tool nodes next to MCP servers', async () => {
		const calculator = { name: 'calculator', description: 'math', invoke: async () => '2' };
		await expect(collectToolSources(fakeContext([calculator]))).resolves.toMatchObject({ handles: [], n8nTools: [{ node: 'calculator' }] });
	});

	it('refuses what is neither, and asks for a tool when none is connected', async () => {
		await expect(collectToolSources(fakeContext([{ x: 1 }]))).rejects.toThrow(/neither an MCP Server sub-node nor an n8n tool/);
		await expect(collectToolSources(fakeContext(undefined))).rejects.toThrow(/No tools connected/);
	});
});

describe('tool dropdown and schema-generated argument fields', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { searchTools, getToolArgumentFields } = require('../../nodes/shared/toolPicker');
	const loadOptions = (params: Record<string, unknown>) =>
		({
			getNodeParameter: (name: string, fallback: unknown) => (name in params ? params[name] : fallback),
			getCredentials: async () => ({ command: process.execPath, args: JSON.stringify([EVERYTHING_BIN, 'stdio']) }),
			getNode: () => ({ name: 'MCP Call Tool', type: 'x', typeVersion: 1, parameters: {}, id: '1', position: [0, 0] }),
		}) as never;

	it('lists and filters tools by name, title or description', async () => {
		const all = await searchTools.call(loadOptions({ connection: 'stdio' }));
		expect(all.results.map((r: { value: string }) => r.value)).toContain('echo');
		const filtered = await searchTools.call(loadOptions({ connection: 'stdio' }), 'echoes back');
		expect(filtered.results.map((r: { value: string }) => r.value)).toEqual(['echo']);
	});

	it('generates typed, required fields from the inputSchema', async () => {
		const fields = await getToolArgumentFields.call(loadOptions({ connection: 'stdio', tool: 'get-sum' }));
		expect(fields.fields).toEqual(
			expect.arrayContaining([expect.objectContaining({ id: 'a', type: 'number', required: true }), expect.objectContaining({ id: 'b', type: 'number', required: true })]),
		);
		const unknown = await getToolArgumentFields.call(loadOptions({ connection: 'stdio', tool: 'nope' }));
		expect(unknown).toMatchObject({ fields: [], emptyFieldsNotice: expect.stringMatching(/no tool named "nope"/) });
	});
});
