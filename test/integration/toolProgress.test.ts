/**
 * `notifications/progress` on tool calls (issue 29, point 4) against real servers:
 * server-everything's `trigger-long-running-operation` (one progress notification per step) over
 * stdio and Streamable HTTP (the lean HTTP path), and a fixture that floods notifications or never
 * stops sending them (test/fixtures/progress-flood-server.js). Timeouts here are generous against
 * the tool's step spacing; nothing asserts how long anything took.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { connectEverything, toolNamed } from '../support/everythingConnection';
import { LeanHttpTransport } from '../../lib/mcp/leanHttpTransport';
import { callToolAnsweringInput } from '../../lib/mcp/toolCall';
import { MAX_PROGRESS_MESSAGE_CHARS, throttleProgress, type ToolProgress } from '../../lib/mcp/progress';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import { INVISIBLE_CHARACTER } from '../../lib/tools/invisibleCharacters';
import type { PlannedCall } from '../../lib/agent/types';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { fixtureStdio, type RunningServer } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const LONG = 'trigger-long-running-operation';

describe.each(['stdio', 'streamableHttp'] as const)('progress from server-everything over %s', (transport) => {
	let http: RunningServer | undefined;
	let connection: McpConnection;
	let long: ToolDefinition;

	beforeAll(async () => {
		({ connection, http } = await connectEverything(transport));
		long = await toolNamed(connection, LONG);
	});

	afterAll(async () => {
		await connection?.close();
		await http?.stop();
	});

	it('HTTP calls stay on the lean path (it delivers the progress of the POST stream)', () => {
		if (transport !== 'streamableHttp') return;
		const outer = (connection as unknown as { session: { transport: { inner: unknown } } }).session.transport;
		expect(outer.inner).toBeInstanceOf(LeanHttpTransport);
	});

	it('a call longer than its timeout succeeds while progress keeps arriving, and every notification reaches the callback', async () => {
		// 2 s in 8 steps of 250 ms; the timeout (1.5 s) is shorter than the call, longer than a step.
		const seen: ToolProgress[] = [];
		const { result } = await callToolAnsweringInput(
			connection,
			long,
			{ duration: 2, steps: 8 },
			{ timeoutMs: 1500, resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p) },
		);
		expect(JSON.stringify(result)).toContain('Long running operation completed');
		expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		expect(seen[7]).toEqual({ progress: 8, total: 8 });
	});

	it('without Reset Timeout on Progress the same call times out', async () => {
		await expect(
			callToolAnsweringInput(connection, long, { duration: 2, steps: 8 }, { timeoutMs: 1500, resetTimeoutOnProgress: false, onProgress: () => undefined }),
		).rejects.toThrow(/did not answer in time while calling tool "trigger-long-running-operation"/);
	});

	it('past the maximum total the call fails with a message naming it', async () => {
		const error = await callToolAnsweringInput(connection, long, { duration: 3, steps: 12 }, { timeoutMs: 1500, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 1200 }).catch(
			(e: unknown) => e,
		);
		expect(String((error as Error).message)).toMatch(
			/kept sending progress but did not finish within the maximum total time of 1\.2 s while calling tool "trigger-long-running-operation"/,
		);
		expect((error as { description?: string }).description).toMatch(/Reset Timeout on Progress/);
	});

	it("the Agent's runner: the last progress per call in the result and to the observer, the timeout reset", async () => {
		const call: PlannedCall = {
			id: 'c1',
			providerName: LONG,
			tool: { serverId: 's', serverName: 'everything', mcpName: LONG, fingerprint: 'f' },
			arguments: { duration: 2, steps: 8 },
		};
		const observed: ToolProgress[] = [];
		let ended = 0;
		const run = await runToolCalls([call], {
			connections: new Map([['s', connection]]),
			concurrency: 1,
			timeoutMs: 1500,
			resetTimeoutOnProgress: true,
			limits: DEFAULT_OUTCOME_LIMITS,
			observer: () => Object.assign(() => void ended++, { progress: (p: ToolProgress) => void observed.push(p) }),
		});
		expect(run.outcomes[0]).toMatchObject({ id: 'c1', isError: false });
		expect(run.progress).toEqual({ c1: { progress: 8, total: 8 } });
		expect(observed.length).toBe(8);
		expect(ended).toBe(1);
	});
});

describe('a server flooding progress notifications (stdio fixture)', () => {
	let connection: McpConnection;

	beforeAll(async () => {
		connection = await McpConnection.open(fixtureStdio('progress-flood-server.js'));
	});

	afterAll(async () => {
		await connection?.close();
	});

	it('the call ends, the kept message is cleaned and capped, and the log gets a bounded number of lines', async () => {
		const flood = await toolNamed(connection, 'flood');
		let last: ToolProgress | undefined;
		let notices = 0;
		const lines: ToolProgress[] = [];
		// A clock that advances one second per notification: the throttle's bound is checked without timing.
		let clock = 0;
		const throttle = throttleProgress((p) => lines.push(p), { intervalMs: 5000, now: () => (clock += 1000) });
		const { result } = await callToolAnsweringInput(
			connection,
			flood,
			{ count: 2000 },
			{
				timeoutMs: 30_000,
				resetTimeoutOnProgress: true,
				onProgress: (p) => {
					notices++;
					last = p;
					throttle.push(p);
				},
			},
		);
		throttle.flush();
		expect(JSON.stringify(result)).toContain('flooded 2000');
		expect(notices).toBe(2000);
		expect(last?.progress).toBe(2000);
		expect(last?.message?.startsWith('done x')).toBe(true);
		expect(last?.message?.length).toBe(MAX_PROGRESS_MESSAGE_CHARS + 1);
		expect(INVISIBLE_CHARACTER.test(last?.message ?? '')).toBe(false);
		// One line per five notifications at most (five simulated seconds), plus the last.
		expect(lines.length).toBeLessThanOrEqual(2000 / 5 + 1);
		expect(lines[lines.length - 1].progress).toBe(2000);
	});

	it('an endless stream of progress cannot hold a call past its maximum total', async () => {
		const endless = await toolNamed(connection, 'endless-progress');
		await expect(callToolAnsweringInput(connection, endless, {}, { timeoutMs: 500, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 1000 })).rejects.toThrow(
			/maximum total time of 1 s/,
		);
	});
});
