import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools, listAllResources, listAllPrompts, listAllResourceTemplates } from '../../lib/mcp/listing';
import { callToolValidated, ArgumentValidationError } from '../../lib/mcp/toolCall';
import { extractToolResult } from '../../lib/tools/callResult';
import { everythingStdio, httpConfig, isAlive, startEverythingHttp, type RunningServer } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

describe.each(['stdio', 'streamableHttp'] as const)('server-everything over %s', (transport) => {
	let http: RunningServer | undefined;
	let connection: McpConnection;

	beforeAll(async () => {
		if (transport === 'streamableHttp') {
			http = await startEverythingHttp();
			connection = await McpConnection.open(httpConfig(http.url));
		} else {
			connection = await McpConnection.open(everythingStdio());
		}
	});

	afterAll(async () => {
		await connection?.close();
		await http?.stop();
	});

	it('identifies the server and lists its tools sorted by name', async () => {
		expect(connection.server.name).toMatch(/everything/i);
		const tools = await listAllTools(connection);
		const names = tools.map((t) => t.name);
		expect(names).toContain('echo');
		expect(names).toEqual([...names].sort());
	});

	it('calls echo and maps the text result', async () => {
		const tools = await listAllTools(connection);
		const echo = tools.find((t) => t.name === 'echo')!;
		const result = await callToolValidated(connection, echo, { message: 'hi there' });
		const output = extractToolResult('echo', result);
		expect(output.json.text).toBe('Echo: hi there');
		expect(output.json.isError).toBe(false);
	});

	it('refuses invalid arguments before calling the server', async () => {
		const tools = await listAllTools(connection);
		const echo = tools.find((t) => t.name === 'echo')!;
		await expect(callToolValidated(connection, echo, { message: 42 })).rejects.toThrow(ArgumentValidationError);
		await expect(callToolValidated(connection, echo, {})).rejects.toThrow(/arguments\.message is required \(rule: required\)/);
	});

	it('returns images as binaries', async () => {
		const tools = await listAllTools(connection);
		const image = tools.find((t) => t.name === 'get-tiny-image')!;
		const output = extractToolResult(image.name, await callToolValidated(connection, image, {}));
		expect(output.binaries[0]).toMatchObject({ key: 'data', mimeType: 'image/png' });
		expect(output.binaries[0].base64.length).toBeGreaterThan(10);
	});

	it('lists resources, templates and prompts', async () => {
		expect((await listAllResources(connection)).length).toBeGreaterThan(0);
		expect(Array.isArray(await listAllResourceTemplates(connection))).toBe(true);
		expect((await listAllPrompts(connection)).length).toBeGreaterThan(0);
	});
});

describe('stdio process lifecycle', () => {
	it('kills the server process when the connection closes', async () => {
		const connection = await McpConnection.open(everythingStdio());
		const pid = (connection as unknown as { session: { stdio: { pid: number } } }).session.stdio.pid;
		expect(isAlive(pid)).toBe(true);
		await connection.close();
		expect(isAlive(pid)).toBe(false);
	});
});
