import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { PlannedCall } from '../../lib/agent/types';

// The runner's contract: whatever a server or the client library does, every call ends as an
// outcome for the model (never a rejection), with its duration recorded.
const tool = { serverId: 's1', serverName: 'server one', mcpName: 'echo', fingerprint: 'f' };
const call = (id: string, extra: Partial<PlannedCall> = {}): PlannedCall => ({ id, providerName: 'echo', tool, arguments: { message: id }, ...extra });

/** A connection whose interactive call completes with whatever `behaviour` resolves (or rejects, or throws). */
function connection(behaviour: (args: unknown) => Promise<unknown>) {
	return { callToolInteractive: (_name: string, args: unknown) => behaviour(args).then((result) => ({ kind: 'result', result })) } as never;
}

function run(calls: PlannedCall[], behaviour: (args: unknown) => Promise<unknown>) {
	return runToolCalls(calls, { connections: new Map([['s1', connection(behaviour)]]), concurrency: 2, timeoutMs: 1000, limits: DEFAULT_OUTCOME_LIMITS });
}

describe('runToolCalls', () => {
	it('turns results and every kind of failure into outcomes, in call order, with durations', async () => {
		const { outcomes, durations } = await run(
			[call('ok'), call('error'), call('string'), call('sync'), call('nothing'), call('unknown', { tool: undefined, rejection: 'Unknown tool "x".' })],
			(args) => {
				const id = (args as { message: string }).message;
				if (id === 'ok') return Promise.resolve({ content: [{ type: 'text', text: 'fine' }] });
				if (id === 'error') return Promise.reject(new Error('boom'));
				if (id === 'string') return Promise.reject('a bare string');
				if (id === 'sync') throw new Error('thrown synchronously');
				return Promise.reject(undefined);
			},
		);
		expect(outcomes.map((o) => [o.id, o.isError, o.text])).toEqual([
			['ok', false, 'fine'],
			['error', true, 'The tool call failed: boom'],
			['string', true, 'The tool call failed: a bare string'],
			['sync', true, 'The tool call failed: thrown synchronously'],
			['nothing', true, 'The tool call failed: undefined'],
			['unknown', true, 'Unknown tool "x".'],
		]);
		expect(Object.keys(durations).sort()).toEqual(['error', 'nothing', 'ok', 'string', 'sync', 'unknown']);
	});

	it('records the duration of a call whose id is "__proto__" as an own entry', async () => {
		const { outcomes, durations } = await run([call('__proto__')], () => Promise.resolve({ content: [{ type: 'text', text: 'fine' }] }));
		expect(outcomes[0]).toMatchObject({ id: '__proto__', isError: false, text: 'fine' });
		expect(Object.keys(durations)).toEqual(['__proto__']);
	});

	it('reports a server that is not connected, and a malformed result, as outcomes', async () => {
		const missing = await runToolCalls([call('a', { tool: { ...tool, serverId: 'gone' } })], { connections: new Map(), concurrency: 1, timeoutMs: 1000, limits: DEFAULT_OUTCOME_LIMITS });
		expect(missing.outcomes[0]).toMatchObject({ id: 'a', isError: true, text: 'Server "server one" is not connected.' });
		const malformed = await run([call('b')], () => Promise.resolve(null));
		expect(malformed.outcomes[0]).toMatchObject({ id: 'b', isError: true });
		expect(malformed.outcomes[0].text).toMatch(/^The tool call failed: /);
	});
});

describe('runToolCalls: input requests (MCP 2026-07-28)', () => {
	const FORM = { method: 'elicitation/create', params: { message: 'Seat?', requestedSchema: { type: 'object', properties: {} } } };

	it('reports a call whose server needs input as inputRequired (no outcome), next to the outcomes of the others', async () => {
		const seen: unknown[] = [];
		const callTool = (_connection: unknown, name: string, args: Record<string, unknown>, options: unknown) => {
			seen.push([name, args, options]);
			if (args.message === 'ask') return Promise.resolve({ kind: 'input_required' as const, inputRequests: { seat: FORM }, requestState: 'opaque' });
			return Promise.resolve({ kind: 'result' as const, result: { content: [{ type: 'text', text: 'fine' }] } });
		};
		const result = await runToolCalls([call('ask'), call('plain')], {
			connections: new Map([['s1', {} as never]]), concurrency: 2, timeoutMs: 1000, limits: DEFAULT_OUTCOME_LIMITS, callTool,
		});
		expect(result.outcomes.map((o) => o.id)).toEqual(['plain']);
		expect(result.inputRequired).toEqual([{ id: 'ask', inputRequests: { seat: FORM }, requestState: 'opaque' }]);
		expect(Object.keys(result.durations).sort()).toEqual(['ask', 'plain']);
		// A first call carries no continuation.
		expect(seen).toContainEqual(['echo', { message: 'ask' }, { timeoutMs: 1000, onProgress: expect.any(Function) }]);
	});

	it('retries an answered call with the answers and the request state echoed unchanged', async () => {
		const seen: unknown[] = [];
		const callTool = (_c: unknown, _n: string, _a: Record<string, unknown>, options: unknown) => {
			seen.push(options);
			return Promise.resolve({ kind: 'result' as const, result: { content: [{ type: 'text', text: 'booked' }] } });
		};
		const answered = call('a', {
			input: { status: 'answered', round: 1, inputRequests: { seat: FORM } as never, requestState: 'opaque-\u00e9', inputHash: 'h', responses: { seat: { action: 'accept', content: { n: 1 } } } },
		});
		const { outcomes, inputRequired } = await runToolCalls([answered], { connections: new Map([['s1', {} as never]]), concurrency: 1, timeoutMs: 500, limits: DEFAULT_OUTCOME_LIMITS, callTool });
		expect(seen).toEqual([{ timeoutMs: 500, onProgress: expect.any(Function), continuation: { inputResponses: { seat: { action: 'accept', content: { n: 1 } } }, requestState: 'opaque-\u00e9' } }]);
		expect(outcomes).toEqual([{ id: 'a', isError: false, text: 'booked', images: [] }]);
		expect(inputRequired).toBeUndefined();
	});

	it('adds the notes of a legacy server\'s declined mid-call request to the text the model sees', async () => {
		const note = 'The server asked for input ("Seat?") during this call; it was declined because input requests can only be answered by a person when the server supports MCP 2026-07-28.';
		const callTool = () => Promise.resolve({ kind: 'result' as const, result: { content: [{ type: 'text', text: 'partial' }] }, notes: [note] });
		const { outcomes } = await runToolCalls([call('a')], { connections: new Map([['s1', {} as never]]), concurrency: 1, timeoutMs: 500, limits: DEFAULT_OUTCOME_LIMITS, callTool });
		expect(outcomes[0].text).toBe(`${note}\npartial`);
	});

	it('goes through the connection\'s callToolInteractive by default, and never rejects when it does', async () => {
		const seen: unknown[] = [];
		const connection = {
			callToolInteractive: (name: string, args: unknown, options: unknown) => {
				seen.push([name, args, options]);
				if ((args as { message: string }).message === 'boom') return Promise.reject(new Error('server gone'));
				return Promise.resolve({ kind: 'result', result: { content: [{ type: 'text', text: 'via interactive' }] } });
			},
		};
		const { outcomes } = await runToolCalls([call('ok'), call('boom')], { connections: new Map([['s1', connection as never]]), concurrency: 2, timeoutMs: 700, limits: DEFAULT_OUTCOME_LIMITS });
		expect(outcomes.map((o) => [o.id, o.isError, o.text])).toEqual([
			['ok', false, 'via interactive'],
			['boom', true, 'The tool call failed: server gone'],
		]);
		expect(seen[0]).toEqual(['echo', { message: 'ok' }, { timeoutMs: 700, onProgress: expect.any(Function) }]);
	});
});
