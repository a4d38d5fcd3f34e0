import * as path from 'node:path';
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools, listToolsCached } from '../../lib/mcp/listing';
import { callToolAnsweringInput, callToolValidated, InputRequestRefused } from '../../lib/mcp/toolCall';
import { ROOTS_NOT_GIVEN, SAMPLING_DECLINED } from '../../lib/mcp/inputRequestMessages';
import { FIXTURES_DIR, httpConfig, startSelfAnnouncingHttpFixture, stdioConfig, type RunningServer } from '../support/servers';
import { extractToolResult } from '../../lib/tools/callResult';

/**
 * The connection core against an MCP 2026-07-28 server (test/fixtures/modern-server.js, built on
 * the v2 server package), over stdio and Streamable HTTP: negotiation, headers, input requests.
 */
process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const MODERN = path.join(FIXTURES_DIR, 'modern-server.js');
const ROOTS = [{ uri: 'file:///data/a', name: 'A' }, { uri: 'file:///data/b' }];

function startModernHttp(): Promise<RunningServer> {
	return startSelfAnnouncingHttpFixture('modern-server.js', ['http']);
}

function textOf(result: Record<string, unknown>): string {
	return extractToolResult('t', result).json.text;
}

describe.each(['stdio', 'http'] as const)('MCP 2026-07-28 server over %s', (transport) => {
	let server: RunningServer | undefined;
	let connection: McpConnection;

	beforeAll(async () => {
		if (transport === 'http') {
			server = await startModernHttp();
			connection = await McpConnection.open(httpConfig(server.url, { roots: ROOTS }));
		} else {
			connection = await McpConnection.open(stdioConfig(process.execPath, [MODERN, 'stdio'], { roots: ROOTS }));
		}
		await listAllTools(connection);
	});

	afterAll(async () => {
		await connection?.close();
		await server?.stop();
	});

	it('negotiates 2026-07-28 without the initialize handshake', () => {
		expect(connection.protocolVersion).toBe('2026-07-28');
		expect(connection.isModern).toBe(true);
		expect(connection.server).toMatchObject({ name: 'modern-fixture', version: '2.0.0' });
	});

	it('calls a tool through the validated path', async () => {
		const tool = connection.knownTools.get('echo');
		expect(tool).toBeDefined();
		expect(textOf(await callToolValidated(connection, tool!, { message: 'hi' }))).toBe('Echo: hi');
	});

	it('delivers progress notifications of a call, the last one included (issue 29)', async () => {
		const seen: unknown[] = [];
		const done = await connection.callToolInteractive('progress_steps', {}, { resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p) });
		expect(done).toMatchObject({ kind: 'result', result: { content: [{ type: 'text', text: 'stepped' }] } });
		expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
	});

	it('asks for input and completes the call with the answer and the same request state', async () => {
		const asked = await connection.callToolInteractive('confirm_delete', { path: '/tmp/a b' });
		expect(asked).toEqual({
			kind: 'input_required',
			inputRequests: { confirm: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Delete /tmp/a b?', requestedSchema: expect.any(Object) }) } },
			requestState: 'confirm:/tmp/a b',
		});
		if (asked.kind !== 'input_required') throw new Error('unreachable');
		const done = await connection.callToolInteractive('confirm_delete', { path: '/tmp/a b' }, {
			continuation: { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: asked.requestState },
		});
		expect(done).toMatchObject({ kind: 'result' });
		expect(textOf((done as { result: Record<string, unknown> }).result)).toBe('deleted /tmp/a b');
	});

	it('a changed request state reaches the server as it is (the server refuses it)', async () => {
		const done = await connection.callToolInteractive('confirm_delete', { path: '/x' }, {
			continuation: { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: 'confirm:/other' },
		});
		expect(textOf((done as { result: Record<string, unknown> }).result)).toMatch(/request state not echoed: "confirm:\/other"/);
	});

	it('answers roots requests itself with the configured roots', async () => {
		const done = await connection.callToolInteractive('roots_count', {});
		expect(done.kind).toBe('result');
		expect(textOf((done as { result: Record<string, unknown> }).result)).toBe('roots: 2');
	});

	it('without roots, a server asking for them gets no made-up empty list: the call ends with an error result', async () => {
		const bare = transport === 'http' ? await McpConnection.open(httpConfig(server!.url)) : await McpConnection.open(stdioConfig(process.execPath, [MODERN, 'stdio']));
		try {
			const done = await bare.callToolInteractive('roots_count', {});
			expect(done).toEqual({ kind: 'result', result: { content: [{ type: 'text', text: ROOTS_NOT_GIVEN }], isError: true }, notes: [ROOTS_NOT_GIVEN] });
		} finally {
			await bare.close();
		}
	});

	it('hands only the person-facing request out when roots are asked in the same round', async () => {
		const asked = await connection.callToolInteractive('roots_and_confirm', {});
		expect(asked.kind).toBe('input_required');
		if (asked.kind !== 'input_required') throw new Error('unreachable');
		expect(Object.keys(asked.inputRequests)).toEqual(['confirm']);
		const done = await connection.callToolInteractive('roots_and_confirm', {}, { continuation: { inputResponses: { confirm: { action: 'accept', content: {} } }, requestState: asked.requestState } });
		expect(textOf((done as { result: Record<string, unknown> }).result)).toBe('roots: 2, confirm: accept');
	});

	it('declines sampling with a clear error result', async () => {
		const done = await connection.callToolInteractive('ask_model', {});
		expect(done).toEqual({ kind: 'result', result: { content: [{ type: 'text', text: SAMPLING_DECLINED }], isError: true }, notes: [SAMPLING_DECLINED] });
		expect(SAMPLING_DECLINED).toMatch(/the server asked the client to sample from a model, which n8n-nodes-mcp-agent does not offer/i);
	});

	it('On Input Request = decline: the server gets a decline and finishes; the note says so', async () => {
		const tool = connection.knownTools.get('confirm_delete')!;
		const answered = await callToolAnsweringInput(connection, tool, { path: '/p' });
		expect(textOf(answered.result)).toBe('not deleted (decline)');
		expect(answered.notes).toEqual(['The server asked for input ("Delete /p?"); MCP Call Tool declined it (Options > On Input Request).']);
	});

	it('On Input Request = fail: the call fails naming the tool and the server message', async () => {
		const tool = connection.knownTools.get('confirm_delete')!;
		const failure = await callToolAnsweringInput(connection, tool, { path: '/p' }, { onInputRequest: 'fail' }).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(InputRequestRefused);
		expect((failure as Error).message).toBe('Tool "confirm_delete" asked for input ("Delete /p?"), and On Input Request is set to fail the item.');
	});

	if (transport === 'http') {
		it('sends MCP-Protocol-Version on every request and the marked argument as Mcp-Param-Region', async () => {
			const tool = connection.knownTools.get('region_weather')!;
			expect(textOf(await callToolValidated(connection, tool, { region: 'eu-west', day: 'mon' }))).toBe('region=eu-west header=eu-west version=2026-07-28');
		});

		it('serves a listing the server marked as cacheable from the client cache', async () => {
			const statsTool = connection.knownTools.get('stats')!;
			const before = JSON.parse(textOf(await callToolValidated(connection, statsTool, {}))).toolsList as number;
			await listAllTools(connection);
			await listAllTools(connection);
			const after = JSON.parse(textOf(await callToolValidated(connection, statsTool, {}))).toolsList as number;
			expect(after).toBe(before);
		});

		it('a listing the pool\'s cache asks for (a fresh one above all) reaches the server despite its caching hint', async () => {
			const statsTool = connection.knownTools.get('stats')!;
			const count = async () => JSON.parse(textOf(await callToolValidated(connection, statsTool, {}))).toolsList as number;
			const before = await count();
			await listAllTools(connection);
			await listToolsCached(connection, { fresh: true });
			await listToolsCached(connection, { now: () => Date.now() + 61_000 });
			expect(await count()).toBe(before + 2);
		});
	}
});

describe('secrets on the input-request path (stdio, MCP 2026-07-28)', () => {
	const SECRET = 'sk-live-0123456789abcdefSECRET';
	let connection: McpConnection;
	beforeAll(async () => {
		connection = await McpConnection.open(stdioConfig(process.execPath, [MODERN, 'stdio'], { env: { API_KEY: SECRET }, secretEnvNames: ['API_KEY'] }));
		await listAllTools(connection);
	});
	afterAll(() => connection?.close());

	it('redacts what the server asks and answers, and still echoes the request state byte for byte', async () => {
		const asked = await connection.callToolInteractive('confirm_delete', { path: SECRET });
		if (asked.kind !== 'input_required') throw new Error(`expected input_required, got ${JSON.stringify(asked)}`);
		expect(JSON.stringify(asked.inputRequests)).not.toContain(SECRET);
		expect(asked.inputRequests.confirm.params?.message).toBe('Delete [redacted]?');
		expect(asked.requestState).toBe(`confirm:${SECRET}`);
		const done = await connection.callToolInteractive('confirm_delete', { path: SECRET }, {
			continuation: { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: asked.requestState },
		});
		expect(done).toMatchObject({ kind: 'result', result: { content: [{ type: 'text', text: 'deleted [redacted]' }] } });
		expect(JSON.stringify(done)).not.toContain(SECRET);
	});
});

describe('a 2026-07-28 server with a bad caching hint on tools/list', () => {
	// A hint the client's schema refuses (negative, fractional, too large, missing; an unknown
	// scope) failed the whole listing with a validation dump: it now counts as no caching (ttlMs 0,
	// private), and every tool is listed.
	it.each([
		['-1', undefined],
		['1e300', undefined],
		['2.5', undefined],
		['omit', 'omit'],
		['60000', '"everyone"'],
	])('lists every tool with ttlMs %s and cacheScope %s', async (ttl, scope) => {
		const env = { MODERN_TOOLS_TTL: ttl, ...(scope ? { MODERN_TOOLS_SCOPE: scope === 'omit' ? 'omit' : JSON.parse(scope) } : {}) };
		const connection = await McpConnection.open(stdioConfig(process.execPath, [MODERN, 'stdio'], { env }));
		try {
			expect(connection.protocolVersion).toBe('2026-07-28');
			const tools = await listAllTools(connection);
			expect(tools.map((tool) => tool.name)).toContain('echo');
			// Listed again, not served from a cache the hint never allowed.
			expect((await listAllTools(connection)).map((tool) => tool.name)).toContain('echo');
		} finally {
			await connection.close();
		}
	});
});
