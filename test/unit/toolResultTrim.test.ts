/**
 * Oversized tool results (issue 31.3): a result longer than Max Tool Result Characters reaches the
 * model trimmed, with a note saying how much it sees of how much; the tool log marks it; and with
 * Full Tool Results in Output the driver keeps the untrimmed text for the output item only, never
 * in the run's state (transcript, stored paused run).
 */
import { buildCatalog } from '../../lib/agent/catalog';
import { FullResults, RESULT_NOT_KEPT } from '../../lib/agent/fullResults';
import { runAgent } from '../../lib/agent/runAgent';
import { createRun } from '../../lib/agent/step';
import { DEFAULT_OUTCOME_LIMITS, toolOutcomeFromMcp, trimText } from '../../lib/agent/toolOutcome';
import { runToolCalls, type ToolRunResult } from '../../lib/agent/toolRunner';
import type { PlannedCall, ToolLogEntry } from '../../lib/agent/types';
import type { ModelClient } from '../../lib/providers/types';

const LIMITS = { ...DEFAULT_OUTCOME_LIMITS, maxChars: 1000 };
const long = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('a trimmed result tells the model', () => {
	it('says that the agent trimmed it, how many characters it shows and of how many', () => {
		const outcome = toolOutcomeFromMcp('c1', { content: [{ type: 'text', text: long(5000) }] }, LIMITS);
		expect(outcome.text.startsWith(long(1000))).toBe(true);
		expect(outcome.text).toContain('trimmed by the agent: you see the first 1000 of 5000 characters of this result (Max Tool Result Characters); the last 4000 characters were cut');
		expect(outcome.trimmed).toEqual({ shown: 1000, total: 5000 });
	});

	it('counts several blocks together, and leaves a short result as it is', () => {
		const outcome = toolOutcomeFromMcp('c1', { content: [{ type: 'text', text: long(800) }, { type: 'text', text: long(800) }] }, LIMITS);
		expect(outcome.trimmed).toEqual({ shown: 1000, total: 1601 });
		const short = toolOutcomeFromMcp('c2', { content: [{ type: 'text', text: 'fine' }] }, LIMITS);
		expect(short).toEqual({ id: 'c2', isError: false, text: 'fine', images: [] });
	});

	it('never cuts a surrogate pair in half', () => {
		const text = `${long(99)}😀${long(50)}`;
		const trimmed = trimText(text, 100);
		expect(trimmed.trimmed).toEqual({ shown: 99, total: text.length });
		expect(LONE_SURROGATE.test(trimmed.text)).toBe(false);
	});
});

const tool = { serverId: 's1', serverName: 'files', mcpName: 'read', fingerprint: 'f' };
const call = (id: string): PlannedCall => ({ id, providerName: 'read', tool, arguments: {} });
const connection = (text: string) => ({ callToolInteractive: async () => ({ kind: 'result', result: { content: [{ type: 'text', text }] } }) }) as never;

describe('the tool runner', () => {
	const options = (text: string, keepFullResults?: boolean) => ({ connections: new Map([['s1', connection(text)]]), concurrency: 1, timeoutMs: 1000, limits: LIMITS, ...(keepFullResults ? { keepFullResults } : {}) });

	it('gives the model the trimmed text and keeps the full one only when asked', async () => {
		const kept = await runToolCalls([call('a')], options(long(3000), true));
		expect(kept.outcomes[0].trimmed).toEqual({ shown: 1000, total: 3000 });
		expect(kept.fullResults).toEqual({ a: long(3000) });
		const plain = await runToolCalls([call('a')], options(long(3000)));
		expect(plain.outcomes[0].text).toBe(kept.outcomes[0].text);
		expect(plain.fullResults).toBeUndefined();
	});

	it('trims a failure message the same way', async () => {
		const failing = { callToolInteractive: async () => Promise.reject(new Error(long(2000))) } as never;
		const ran = await runToolCalls([call('a')], { connections: new Map([['s1', failing]]), concurrency: 1, timeoutMs: 1000, limits: LIMITS, keepFullResults: true });
		expect(ran.outcomes[0]).toMatchObject({ isError: true, trimmed: { shown: 1000, total: 2000 + 'The tool call failed: '.length } });
		expect(ran.fullResults?.a).toBe(`The tool call failed: ${long(2000)}`);
	});
});

const TOOLS = buildCatalog([{ id: 's1', name: 'files', tools: [{ name: 'read', inputSchema: { type: 'object' } }] }]).tools;

/** Anthropic-shaped: one read call per turn for `calls` turns, then "done". */
function model(calls: number): ModelClient {
	let index = 0;
	return {
		listModels: async () => [],
		send: async () => {
			index += 1;
			const usage = { input_tokens: 1, output_tokens: 1 };
			if (index > calls) return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage };
			return { content: [{ type: 'tool_use', id: 'same_id', name: 'read', input: {} }], stop_reason: 'tool_use', usage };
		},
	};
}

describe('Full Tool Results in Output', () => {
	const newRun = () =>
		createRun({
			provider: 'anthropic',
			settings: { model: 'm', maxIterations: 5, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000 },
			tools: TOOLS,
			userMessage: 'read it',
		});

	it('puts the untrimmed result on each tool log entry of the output, and never in the run state', async () => {
		const full = new FullResults();
		const texts = [long(4000), `second ${long(1500)}`];
		let turn = 0;
		const final = await runAgent(newRun(), {
			model: model(2),
			// The same call id in two turns (some compatible servers number calls per turn): told apart by iteration.
			runTools: async (calls, iteration): Promise<ToolRunResult> => {
				const ran = await runToolCalls(calls, { connections: new Map([['s1', connection(texts[turn++])]]), concurrency: 1, timeoutMs: 1000, limits: LIMITS, keepFullResults: true });
				full.keep(iteration, ran.fullResults);
				return ran;
			},
		});
		expect(final.phase).toMatchObject({ name: 'finished', status: 'completed' });
		const stored = JSON.stringify(final);
		expect(stored).not.toContain(long(1001));
		expect(stored).toContain('you see the first 1000 of 4000 characters');
		expect(final.toolLog.map((entry) => entry.resultTrimmed)).toEqual([
			{ shownChars: 1000, totalChars: 4000 },
			{ shownChars: 1000, totalChars: texts[1].length },
		]);
		const output = full.attachTo(final.toolLog);
		expect(output.map((entry) => entry.result)).toEqual(texts);
		expect(final.toolLog[0]).not.toHaveProperty('result');
	});

	it('says why a call that ran before a pause has no full result, and adds nothing to a call that never ran', () => {
		const entry = (id: string, extra: Partial<ToolLogEntry>): ToolLogEntry => ({ iteration: 1, id, tool: 'read', arguments: {}, isError: false, resultSummary: '', durationMs: 0, ...extra });
		const full = new FullResults();
		full.keep(2, { b: 'all of it' });
		const log = [entry('a', { allowedBy: { by: 'policy' } }), { ...entry('b', { allowedBy: { by: 'policy' } }), iteration: 2 }, entry('c', { isError: true })];
		expect(full.attachTo(log).map((e) => [e.id, e.result, e.resultNotKept])).toEqual([
			['a', undefined, RESULT_NOT_KEPT],
			['b', 'all of it', undefined],
			['c', undefined, undefined],
		]);
	});
});
