/**
 * Progress notifications of tool calls (issue 29, point 4), without servers: cleaning, the log
 * throttle on an injected clock, the ordering fix for the client's deferred notification
 * handlers, the request options a call is sent with, the runner's bookkeeping and the error that
 * names the maximum total.
 */
import { SdkError, SdkErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { MAX_PROGRESS_MESSAGE_CHARS, progressText, readProgress, throttleProgress, type ToolProgress } from '../../lib/mcp/progress';
import { deliverProgressBeforeResponses } from '../../lib/mcp/progressOrdering';
import { callInteractively, type CallChannel } from '../../lib/mcp/interactiveCall';
import { explainMcpError } from '../../lib/mcp/errors';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import { AGENT_STATE_VERSION, migrateAgentState } from '../../lib/agent/stateSchema';
import type { PlannedCall } from '../../lib/agent/types';
import type { StdioServerConfig } from '../../lib/mcp/serverConfig';

describe('readProgress', () => {
	it('keeps the numbers and a cleaned, capped message', () => {
		expect(readProgress({ progressToken: 1, progress: 2, total: 5, message: ' Fetching\u200B\u202E sources\u0007\n\tnow ' })).toEqual({
			progress: 2,
			total: 5,
			message: 'Fetching sources now',
		});
		const long = readProgress({ progress: 1, message: 'y'.repeat(10_000) });
		expect(long?.message).toHaveLength(MAX_PROGRESS_MESSAGE_CHARS + 1);
		expect(long?.message?.endsWith('…')).toBe(true);
	});

	it('drops what is not progress: no finite number, a total or message of the wrong type, an empty message', () => {
		expect(readProgress(undefined)).toBeUndefined();
		expect(readProgress({ progress: 'x' })).toBeUndefined();
		expect(readProgress({ progress: Number.NaN })).toBeUndefined();
		expect(readProgress({ progress: 1, total: 'all', message: 42 })).toEqual({ progress: 1 });
		expect(readProgress({ progress: 1, total: Infinity, message: '\u200B\u0000 ' })).toEqual({ progress: 1 });
	});

	it('reads as a log line', () => {
		expect(progressText({ progress: 3, total: 5, message: 'm' })).toBe('3/5 (m)');
		expect(progressText({ progress: 0.5 })).toBe('0.5');
	});
});

describe('throttleProgress (injected clock)', () => {
	it('logs the first at once, then at most one per interval, and the held-back last one on flush', () => {
		let now = 0;
		const lines: number[] = [];
		const throttle = throttleProgress((p) => lines.push(p.progress), { intervalMs: 5000, now: () => now });
		for (let i = 1; i <= 1000; i++) {
			now = i * 10; // 1,000 notifications in 10 s
			throttle.push({ progress: i });
		}
		throttle.flush();
		expect(lines).toEqual([1, 501, 1000]);
		throttle.flush();
		expect(lines).toEqual([1, 501, 1000]);
	});

	it('a logger that throws changes nothing', () => {
		const throttle = throttleProgress(() => {
			throw new Error('logger down');
		});
		expect(() => throttle.push({ progress: 1 })).not.toThrow();
	});
});

describe('deliverProgressBeforeResponses', () => {
	it("lets a progress notification's deferred handler run before the response that follows it, in order", async () => {
		const seen: string[] = [];
		// Like the client: notification handlers a microtask later, responses at once.
		const transport: { onmessage?: (message: JSONRPCMessage) => void } = {
			onmessage: (message) => {
				const m = message as { method?: string; id?: number; params?: { progress: number } };
				if (m.method) void Promise.resolve().then(() => seen.push(`progress ${m.params?.progress}`));
				else seen.push(`response ${m.id}`);
			},
		};
		deliverProgressBeforeResponses(transport);
		const progress = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n } }) as JSONRPCMessage;
		transport.onmessage?.(progress(1));
		transport.onmessage?.(progress(2));
		transport.onmessage?.({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage);
		transport.onmessage?.({ jsonrpc: '2.0', id: 2, result: {} } as JSONRPCMessage);
		for (let i = 0; i < 10; i++) await Promise.resolve();
		expect(seen).toEqual(['progress 1', 'progress 2', 'response 1', 'response 2']);
		// With no progress in between, responses pass straight through.
		transport.onmessage?.({ jsonrpc: '2.0', id: 3, result: {} } as JSONRPCMessage);
		expect(seen[seen.length - 1]).toBe('response 3');
	});
});

const CONFIG: StdioServerConfig = { kind: 'stdio', name: 'fake', command: 'x', args: [], env: {}, requestTimeoutMs: 1000, connectTimeoutMs: 1000 } as unknown as StdioServerConfig;

/** A 2025-era channel whose client records the options of its call and sends two notifications. */
function channel(sent: Array<Record<string, unknown>>): CallChannel {
	const client = {
		callTool: (_params: unknown, options: Record<string, unknown>) => {
			sent.push(options);
			const onprogress = options.onprogress as ((p: unknown) => void) | undefined;
			onprogress?.({ progress: 1, total: 2, message: 'half\u200B' });
			onprogress?.({ progress: 'bad' });
			return Promise.resolve({ content: [] });
		},
	};
	return {
		knownTools: new Map(),
		config: CONFIG,
		isModern: false,
		redact: { active: false } as never,
		request: (_phase, run) => run(client as never),
		requestUnredacted: (_phase, run) => run(client as never),
		trackLegacyInput: (call) => call().then((value) => ({ value })),
	};
}

describe('callInteractively: what the call is sent with', () => {
	it('a progress callback gives the call a progress token (onprogress) and gets cleaned notifications', async () => {
		const sent: Array<Record<string, unknown>> = [];
		const seen: ToolProgress[] = [];
		await callInteractively(channel(sent), 't', {}, { onProgress: (p) => seen.push(p) });
		expect(typeof sent[0].onprogress).toBe('function');
		expect(sent[0].resetTimeoutOnProgress).toBeUndefined();
		expect(seen).toEqual([{ progress: 1, total: 2, message: 'half' }]);
	});

	it('Reset Timeout on Progress: the SDK resets the timeout up to ten times it, or the given maximum', async () => {
		const sent: Array<Record<string, unknown>> = [];
		await callInteractively(channel(sent), 't', {}, { timeoutMs: 2000, resetTimeoutOnProgress: true });
		await callInteractively(channel(sent), 't', {}, { timeoutMs: 2000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 5000, onProgress: () => undefined });
		expect(sent[0]).toMatchObject({ timeout: 2000, resetTimeoutOnProgress: true, maxTotalTimeout: 20_000 });
		expect(sent[1]).toMatchObject({ timeout: 2000, resetTimeoutOnProgress: true, maxTotalTimeout: 5000 });
	});

	it('a callback that throws does not fail the call', async () => {
		const sent: Array<Record<string, unknown>> = [];
		const done = await callInteractively(
			channel(sent),
			't',
			{},
			{
				onProgress: () => {
					throw new Error('observer down');
				},
			},
		);
		expect(done.kind).toBe('result');
	});
});

describe('runToolCalls: progress', () => {
	const tool = { serverId: 's1', serverName: 'server one', mcpName: 'long', fingerprint: 'f' };
	const call = (id: string): PlannedCall => ({ id, providerName: 'long', tool, arguments: {} });

	it('keeps the last progress per call, tells the observer each one, and passes the reset option on', async () => {
		const options: unknown[] = [];
		const connection = {
			callToolInteractive: (_name: string, _args: unknown, callOptions: { onProgress?: (p: ToolProgress) => void }) => {
				options.push(callOptions);
				callOptions.onProgress?.({ progress: 1 });
				callOptions.onProgress?.({ progress: 2, total: 2, message: 'done' });
				return Promise.resolve({ kind: 'result', result: { content: [{ type: 'text', text: 'ok' }] } });
			},
		};
		const told: number[] = [];
		const result = await runToolCalls([call('a'), call('__proto__')], {
			connections: new Map([['s1', connection as never]]),
			concurrency: 2,
			timeoutMs: 1000,
			resetTimeoutOnProgress: true,
			limits: DEFAULT_OUTCOME_LIMITS,
			observer: () =>
				Object.assign(() => undefined, {
					progress: (p: ToolProgress) => {
						told.push(p.progress);
						throw new Error('observer down');
					},
				}),
		});
		expect(result.outcomes.map((o) => o.isError)).toEqual([false, false]);
		expect(Object.keys(result.progress ?? {})).toEqual(['a', '__proto__']);
		expect(result.progress?.a).toEqual({ progress: 2, total: 2, message: 'done' });
		expect(told).toEqual([1, 2, 1, 2]);
		expect(options[0]).toMatchObject({ timeoutMs: 1000, resetTimeoutOnProgress: true });
	});

	it('a call without progress leaves no progress in the result', async () => {
		const connection = { callToolInteractive: () => Promise.resolve({ kind: 'result', result: { content: [] } }) };
		const result = await runToolCalls([call('a')], { connections: new Map([['s1', connection as never]]), concurrency: 1, timeoutMs: 1000, limits: DEFAULT_OUTCOME_LIMITS });
		expect(result.progress).toBeUndefined();
	});
});

describe('the maximum total, in the error', () => {
	it('names the limit and what to do', () => {
		const error = new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: 600_000, totalElapsed: 600_010 });
		const failure = explainMcpError(error, CONFIG, 'calling tool "long"');
		expect(failure.message).toMatch(/kept sending progress but did not finish within the maximum total time of 600 s while calling tool "long"/);
		expect(failure.description).toMatch(/Reset Timeout on Progress/);
		expect(failure.kind).toBe('timeout');
	});

	it('a plain timeout stays as it was', () => {
		const failure = explainMcpError(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 1000 }), CONFIG, 'calling tool "long"');
		expect(failure.message).toMatch(/did not answer in time while calling tool "long"/);
	});
});

describe('stored state', () => {
	it('a run_tools phase with progress loads; progress that is not an object does not', () => {
		const state = {
			version: AGENT_STATE_VERSION,
			provider: 'anthropic',
			settings: {},
			tools: [],
			transcript: [],
			toolLog: [],
			iterations: 1,
			usage: {},
			lastText: '',
			phase: { name: 'run_tools', calls: [{ id: 'a' }], assistantText: '', outcomes: {}, durations: {}, progress: { a: { progress: 1 } }, decidedApprovals: [] },
		};
		expect(() => migrateAgentState(state, 'test')).not.toThrow();
		expect(() => migrateAgentState({ ...state, phase: { ...state.phase, progress: [1] } }, 'test')).toThrow(/progress/);
	});
});
