// The benchmark's pure figure functions (bench/lib/derive.js, targets.js, report.js): every median
// and ratio comes from the samples the results keep, the raw SDK comparisons pair warm with warm
// and cold with cold, and the report's prose carries no figure that this run did not measure.

export {};

const { analyseCallTool, deriveAgentConfig, deriveResults, deriveWarm, medianCi } = require('../../bench/lib/derive');
const { evaluateTargets, rawBaseline, rawSdkComparisons } = require('../../bench/lib/targets');
const { renderMarkdown, renderReadmePerformance } = require('../../bench/lib/report');

const rss = { before: 100 * 2 ** 20, after: 101 * 2 ** 20, peakSampled: 104 * 2 ** 20, peakKernel: null, samples: 1 };
const sample = (nodeMs: number, cpuMs = 10) => ({ nodeMs, wallMs: nodeMs + 50, executionMs: nodeMs + 5, executionDataChars: 1000, cpuMs, rss });
const keptRun = (callsMs: number) => ({ callsMs, cpuMs: callsMs });
const freshRun = (totalMs: number) => ({ connectMs: totalMs / 2, listMs: 5, callsMs: totalMs / 4, closeMs: totalMs / 4 - 5, totalMs, cpuMs: totalMs });

const DEFS = [
	{ key: 'empty-1000', kind: 'empty', items: 1000 },
	{ key: 'ours-stdio-c1-fields-1000', kind: 'ours', transport: 'stdio', concurrency: 1, args: 'fields', items: 1000, keep: true },
	{ key: 'ours-stdio-c1-expression-1000', kind: 'ours', transport: 'stdio', concurrency: 1, args: 'expression', items: 1000, keep: true },
	{ key: 'ours-stdio-c1-fields-cold-1000', kind: 'ours', transport: 'stdio', concurrency: 1, args: 'fields', items: 1000, keep: false },
	{ key: 'builtin-http-1000', kind: 'builtin', transport: 'http', concurrency: 1, items: 1000 },
	{ key: 'nodesmcp-stdio-20', kind: 'nodesMcp', transport: 'stdio', concurrency: 1, items: 20 },
];
const SAMPLES = {
	'empty-1000': [sample(0), sample(0), sample(0)],
	'ours-stdio-c1-fields-1000': [sample(140), sample(100), sample(120), sample(130)],
	'ours-stdio-c1-expression-1000': [sample(600), sample(620), sample(640)],
	'ours-stdio-c1-fields-cold-1000': [sample(700), sample(800), sample(900)],
	'builtin-http-1000': [sample(4000), sample(4200), sample(4100)],
	'nodesmcp-stdio-20': [sample(11000), sample(11400)],
};
const RAW_RUNS = {
	'raw-stdio-c1-1000': { client: 'raw', transport: 'stdio', concurrency: 1, items: 1000, runs: [freshRun(520), freshRun(540), freshRun(560)] },
	'raw-stdio-c1-kept-1000': { client: 'raw', transport: 'stdio', concurrency: 1, items: 1000, kept: true, runs: [keptRun(160), keptRun(170), keptRun(180)] },
	'raw-http-c1-1000': { client: 'raw', transport: 'http', concurrency: 1, items: 1000, runs: [freshRun(2500), freshRun(2600)] },
};

function callToolResult(): any {
	return { ...analyseCallTool(DEFS, SAMPLES, RAW_RUNS), samples: SAMPLES, rawRuns: RAW_RUNS };
}

function agentConfig(): any {
	const ours = { cpu: [1.2, 1.1, 1.3, 1.25, 1.15], wall: [1.3, 1.2, 1.4, 1.35, 1.25] };
	const raw = { cpu: [1.0, 1.0, 1.0, 1.0, 1.0], wall: [1.1, 1.1, 1.1, 1.1, 1.1] };
	return deriveAgentConfig({ provider: 'anthropic', mode: 'sdk', turns: 10, runs: 20, batch: 4, warmupRuns: 500, samples: { ours, raw } });
}

function results(): any {
	return deriveResults({
		meta: {
			date: '2026-12-02T00:00:00.000Z',
			package: 'n8n-nodes-mcp-agent@0.0.0',
			commit: 'test',
			machine: { cpu: 'Test CPU', cores: 7, memoryGb: 1, os: 'Test' },
			loadAverageStart: [0.5, 0.5, 0.5],
			loadAverageEnd: [0.6, 0.6, 0.6],
			node: { orchestrator: 'v20', benchmarks: 'v24' },
			n8n: '2.41.1',
			quick: false,
		},
		callTool: callToolResult(),
		agent: { configs: [agentConfig()] },
	});
}

describe('bench: raw SDK comparisons are like for like', () => {
	it('pairs our node on a kept connection with the raw client on a kept connection (calls only), and the cold path with the raw client’s whole run', () => {
		const call = callToolResult();
		const rows = rawSdkComparisons(call);
		const warm = rows.find((r: any) => r.ours.key === 'ours-stdio-c1-fields-1000');
		const cold = rows.find((r: any) => r.ours.key === 'ours-stdio-c1-fields-cold-1000');
		expect(warm).toMatchObject({ comparison: 'warm', oursMs: 125, rawMs: 170 });
		expect(warm.raw.key).toBe('raw-stdio-c1-kept-1000');
		expect(warm.ratio).toBeCloseTo(125 / 170);
		expect(cold).toMatchObject({ comparison: 'cold', oursMs: 800, rawMs: 540 });
		expect(cold.raw.key).toBe('raw-stdio-c1-1000');
		expect(cold.ratio).toBeCloseTo(800 / 540);
	});

	it('compares n8n’s MCP Client (a connection per execution) cold, and a raw kept run warm', () => {
		const call = callToolResult();
		expect(rawBaseline(call, call.variants.find((v: any) => v.key === 'builtin-http-1000'))).toMatchObject({ comparison: 'cold', rawMs: 2550 });
		expect(rawBaseline(call, call.raw.find((r: any) => r.key === 'raw-stdio-c1-kept-1000'))).toMatchObject({ comparison: 'warm', rawMs: 170 });
	});

	it('gives the targets the paired ratios, and no ratio at all when the matching raw run is missing', () => {
		const r = results();
		const targets = evaluateTargets(r);
		const warm = targets.find((t: any) => t.id === 'sequential-vs-raw-stdio-fields');
		const cold = targets.find((t: any) => t.id === 'sequential-vs-raw-stdio-fields-cold');
		expect(warm.value).toBeCloseTo(125 / 170);
		expect(warm.target).toContain('warm vs warm');
		expect(warm.met).toBe(true);
		expect(cold.value).toBeCloseTo(800 / 540);
		expect(cold.target).toContain('cold vs cold');
		expect(cold.met).toBe(false);

		const withoutKept = { ...r, callTool: { ...r.callTool, raw: r.callTool.raw.filter((e: any) => !e.kept) } };
		const unmeasured = evaluateTargets(withoutKept).find((t: any) => t.id === 'sequential-vs-raw-stdio-fields');
		expect(unmeasured.met).toBeNull();
		expect(unmeasured.measured).toMatch(/^not measured/);
	});
});

describe('bench: every figure is recomputed from the stored samples', () => {
	it('recomputes the Call Tool medians from the samples, whatever median was stored', () => {
		const call = callToolResult();
		const tampered = { ...call, variants: call.variants.map((v: any) => ({ ...v, nodeMs: 1, perCallMs: 1 })), raw: call.raw.map((e: any) => ({ ...e, callsMs: 1, totalMs: 1 })) };
		const derived = deriveResults({ callTool: tampered }).callTool;
		const fields = derived.variants.find((v: any) => v.key === 'ours-stdio-c1-fields-1000');
		expect(fields.nodeMs).toBe(125);
		expect(fields.reps).toBe(4);
		expect(fields.perCallMs).toBeCloseTo(0.125);
		expect(fields.keep).toBe(true);
		expect(derived.variants.find((v: any) => v.key === 'nodesmcp-stdio-20').reps).toBe(2);
		const kept = derived.raw.find((e: any) => e.key === 'raw-stdio-c1-kept-1000');
		expect(kept).toMatchObject({ kept: true, callsMs: 170, totalMs: 170, reps: 3 });
		expect(Number.isNaN(kept.connectMs)).toBe(true);
		expect(derived.raw.find((e: any) => e.key === 'raw-stdio-c1-1000').totalMs).toBe(540);
	});

	it('recomputes the Agent paired ratio from the batches (adjacent pairs), with its confidence interval', () => {
		const c = agentConfig();
		expect(c.ratioCpuPaired).toBeCloseTo(1.2);
		expect(c.ratioCpu).toBeCloseTo(1.2);
		expect(c.ours.cpu.n).toBe(5);
		expect(c.ratioCpuPairedCi.low).toBeLessThanOrEqual(c.ratioCpuPaired);
		expect(c.ratioCpuPairedCi.high).toBeGreaterThanOrEqual(c.ratioCpuPaired);
		const again = deriveAgentConfig({ ...c, ratioCpuPaired: 99, ratioCpu: 99 });
		expect(again.ratioCpuPaired).toBeCloseTo(1.2);
		expect(again.ratioCpu).toBeCloseTo(1.2);
	});

	it('recomputes the warm execution medians from their samples', () => {
		const warm = deriveWarm({ reps: 3, coldReps: 3, results: { 'warm-stdio': { ms: [3, 1, 2], median: 99 } } });
		expect(warm.results['warm-stdio']).toMatchObject({ median: 2, n: 3 });
	});

	it('recomputes the one-execution, lean HTTP, 1,000-tool and scan figures from their samples', () => {
		const one = deriveResults({
			oneExecution: {
				variants: [{ key: 'ours-http-warm-1', part: 'oneItem', kind: 'ours', transport: 'http', keep: true, nodeMs: 99 }],
				samples: { 'ours-http-warm-1': [sample(7), sample(5), sample(6)] },
				noN8nSamples: { 'raw-warm-http': [3, 1, 2, 4] },
			},
		}).oneExecution;
		expect(one.variants[0]).toMatchObject({ nodeMs: 6, reps: 3, keep: true });
		expect(one.noN8n['raw-warm-http']).toMatchObject({ median: 2.5, n: 4 });

		const lean = deriveResults({ leanHttp: { servers: { minimal: { batches: { lean: [{ wall: 1, cpu: 1 }, { wall: 2, cpu: 1 }], sdk: [{ wall: 3, cpu: 2 }, { wall: 2, cpu: 4 }] } } } } }).leanHttp;
		expect(lean.servers.minimal.ratio).toEqual({ wall: 2, cpu: 3 });
		expect(lean.servers.minimal.lean.wallMs).toBe(1.5);

		const phase = (coldMs: number, warmSamples: number[]) => ({ coldMs, warmMs: 99, warmSamples, retainedMb: 0 });
		const many = deriveResults({
			manyTools: {
				phases: { list: phase(10, [4, 2, 3]), fingerprint: phase(5, [1, 1, 2]), compileValidators: { coldMs: 50, warmMs: null, cachedMs: 9, cachedSamples: [0.1, 0.3, 0.2], retainedMb: 0 } },
				handling: { names: ['list', 'fingerprint'], coldMs: 0, warmMs: 0 },
			},
		}).manyTools;
		expect(many.handling).toMatchObject({ coldMs: 15, warmMs: 4 });
		expect(many.phases.compileValidators.cachedMs).toBe(0.2);
		expect(many.handlingWithCompile.coldMs).toBe(65);

		const passes = (totals: number[]) => ({ passes: totals.map((totalMs, i) => ({ totalMs, maxStallMs: 10 + i })) });
		const scan = deriveResults({ scanListing: { runs: { benign: { catalog: passes([30, 10, 20]), listTools: passes([5]) }, hostile: { catalog: passes([60, 40, 50]), listTools: passes([6]) } } } }).scanListing;
		expect(scan.runs.benign.catalog).toMatchObject({ totalMs: 20, firstMaxStallMs: 10, laterMaxStallMs: 12 });
		expect(scan.hostileToBenign).toBe(2.5);
	});

	it('computes a distribution-free interval of the median, none for too few samples', () => {
		const values = Array.from({ length: 101 }, (_, i) => i);
		const ci = medianCi(values);
		expect(ci.low).toBeLessThan(50);
		expect(ci.high).toBeGreaterThan(50);
		expect(ci.high - ci.low).toBeLessThan(30);
		expect(Number.isNaN(medianCi([1, 2]).low)).toBe(true);
	});
});

describe('bench: the report says what this run measured', () => {
	const markdown = renderMarkdown({ ...results(), targets: evaluateTargets(results()) });

	it('prints how many runs each row is over, from the data', () => {
		const nodesMcpRow = markdown.split('\n').find((line: string) => line.startsWith('| n8n-nodes-mcp'));
		expect(nodesMcpRow.split('|').map((cell: string) => cell.trim())[4]).toBe('2');
		expect(markdown).toContain('(2, 3, 4 here)');
		expect(markdown).not.toMatch(/median of 5 runs/);
	});

	it('says what a kept connection’s node time covers, and which comparison each raw SDK row is', () => {
		expect(markdown).not.toContain('which covers credentials, connecting (spawning the server for stdio)');
		expect(markdown).toContain('no connect and no server start');
		expect(markdown).toMatch(/\| 0\.74× \(warm\) \|/);
		expect(markdown).toMatch(/\| 1\.48× \(cold\) \|/);
	});

	it('takes machine facts and spreads from the run, and prints no fixed figure as if measured', () => {
		expect(markdown).not.toMatch(/2-core VM|±0\.03|about 1\.3 ms|half a second/);
		expect(markdown).toContain('this run: 7 cores, load average 0.5 at the start, 0.6 at the end');
		expect(markdown).toMatch(/95% confidence interval of its median/);
		// The expression's cost per item: (620 - 125) / 1000 ms, from this run's samples.
		expect(markdown).toContain('0.495 ms more node time per item');
		expect(markdown).toContain('5 batches of 4 runs per side after 500 warm-up runs per side');
	});
});

describe("the README's Performance block (renderReadmePerformance)", () => {
	const meta = { date: '2026-12-03T00:00:00Z', machine: { cpu: 'cpu', cores: 2, memoryGb: 24, os: 'linux' }, node: { benchmarks: 'v24' }, n8n: '2.41.1', package: 'p@0', commit: 'abc' };
	const target = (id: string, met: boolean | null, measured: string, target = `target ${id}`) => ({ id, met, measured, target, value: 1 });

	it('one row per family, counting what was met and naming what was missed; a target of no family keeps its own row; supplementary rows left out', () => {
		const text = renderReadmePerformance({
			meta,
			targets: [
				target('tool-tokens-cache-anthropic-all', true, 'lowest 100.0% (turn 2); over turns 2–7: 100.0%'),
				target('tool-tokens-cache-openaiChat-search', false, 'lowest 75.3% (turn 2); over turns 2–10: 92.5%'),
				target('brand-new-target', true, '7 ms (median)', 'Something new: under 10 ms'),
				target('agent-overhead-http', false, 'worst 1.17×', 'supplementary: loopback'),
			],
		});
		expect(text).toContain('2 of 3 targets met');
		expect(text).toContain('| Prompt cache: ≥ 90% of the tool and system part read on every turn after the first | 1 of 2 met; missed: lowest 75.3% (openaiChat-search) | ❌ 1 missed |');
		expect(text).toContain('| Something new: under 10 ms | 1 of 1 met; 7 ms | ✅ met |');
		expect(text).not.toContain('1.17×');
	});
});
