// The tool-token benchmark's pure parts: the fakes' billing (bench/lib/tokenFake.js: prompt blocks
// in cache order, OpenAI's prefix cache, Anthropic's breakpoints), and the figures, targets and
// report section from a run's per-turn samples (derive.js, targets.js, toolTokensReport.js).

export {};

const { promptBlocks, openAiCache, anthropicCache, searchDeferred, normalizedCalls, offeredNames } = require('../../bench/lib/tokenFake');
const { deriveToolTokens, deriveToolTokensRun, deriveResults } = require('../../bench/lib/derive');
const { toolTokensTargets } = require('../../bench/lib/targets');
const { toolTokensSection } = require('../../bench/lib/toolTokensReport');

/** Blocks of a given token count each (token ids from a per-text counter, so equal texts give equal tokens). */
const blocks = (specs: Array<[string, number, boolean?]>) => specs.map(([text, n, breakpoint]) => ({ part: 'tools', text, breakpoint: Boolean(breakpoint), tokens: Array.from({ length: n }, (_, i) => `${text}#${i}`) }));

describe('tokenFake billing', () => {
	test('the prompt is read in cache order (tools, system, messages) without cache_control markers', () => {
		const body = {
			system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
			messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] }],
			tools: [{ name: 'a', input_schema: { type: 'object' } }, { name: 'b', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
		};
		const got = promptBlocks('anthropic', body);
		expect(got.map((b: any) => [b.part, b.breakpoint])).toEqual([['tools', false], ['tools', true], ['system', true], ['messages', false], ['messages', false]]);
		expect(got.some((b: any) => b.text.includes('cache_control'))).toBe(false);
		expect(got.every((b: any) => b.tokens.length > 0)).toBe(true);
		const chat = promptBlocks('openaiChat', { messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }], tools: [{ type: 'function', function: { name: 'a' } }] });
		expect(chat.map((b: any) => b.part)).toEqual(['tools', 'system', 'messages']);
		const responses = promptBlocks('openaiResponses', { instructions: 's', input: [{ role: 'user', content: 'u' }], tools: [{ type: 'function', name: 'a' }] });
		expect(responses.map((b: any) => b.part)).toEqual(['tools', 'system', 'messages']);
	});

	test('OpenAI reads the longest common prefix in 128-token steps, nothing below 1,024 tokens', () => {
		const bill = openAiCache();
		expect(bill(blocks([['tools', 1500], ['m1', 10]]))).toEqual({ total: 1510, read: 0, write: 0 });
		// 1,500 common tokens: 11 steps of 128.
		expect(bill(blocks([['tools', 1500], ['m2', 10]]))).toEqual({ total: 1510, read: 1408, write: 0 });
		const small = openAiCache();
		small(blocks([['tools', 1000], ['m1', 10]]));
		expect(small(blocks([['tools', 1000], ['m2', 10]])).read).toBe(0);
	});

	test('Anthropic reads a prefix written at a breakpoint, also one up to 20 blocks back, and writes the rest up to its last breakpoint', () => {
		const bill = anthropicCache();
		expect(bill(blocks([['t1', 800], ['t2', 400, true], ['sys', 100, true], ['m1', 10]]))).toEqual({ total: 1310, read: 0, write: 1300 });
		expect(bill(blocks([['t1', 800], ['t2', 400, true], ['sys', 100, true], ['m2', 10]]))).toEqual({ total: 1310, read: 1300, write: 0 });
		// A tool appended after t2 moves the tools' breakpoint: the prefix up to t2 is still found one block back.
		expect(bill(blocks([['t1', 800], ['t2', 400], ['t3', 50, true], ['sys', 100, true], ['m2', 10]]))).toEqual({ total: 1360, read: 1200, write: 150 });
		// A prefix below 1,024 tokens is never written.
		const small = anthropicCache();
		small(blocks([['t1', 500, true], ['sys', 100, true]]));
		expect(small(blocks([['t1', 500, true], ['sys', 100, true]]))).toEqual({ total: 600, read: 0, write: 0 });
	});
});

const run = (provider: string, loading: string, promptTokens: number[], cacheReadTokens: number[], toolsTokens: number[], systemTokens: number[]) => ({
	provider,
	loading,
	turns: promptTokens.length,
	samples: { promptTokens, cacheReadTokens, cacheWriteTokens: promptTokens.map(() => 0), toolsTokens, systemTokens, messagesTokens: promptTokens.map(() => 10), offeredTools: promptTokens.map(() => 3) },
	found: loading !== 'all' ? { lookup_parcel_tracking: { searches: 1, turn: loading === 'native' ? 1 : 2, firstNeededTurn: 1 } } : {},
});

function part(): any {
	return {
		tokenizer: 'gpt-tokenizer 4.0.0, o200k_base',
		cache: { openAiMin: 1024, openAiStep: 128, anthropicMin: 1024, anthropicLookbackBlocks: 20 },
		servers: [{ name: 'shop', tools: 1003, instructionsChars: 0 }, { name: 'ops', tools: 5, instructionsChars: 0 }],
		catalogTools: 1008,
		neededCalls: ['lookup_parcel_tracking', 'lookup_parcel_tracking'],
		runs: [
			run('openaiChat', 'all', [50_000, 50_100, 50_200], [0, 49_920, 50_048], [49_000, 49_000, 49_000], [900, 900, 900]),
			run('openaiChat', 'search', [2_000, 2_100, 2_200, 2_300], [0, 1_500, 2_048, 2_176], [1_500, 1_600, 1_600, 1_600], [300, 300, 300, 300]),
		],
	};
}

describe("tokenFake under the provider's own tool search", () => {
	const parcel = { name: 'lookup_parcel_tracking', description: 'Finds where a parcel is, by tracking number.', input_schema: { type: 'object', properties: { trackingNumber: { type: 'string' } } }, defer_loading: true };
	const invoice = { name: 'invoice_get_0001', description: 'Gets invoice records of the company account.', input_schema: { type: 'object' }, defer_loading: true };
	const time = { name: 'get_current_time', description: 'Returns the current time in UTC.', input_schema: { type: 'object' } };
	const bm25 = { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25', cache_control: { type: 'ephemeral' } };

	test('deferred tools are not in the prompt; a tool_reference is billed as the definition it loads', () => {
		const before = { tools: [time, bm25, parcel, invoice], messages: [{ role: 'user', content: 'where is my parcel?' }] };
		const start = promptBlocks('anthropic', before);
		expect(start.filter((b: any) => b.part === 'tools').map((b: any) => JSON.parse(b.text).name)).toEqual(['get_current_time', 'tool_search_tool_bm25']);
		const answer = {
			role: 'assistant',
			content: [
				{ type: 'server_tool_use', id: 's1', name: 'tool_search_tool_bm25', input: { query: 'parcel' } },
				{ type: 'tool_search_tool_result', tool_use_id: 's1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'lookup_parcel_tracking' }] } },
			],
		};
		const after = promptBlocks('anthropic', { ...before, messages: [...before.messages, answer] });
		const result = after.find((b: any) => b.text.includes('tool_search_tool_result'));
		expect(result.text).toContain('"description":"Finds where a parcel is, by tracking number."');
		expect(result.text).not.toContain('defer_loading');
		expect(after.some((b: any) => b.text.includes('invoice_get_0001'))).toBe(false);
		// Responses: the deferred functions left out; the loaded definitions are in the tool_search_output item.
		const responses = promptBlocks('openaiResponses', { tools: [{ type: 'function', name: 'get_current_time' }, { type: 'tool_search' }, { type: 'function', name: 'lookup_parcel_tracking', defer_loading: true }], input: [{ role: 'user', content: 'u' }] });
		expect(responses.filter((b: any) => b.part === 'tools').map((b: any) => b.text)).toEqual(['{"type":"function","name":"get_current_time"}', '{"type":"tool_search"}']);
	});

	test('the emulated search ranks deferred tools by shared words; the conversation\'s searches and what they found are read back', () => {
		expect(searchDeferred([time, parcel, invoice], 'where is my parcel, by tracking number').map((t: any) => t.name)).toEqual(['lookup_parcel_tracking']);
		expect(searchDeferred([time, parcel, invoice], 'what time is it')).toEqual([]);
		const body = {
			tools: [time, bm25, parcel],
			messages: [
				{ role: 'user', content: 'x' },
				{ role: 'assistant', content: [{ type: 'server_tool_use', id: 's1', name: 'tool_search_tool_bm25', input: { query: 'parcel' } }, { type: 'tool_search_tool_result', tool_use_id: 's1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'lookup_parcel_tracking' }] } }, { type: 'tool_use', id: 't1', name: 'lookup_parcel_tracking', input: {} }] },
			],
		};
		const calls = normalizedCalls('anthropic', body);
		expect(calls).toEqual([{ search: { query: 'parcel' }, found: ['lookup_parcel_tracking'] }, { name: 'lookup_parcel_tracking', arguments: {} }]);
		expect(offeredNames('anthropic', body, calls)).toEqual(['get_current_time', 'tool_search_tool_bm25', 'lookup_parcel_tracking']);
		const input = [{ type: 'tool_search_call', arguments: { query: 'parcel' } }, { type: 'tool_search_output', tools: [{ type: 'function', name: 'lookup_parcel_tracking' }] }, { type: 'function_call', name: 'lookup_parcel_tracking', arguments: '{}' }];
		expect(normalizedCalls('openaiResponses', { input })).toEqual([{ search: { query: 'parcel' }, found: ['lookup_parcel_tracking'] }, { name: 'lookup_parcel_tracking', arguments: {} }]);
	});
});

describe('toolTokens figures', () => {
	test('totals and the cached share of the tool + system part come from the per-turn samples', () => {
		const r = deriveToolTokensRun(part().runs[1]);
		expect(r.promptTokens).toBe(8_600);
		expect(r.cacheReadTokens).toBe(5_724);
		expect(r.uncachedTokens).toBe(2_876);
		expect(r.toolsSystemTokens).toEqual([1_800, 1_900, 1_900, 1_900]);
		// A read past the tool + system part counts as all of it, never more.
		expect(r.cachedShares).toEqual([null, 1_500 / 1_900, 1, 1]);
		expect(r.cachedShare).toBeCloseTo((1_500 + 1_900 + 1_900) / 5_700, 10);
		expect(r.lowestCachedShare).toEqual({ share: 1_500 / 1_900, turn: 2 });
	});

	test('search against all tools over the conversation, per provider; recomputed the same from a stored result', () => {
		const derived = deriveToolTokens(part());
		expect(derived.comparisons).toEqual([{ provider: 'openaiChat', ratio: 8_600 / 150_300, uncachedRatio: 2_876 / (150_300 - 99_968), perTurnRatio: 2_150 / 50_100 }]);
		const again = deriveResults(JSON.parse(JSON.stringify({ toolTokens: derived }))).toolTokens;
		expect(again.comparisons).toEqual(derived.comparisons);
		expect(again.runs.map((r: any) => r.cachedShare)).toEqual(derived.runs.map((r: any) => r.cachedShare));
	});

	test('targets: search ≤ 10% of all tools; every turn after the first ≥ 90% of the tool + system part read from the cache', () => {
		const targets = toolTokensTargets(deriveToolTokens(part()));
		const byId = Object.fromEntries(targets.map((t: any) => [t.id, t]));
		expect(byId['tool-tokens-search-openaiChat'].met).toBe(true);
		expect(byId['tool-tokens-search-openaiChat'].measured).toContain('5.7%');
		expect(byId['tool-tokens-cache-openaiChat-all'].met).toBe(true);
		// 1,500 of 1,900 on turn 2: the lowest turn decides.
		expect(byId['tool-tokens-cache-openaiChat-search'].met).toBe(false);
		expect(byId['tool-tokens-cache-openaiChat-search'].measured).toContain('lowest 78.9% (turn 2)');
		const heavy = part();
		heavy.runs[1].samples.promptTokens = [20_000, 20_000, 20_000, 20_000];
		expect(toolTokensTargets(deriveToolTokens(heavy)).find((t: any) => t.id === 'tool-tokens-search-openaiChat').met).toBe(false);
		expect(toolTokensTargets(undefined)).toEqual([]);
	});

	test("the provider's own search: compared with All Tools, a target of its own, a row in the report", () => {
		const withNative = part();
		withNative.runs.push(run('openaiChat', 'native', [1_000, 1_100, 1_200], [0, 1_024, 1_024], [600, 600, 600], [300, 300, 300]));
		const derived = deriveToolTokens(withNative);
		expect(derived.comparisons[0]).toMatchObject({ provider: 'openaiChat', ratio: 8_600 / 150_300, nativeRatio: 3_300 / 150_300 });
		const target = toolTokensTargets(derived).find((t: any) => t.id === 'tool-tokens-native-openaiChat');
		expect(target).toMatchObject({ met: true, value: 3_300 / 150_300 });
		expect(target.measured).toContain('2.2% (3,300 tokens in 3 turns vs 150,300 in 3)');
		expect(toolTokensTargets(derived).find((t: any) => t.id === 'tool-tokens-cache-openaiChat-native').target).toContain("Search, provider's own");
		const text = toolTokensSection(derived);
		expect(text).toContain("| OpenAI Chat Completions | Search, provider's own | 3 | 3,300 |");
		expect(text).toContain('**2.2%**');
		expect(text).toContain("OpenAI Chat Completions (provider's own): `lookup_parcel_tracking` 1 turn (1 search, called on turn 1)");
		expect(toolTokensSection(deriveToolTokens(part()))).not.toContain("Search, provider's own");
	});

	test("the report section prints this run's numbers, none it did not measure", () => {
		const text = toolTokensSection(deriveToolTokens(part()));
		expect(text).toContain('1,003-tool server');
		expect(text).toContain('| OpenAI Chat Completions | Search | 4 | 8,600 |');
		expect(text).toContain('**5.7%**');
		expect(text).toContain('`lookup_parcel_tracking` 2 turns (1 search, called on turn 2)');
		expect(text).toContain('gpt-tokenizer 4.0.0, o200k_base');
		// Every number in the prose is one of the run's own figures.
		const other = part();
		other.cache = { openAiMin: 2048, openAiStep: 64, anthropicMin: 4096, anthropicLookbackBlocks: 7 };
		const changed = toolTokensSection(deriveToolTokens(other));
		expect(changed).toContain('64-token steps from 2,048 tokens');
		expect(changed).toContain('at least 4,096 tokens');
		expect(changed).toContain('up to 7 blocks');
		expect(changed).not.toContain('1,024');
	});
});
