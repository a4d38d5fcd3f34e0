'use strict';
// Every figure of the report from the samples a run keeps. Each part stores its samples (arrays,
// one entry per measured run, batch or call) in the results, and the medians, ratios and sums the
// report and the targets print are computed here from them: by the run itself, and again by
// `--render` from bench/results/latest.json, so anyone can recompute every number from that file.
// Pure functions of the results (no I/O), shared with the child scripts.

const { median, quantile, summary } = require('./common');

const finite = (values) => values.filter((v) => Number.isFinite(v));
/** Median over the finite values (a phase a run does not have is left out, not counted as 0). */
const medianOf = (values) => median(finite(values));

/**
 * Distribution-free 95% confidence interval of a median (order statistics of the binomial,
 * normal approximation): the spread this run's own samples allow, not a run-to-run figure.
 */
function medianCi(values, z = 1.96) {
	const s = finite(values).sort((a, b) => a - b);
	const n = s.length;
	if (n < 3) return { low: NaN, high: NaN, n };
	const half = (z * Math.sqrt(n)) / 2;
	const lo = Math.max(0, Math.floor(n / 2 - half));
	const hi = Math.min(n - 1, Math.ceil(n / 2 + half) - 1);
	return { low: s[lo], high: s[hi], n };
}

// ---- part 1: MCP Call Tool, 1,000 items (suites/callTool.js) --------------------------------------

const CALL_TOOL_ITEMS = 1000;
const VARIANT_FIELDS = ['key', 'kind', 'transport', 'concurrency', 'args', 'items', 'keep'];

/**
 * Medians and per-call figures of the Call Tool part.
 * @param defs     [{ key, kind, transport, concurrency, args, items, keep }] the variants measured
 * @param samples  { [key]: [{ nodeMs, wallMs, executionMs, executionDataChars, cpuMs, rss }] }
 * @param rawRuns  { [key]: { client, transport, concurrency, items, kept, runs: [{ connectMs?, listMs?, callsMs, closeMs?, totalMs?, cpuMs }] } }
 */
function analyseCallTool(defs, samples, rawRuns) {
	const empty = samples['empty-1000'] ?? [];
	const emptyWall = median(empty.map((s) => s.wallMs));
	const emptyCpu = median(empty.map((s) => s.cpuMs));
	const peak = (s) => Math.max(s.rss.peakSampled, s.rss.peakKernel ?? 0);
	const variants = defs.map((variant) => {
		const list = samples[variant.key] ?? [];
		const nodeMs = median(list.map((s) => s.nodeMs));
		const wallMs = median(list.map((s) => s.wallMs));
		const cpuMs = median(list.map((s) => s.cpuMs));
		const calls = variant.items;
		return {
			key: variant.key,
			kind: variant.kind,
			transport: variant.transport ?? null,
			concurrency: variant.concurrency ?? null,
			args: variant.args ?? null,
			items: variant.items,
			keep: variant.keep ?? null,
			reps: list.length,
			nodeMs,
			perCallMs: variant.kind === 'empty' ? null : nodeMs / calls,
			wallMs,
			wallPerCallMinusEmptyMs: variant.kind === 'empty' || variant.items !== CALL_TOOL_ITEMS ? null : (wallMs - emptyWall) / calls,
			executionMs: median(list.map((s) => s.executionMs)),
			cpuMs,
			cpuPerCallMinusEmptyMs: variant.kind === 'empty' ? null : (cpuMs - (variant.items === CALL_TOOL_ITEMS ? emptyCpu : 0)) / calls,
			executionDataChars: median(list.map((s) => s.executionDataChars)),
			rss: {
				beforeMb: median(list.map((s) => s.rss.before)) / 2 ** 20,
				peakMb: median(list.map(peak)) / 2 ** 20,
				peakDeltaMb: median(list.map((s) => peak(s) - s.rss.before)) / 2 ** 20,
				peakDeltaMaxMb: Math.max(...list.map((s) => peak(s) - s.rss.before)) / 2 ** 20,
				kernelPeak: list.every((s) => s.rss.peakKernel !== null),
			},
		};
	});
	const raw = Object.entries(rawRuns ?? {}).map(([key, r]) => {
		const phase = (name) => medianOf(r.runs.map((run) => run[name]));
		return {
			key,
			client: r.client,
			transport: r.transport,
			concurrency: r.concurrency,
			items: r.items,
			kept: Boolean(r.kept),
			reps: r.runs.length,
			// A kept connection's run is only its calls: its total is its calls' time.
			totalMs: r.kept ? phase('callsMs') : phase('totalMs'),
			connectMs: phase('connectMs'),
			listMs: phase('listMs'),
			callsMs: phase('callsMs'),
			closeMs: phase('closeMs'),
			perCallMs: (r.kept ? phase('callsMs') : phase('totalMs')) / r.items,
			perCallCallsOnlyMs: phase('callsMs') / r.items,
			cpuMs: phase('cpuMs'),
			cpuPerCallMs: phase('cpuMs') / r.items,
		};
	});
	return { emptyWallMs: emptyWall, emptyCpuMs: emptyCpu, variants, raw };
}

function deriveCallTool(call) {
	if (!call.samples) return call;
	const defs = call.variants.map((v) => Object.fromEntries(VARIANT_FIELDS.map((f) => [f, v[f]])));
	return { ...call, ...analyseCallTool(defs, call.samples, call.rawRuns) };
}

// ---- part 2: Agent host overhead (scripts/agent-overhead.js) ----------------------------------------

/**
 * One provider × model path × turns row from its batches (`samples.ours` and `samples.raw`, each
 * { cpu: [...], wall: [...] } per run of a batch, in ms; batch i of ours ran next to batch i of raw).
 */
function deriveAgentConfig(c) {
	if (!c.samples) return c;
	const { ours, raw } = c.samples;
	const side = (s) => {
		const cpu = summary(s.cpu);
		const wall = summary(s.wall);
		return { cpu, wall, cpuPerTurnMs: cpu.median / c.turns, wallPerTurnMs: wall.median / c.turns };
	};
	const o = side(ours);
	const r = side(raw);
	const pairs = ours.cpu.map((cpu, i) => cpu / raw.cpu[i]);
	return {
		...c,
		batches: pairs.length,
		ours: o,
		raw: r,
		ratioCpu: o.cpu.median / r.cpu.median,
		ratioCpuPaired: median(pairs),
		ratioCpuPairedCi: medianCi(pairs),
		ratioCpuPairedIqr: { p25: quantile(pairs, 0.25), p75: quantile(pairs, 0.75) },
		ratioWall: o.wall.median / r.wall.median,
		overheadPerTurnCpuMs: (o.cpu.median - r.cpu.median) / c.turns,
	};
}

function deriveAgent(agent) {
	return { ...agent, configs: agent.configs.map(deriveAgentConfig) };
}

// ---- part 5: one execution without n8n (scripts/warm-execution.js) -----------------------------------

function deriveWarm(warm) {
	const results = Object.fromEntries(Object.entries(warm.results).map(([key, v]) => [key, v.ms ? { ...v, median: median(v.ms), n: v.ms.length } : v]));
	return { ...warm, results };
}

// ---- part 6: the lean HTTP path (scripts/lean-transport.js) -------------------------------------------

/** One server's comparison from its batches ({ lean: [{ wall, cpu }], sdk: [...] }, per call, adjacent by index). */
function deriveLeanServer(server) {
	if (!server.batches) return server;
	const { lean, sdk } = server.batches;
	const side = (list) => ({ wallMs: median(list.map((b) => b.wall)), cpuMs: median(list.map((b) => b.cpu)) });
	const paired = (key) => lean.map((b, i) => sdk[i][key] / b[key]);
	return {
		...server,
		lean: side(lean),
		sdk: side(sdk),
		ratio: { wall: median(paired('wall')), cpu: median(paired('cpu')) },
		ratioCi: { wall: medianCi(paired('wall')), cpu: medianCi(paired('cpu')) },
	};
}

function deriveLean(lean) {
	return { ...lean, servers: Object.fromEntries(Object.entries(lean.servers).map(([name, s]) => [name, deriveLeanServer(s)])) };
}

// ---- part 3: 1,000 tools (scripts/many-tools.js) -----------------------------------------------------

function derivePhase(p) {
	if (!p) return p;
	const out = { ...p };
	if (Array.isArray(p.warmSamples)) out.warmMs = median(p.warmSamples);
	if (Array.isArray(p.cachedSamples)) out.cachedMs = median(p.cachedSamples);
	return out;
}

function deriveManyTools(many) {
	const phases = Object.fromEntries(Object.entries(many.phases).map(([k, p]) => [k, derivePhase(p)]));
	const whatIf = many.whatIf ? Object.fromEntries(Object.entries(many.whatIf).map(([k, p]) => [k, derivePhase(p)])) : many.whatIf;
	const names = many.handling?.names ?? [];
	const sum = (key) => names.reduce((total, name) => total + phases[name][key], 0);
	return {
		...many,
		phases,
		whatIf,
		handling: { names, coldMs: sum('coldMs'), warmMs: sum('warmMs') },
		handlingWithCompile: { coldMs: sum('coldMs') + (phases.compileValidators?.coldMs ?? NaN) },
	};
}

// ---- part 3b: the poisoning scan (scripts/scan-listing.js) ---------------------------------------------

/** One listing's passes ([{ totalMs, maxStallMs }], the first in the process first). */
function scanSummary(passes) {
	return {
		passes,
		totalMs: median(passes.map((r) => r.totalMs)),
		maxStallMs: Math.max(...passes.map((r) => r.maxStallMs)),
		firstTotalMs: passes[0].totalMs,
		firstMaxStallMs: passes[0].maxStallMs,
		laterMaxStallMs: passes.length > 1 ? Math.max(...passes.slice(1).map((r) => r.maxStallMs)) : null,
	};
}

function deriveScanListing(scan) {
	const runs = Object.fromEntries(
		Object.entries(scan.runs).map(([kind, byKey]) => [kind, Object.fromEntries(Object.entries(byKey).map(([key, r]) => [key, r.passes ? scanSummary(r.passes) : r]))]),
	);
	return { ...scan, runs, hostileToBenign: runs.hostile.catalog.totalMs / runs.benign.catalog.totalMs };
}

// ---- part 5: one execution in n8n (suites/oneExecution.js) ---------------------------------------------

const ONE_EXECUTION_FIELDS = ['key', 'part', 'kind', 'transport', 'keep'];

/**
 * The Agent comparisons that go by paired ratios (numerator ÷ denominator, one pair per round):
 * ours through n8n's OpenAI Chat Model sub-node against n8n's AI Agent on the same sub-node, and
 * against ours with the built-in OpenAI Chat Completions provider.
 */
const AGENT_PAIRS = [
	{ id: 'chatModelVsN8n', numerator: 'agent-ours-chatmodel-http', denominator: 'agent-n8n-http' },
	{ id: 'chatModelVsBuiltIn', numerator: 'agent-ours-chatmodel-http', denominator: 'agent-ours-http' },
];

/**
 * @param defs          [{ key, part, kind, transport, keep }]
 * @param samples       { [key]: [{ nodeMs, wallMs, executionMs, cpuMs, rootSumMs?, round? }] }
 * @param noN8nSamples  { [key]: [ms, ...] } (scripts/warm-execution.js, once a round)
 */
function analyseOneExecution(defs, samples, noN8nSamples) {
	const variants = defs.map((variant) => {
		const list = samples[variant.key] ?? [];
		const out = {
			key: variant.key,
			part: variant.part,
			kind: variant.kind,
			transport: variant.transport,
			keep: variant.keep ?? null,
			reps: list.length,
			nodeMs: median(list.map((s) => s.nodeMs)),
			wallMs: median(list.map((s) => s.wallMs)),
			executionMs: median(list.map((s) => s.executionMs)),
			cpuMs: median(list.map((s) => s.cpuMs)),
		};
		if (list[0]?.rootSumMs !== undefined) out.rootSumMs = median(list.map((s) => s.rootSumMs));
		return out;
	});
	const noN8n = Object.fromEntries(Object.entries(noN8nSamples ?? {}).map(([key, ms]) => [key, summary(ms)]));
	const agentPairs = Object.fromEntries(
		AGENT_PAIRS.filter(({ numerator, denominator }) => samples[numerator]?.length && samples[denominator]?.length).map(({ id, numerator, denominator }) => [
			id,
			{
				numerator,
				denominator,
				nodeMs: pairedSampleRatio(samples[numerator], samples[denominator], 'nodeMs'),
				wallMs: pairedSampleRatio(samples[numerator], samples[denominator], 'wallMs'),
			},
		]),
	);
	return { variants, noN8n, agentPairs };
}

/**
 * Median over rounds of a[field] ÷ b[field], the two samples of a pair taken in the same round (by
 * their `round`, else by position: every variant runs once a round), with its 95% interval: both
 * runs of a pair met the same state of a shared machine.
 */
function pairedSampleRatio(a, b, field) {
	const byRound = a.every((s) => Number.isInteger(s.round)) && b.every((s) => Number.isInteger(s.round));
	const other = byRound ? new Map(b.map((s) => [s.round, s])) : null;
	const ratios = [];
	a.forEach((s, i) => {
		const t = byRound ? other.get(s.round) : b[i];
		if (t && Number.isFinite(s[field]) && Number.isFinite(t[field]) && t[field] > 0) ratios.push(s[field] / t[field]);
	});
	return { median: median(ratios), ci: medianCi(ratios), n: ratios.length };
}

function deriveOneExecution(one) {
	if (!one.samples) return one;
	const defs = one.variants.map((v) => Object.fromEntries(ONE_EXECUTION_FIELDS.map((f) => [f, v[f]])));
	return { ...one, ...analyseOneExecution(defs, one.samples, one.noN8nSamples) };
}

// ---- part 7: approvals (suites/approvals.js) --------------------------------------------------------

function deriveApprovals(approvals) {
	const w = approvals.workload;
	if (!w?.timing?.batches) return approvals;
	const batches = w.timing.batches;
	const timing = { ...w.timing, agentMsPerCall: median(batches.map((b) => b.agentMs / b.calls)), wallMsPerCall: median(batches.map((b) => b.wallMs / b.calls)) };
	return { ...approvals, workload: { ...w, timing } };
}

// ---- toolTokens: tokens with every tool sent vs tool search (scripts/tool-tokens.js) -------------------

const sumOf = (values) => values.reduce((total, v) => total + v, 0);

/**
 * One conversation's figures from its per-turn samples: totals, and per turn after the first the
 * share of the request's tool and system part that was a cache read (a read longer than that part,
 * into the messages, counts as the whole part).
 */
function deriveToolTokensRun(run) {
	const s = run.samples;
	const head = s.toolsTokens.map((tools, i) => tools + s.systemTokens[i]);
	const cachedShares = head.map((tokens, i) => (i === 0 ? null : Math.min(s.cacheReadTokens[i], tokens) / tokens));
	const later = head.slice(1);
	const laterCached = later.map((tokens, i) => Math.min(s.cacheReadTokens[i + 1], tokens));
	let lowest = null;
	cachedShares.forEach((share, i) => {
		if (share !== null && (lowest === null || share < lowest.share)) lowest = { share, turn: i + 1 };
	});
	return {
		...run,
		promptTokens: sumOf(s.promptTokens),
		promptTokensPerTurn: median(s.promptTokens),
		cacheReadTokens: sumOf(s.cacheReadTokens),
		cacheWriteTokens: sumOf(s.cacheWriteTokens),
		uncachedTokens: sumOf(s.promptTokens) - sumOf(s.cacheReadTokens),
		toolsSystemTokens: head,
		cachedShares,
		cachedShare: later.length ? sumOf(laterCached) / sumOf(later) : NaN,
		lowestCachedShare: lowest,
	};
}

/** Every conversation's figures, and per provider API search against all tools over the conversation. */
function deriveToolTokens(part) {
	const runs = part.runs.map(deriveToolTokensRun);
	const providers = [...new Set(runs.map((r) => r.provider))];
	const comparisons = providers.map((provider) => {
		const all = runs.find((r) => r.provider === provider && r.loading === 'all');
		const search = runs.find((r) => r.provider === provider && r.loading === 'search');
		// Search with the provider's own tool search (Anthropic, Responses), against All Tools too.
		const native = runs.find((r) => r.provider === provider && r.loading === 'native');
		const nativeFigures = native && all ? { nativeRatio: native.promptTokens / all.promptTokens, nativeUncachedRatio: native.uncachedTokens / all.uncachedTokens } : {};
		if (!all || !search) return { provider, ratio: NaN, uncachedRatio: NaN, perTurnRatio: NaN, ...nativeFigures };
		return {
			provider,
			ratio: search.promptTokens / all.promptTokens,
			uncachedRatio: search.uncachedTokens / all.uncachedTokens,
			perTurnRatio: search.promptTokensPerTurn / all.promptTokensPerTurn,
			...nativeFigures,
		};
	});
	return { ...part, runs, comparisons };
}

/** The results with every derived figure recomputed from the samples they hold. */
function deriveResults(results) {
	const out = { ...results };
	if (out.callTool) out.callTool = deriveCallTool(out.callTool);
	if (out.agent) out.agent = deriveAgent(out.agent);
	if (out.agentRawV2) out.agentRawV2 = deriveAgent(out.agentRawV2);
	if (out.warm) out.warm = deriveWarm(out.warm);
	if (out.leanHttp) out.leanHttp = deriveLean(out.leanHttp);
	if (out.manyTools) out.manyTools = deriveManyTools(out.manyTools);
	if (out.scanListing) out.scanListing = deriveScanListing(out.scanListing);
	if (out.oneExecution) out.oneExecution = deriveOneExecution(out.oneExecution);
	if (out.approvals) out.approvals = deriveApprovals(out.approvals);
	if (out.toolTokens) out.toolTokens = deriveToolTokens(out.toolTokens);
	return out;
}

module.exports = {
	CALL_TOOL_ITEMS,
	medianCi,
	analyseCallTool,
	deriveCallTool,
	deriveAgentConfig,
	deriveAgent,
	deriveWarm,
	deriveLeanServer,
	deriveLean,
	deriveManyTools,
	scanSummary,
	deriveScanListing,
	analyseOneExecution,
	pairedSampleRatio,
	deriveOneExecution,
	deriveApprovals,
	deriveToolTokensRun,
	deriveToolTokens,
	deriveResults,
};
