import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { PlannedCall } from '../../lib/agent/types';

// The runner's contract: whatever a server or the client library does, every call ends as an
// outcome for the model (never a rejection), with its duration recorded.
const tool = { serverId: 's1', serverName: 'server one', mcpName: 'echo', fingerprint: 'f' };
const call = (id: string, extra: Partial<PlannedCall> = {}): PlannedCall => ({ id, providerName: 'echo', tool, arguments: { message: id }, ...extra });

function connection(behaviour: (args: unknown) => Promise<unknown>) {
	const client = { callTool: (params: { arguments: unknown }) => behaviour(params.arguments) };
	return { request: (_phase: string, run: (c: typeof client) => Promise<unknown>) => run(client) } as never;
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
