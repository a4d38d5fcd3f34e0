import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { callToolAnsweringInput, callToolValidated, InputRequestRefused } from '../../lib/mcp/toolCall';
import { SAMPLING_DECLINED } from '../../lib/mcp/inputRequestMessages';
import { extractToolResult } from '../../lib/tools/callResult';
import { everythingStdio, FIXTURES_DIR, fixtureStdio, httpConfig, startEverythingHttp, startProcessServer, freePort, type RunningServer } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * 2025-era servers after the move to the v2 client with version negotiation: the `server/discover`
 * probe must not cost them their connection, whatever they do with it, and requests they send in
 * the middle of a call are declined at once with a note.
 */
const LEGACY = 'legacy-server.js';
const ASKED_NOTE =
	'The server asked for input ("What is your name?") during this call; it was declined because input requests can only be answered by a person when the server supports MCP 2026-07-28.';

function textOf(result: Record<string, unknown>): string {
	return extractToolResult('t', result).json.text;
}

async function echoWorks(connection: McpConnection): Promise<void> {
	const echo = (await listAllTools(connection)).find((tool) => tool.name === 'echo')!;
	expect(textOf(await callToolValidated(connection, echo, { message: 'still here' }))).toBe('Echo: still here');
}

describe('a v1-SDK legacy server over stdio', () => {
	it.each([
		['answers the probe "method not found"', {}],
		['ignores the probe', { LEGACY_PROBE: 'ignore' }],
		['exits on the probe', { LEGACY_PROBE: 'crash' }],
	])('connects with the 2025 handshake when it %s', async (_label, env) => {
		const connection = await McpConnection.open(fixtureStdio(LEGACY, env, { connectTimeoutMs: 3000 }));
		try {
			expect(connection.isModern).toBe(false);
			expect(connection.protocolVersion).toBe('2025-11-25');
			await echoWorks(connection);
		} finally {
			await connection.close();
		}
	});

	describe('requests in the middle of a call', () => {
		let connection: McpConnection;
		beforeAll(async () => {
			connection = await McpConnection.open(fixtureStdio(LEGACY));
			await listAllTools(connection);
		});
		afterAll(() => connection?.close());

		it('declines elicitation at once and notes it on the call', async () => {
			const outcome = await connection.callToolInteractive('ask_person', {});
			expect(outcome).toEqual({ kind: 'result', result: { content: [{ type: 'text', text: 'elicitation: decline' }] }, notes: [ASKED_NOTE] });
		});

		it('refuses sampling with a JSON-RPC error and notes it', async () => {
			const outcome = await connection.callToolInteractive('ask_model', {});
			expect(outcome.kind).toBe('result');
			if (outcome.kind !== 'result') throw new Error('unreachable');
			expect(textOf(outcome.result)).toContain(SAMPLING_DECLINED);
			expect(outcome.notes).toEqual([SAMPLING_DECLINED]);
		});

		it('MCP Call Tool: decline keeps the note, fail fails naming the tool and the message', async () => {
			const tool = connection.knownTools.get('ask_person')!;
			expect(await callToolAnsweringInput(connection, tool, {})).toEqual({ result: { content: [{ type: 'text', text: 'elicitation: decline' }] }, notes: [ASKED_NOTE] });
			const failure = await callToolAnsweringInput(connection, tool, {}, { onInputRequest: 'fail' }).catch((error: unknown) => error);
			expect(failure).toBeInstanceOf(InputRequestRefused);
			expect((failure as Error).message).toBe('Tool "ask_person" asked for input ("What is your name?"), and On Input Request is set to fail the item.');
		});

		it('a call without requests has no notes', async () => {
			expect(await connection.callToolInteractive('echo', { message: 'x' })).toEqual({ kind: 'result', result: { content: [{ type: 'text', text: 'Echo: x' }] } });
		});
	});
});

describe('a legacy server whose input request quotes a secret', () => {
	it('the note is cut after the secret is redacted, so no part of it is left', async () => {
		const secret = 'tok_0123456789abcdefSECRET';
		const connection = await McpConnection.open(
			fixtureStdio(LEGACY, { API_KEY: secret, LEGACY_ASK_MESSAGE: `${'y'.repeat(290)} ${secret} end` }, { connectTimeoutMs: 3000, secretEnvNames: ['API_KEY'] }),
		);
		try {
			const outcome = await connection.callToolInteractive('ask_person', {});
			expect(outcome.kind).toBe('result');
			const notes = JSON.stringify(outcome.kind === 'result' ? outcome.notes : undefined);
			expect(notes).toContain('yyy');
			expect(notes).not.toContain(secret.slice(0, 6));
		} finally {
			await connection.close();
		}
	});
});

describe('a v1-SDK legacy HTTP+SSE server', () => {
	let server: RunningServer;
	beforeAll(async () => {
		const port = await freePort();
		server = await startProcessServer([path.join(FIXTURES_DIR, LEGACY), 'sse'], { PORT: String(port) }, /listening on/, (p) => `http://127.0.0.1:${p}/sse`, port);
	});
	afterAll(() => server?.stop());

	it.each(['sse', 'auto'] as const)('connects with transport %s and calls a tool', async (transport) => {
		const connection = await McpConnection.open(httpConfig(server.url, { transport }));
		try {
			expect(connection.isModern).toBe(false);
			await echoWorks(connection);
			expect(await connection.callToolInteractive('ask_person', {})).toMatchObject({ notes: [ASKED_NOTE] });
		} finally {
			await connection.close();
		}
	});
});

describe('a legacy HTTP+SSE server that closes its stream with `retry: 0` (a reconnection storm)', () => {
	let server: RunningServer;
	beforeAll(async () => {
		const port = await freePort();
		server = await startProcessServer([path.join(FIXTURES_DIR, LEGACY), 'sse'], { PORT: String(port), LEGACY_REOPEN_STORM: '1' }, /listening on/, (p) => `http://127.0.0.1:${p}/sse`, port);
	});
	afterAll(() => server?.stop());

	it('reopens the stream at most every 250 ms instead of in a tight loop', async () => {
		const statsUrl = server.url.replace(/\/sse$/, '/stats');
		const opened = async () => ((await (await fetch(statsUrl)).json()) as { streamsOpened: number }).streamsOpened;
		const connection = await McpConnection.open(httpConfig(server.url, { transport: 'sse' }));
		try {
			const before = await opened();
			await new Promise((resolve) => setTimeout(resolve, 1000));
			// EventSource takes the server's 0 ms as given: hundreds of reopens a second without pacing.
			expect((await opened()) - before).toBeLessThanOrEqual(6);
		} finally {
			await connection.close();
		}
	});
});

describe('a legacy HTTP+SSE server whose answer to a POST never ends', () => {
	it('is cut at the answer limit: the error body of the handshake is not read whole', async () => {
		let written = 0;
		const server = http.createServer((req, res) => {
			if (req.method === 'GET') {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.write('event: endpoint\ndata: /messages?session=1\n\n');
				return;
			}
			// The initialize POST: a 500 whose body goes on (200 MB), written as fast as it is read.
			res.writeHead(500, { 'content-type': 'text/plain' });
			const chunk = 'x'.repeat(1024 * 1024);
			const more = () => {
				while (!res.destroyed && written < 200 * 1024 * 1024) {
					written += chunk.length;
					if (!res.write(chunk)) return;
				}
				if (!res.destroyed) res.end();
			};
			res.on('drain', more);
			more();
		});
		server.on('connection', (socket) => socket.on('error', () => undefined));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
			await expect(McpConnection.open(httpConfig(url, { transport: 'sse', connectTimeoutMs: 20_000 }))).rejects.toThrow();
			expect(written).toBeLessThan(160 * 1024 * 1024);
		} finally {
			server.closeAllConnections();
			server.close();
		}
	}, 30_000);
});

describe.each(['stdio', 'http'] as const)('server-everything (2025-era) over %s', (transport) => {
	let server: RunningServer | undefined;
	let connection: McpConnection;
	beforeAll(async () => {
		if (transport === 'http') server = await startEverythingHttp();
		connection = await McpConnection.open(server ? httpConfig(server.url) : everythingStdio());
	});
	afterAll(async () => {
		await connection?.close();
		await server?.stop();
	});

	it('falls back to a 2025 protocol version and declines its elicitation with a note', async () => {
		expect(connection.isModern).toBe(false);
		expect(connection.protocolVersion).toMatch(/^2025-/);
		const tool = (await listAllTools(connection)).find((t) => t.name === 'trigger-elicitation-request');
		expect(tool).toBeDefined();
		const answered = await callToolAnsweringInput(connection, tool!, {});
		expect(answered.notes).toEqual([
			'The server asked for input ("Please provide inputs for the following fields:") during this call; it was declined because input requests can only be answered by a person when the server supports MCP 2026-07-28.',
		]);
		expect(textOf(answered.result)).toMatch(/decline/i);
	});
});
