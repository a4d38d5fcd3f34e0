'use strict';
// The performance targets, checked against one run's numbers. Reported as met/missed; nothing fails.

const { ARGUMENT_STYLES } = require('./argumentStyles');
const { quantile } = require('./common');

function find(list, key) {
	return (list || []).find((entry) => entry.key === key);
}

function fmt(value, digits = 2) {
	return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

const providerName = (provider) => (provider === 'anthropic' ? 'Anthropic' : 'OpenAI Chat');

// The paired ratio (median of ours ÷ raw over adjacent batches) decides: batch times on this VM
// are bimodal (the machine switches between a fast and a slow state for stretches of many
// batches), so a median of each side can fall in different states, while adjacent batches run
// in the same one. The ratio of the medians is reported beside it.
const pairedRatio = (c) => c.ratioCpuPaired ?? c.ratioCpu;

/** Agent host overhead over some configs (provider × turns): the worst paired ratio decides (≤ 1.1×). */
function agentOverheadTarget(id, target, rows) {
	const worst = rows.reduce((a, b) => (pairedRatio(b) > pairedRatio(a) ? b : a));
	return {
		id,
		target,
		measured: `worst ${fmt(pairedRatio(worst))}× (${providerName(worst.provider)}, ${worst.turns} turns); ${rows
			.map((c) => `${providerName(c.provider)} ${c.turns}: paired ${fmt(pairedRatio(c))}× (ratio of medians ${fmt(c.ratioCpu)}×)`)
			.join(', ')}`,
		value: pairedRatio(worst),
		met: pairedRatio(worst) <= 1.1,
	};
}

/**
 * The raw SDK client run that a Call Tool measurement is compared with, like for like (same
 * transport, sequential): our node on a kept connection (Keep Server Running, no connect or spawn in
 * its time) and the raw client's kept-connection runs (only their calls) are 'warm'; our node with
 * Keep Server Running off, n8n's MCP Client and n8n-nodes-mcp (each connects, for stdio spawns, per
 * execution) and the raw client's whole runs (spawn or connect, tools/list, calls, close) are 'cold'.
 * @returns { comparison: 'warm'|'cold', raw, rawMs } or undefined when that raw run is missing
 */
function rawBaseline(call, entry) {
	const transport = entry.transport;
	const warm = entry.kind === 'ours' ? entry.keep !== false : entry.client ? Boolean(entry.kept) : false;
	const raw = find(call.raw, warm ? `raw-${transport}-c1-kept-1000` : `raw-${transport}-c1-1000`);
	if (!raw) return undefined;
	return { comparison: warm ? 'warm' : 'cold', raw, rawMs: warm ? raw.callsMs : raw.totalMs };
}

/**
 * Our sequential 1,000-item runs against the raw SDK client, warm with warm and cold with cold
 * (rawBaseline): every argument style on a kept connection, and Fields mapped with Keep Server
 * Running off. ratio = our node time ÷ the raw client's time for the same work.
 */
function rawSdkComparisons(call) {
	const rows = [];
	for (const transport of ['stdio', 'http']) {
		const keys = [...['fields', 'item', 'expression'].map((args) => `ours-${transport}-c1-${args}-1000`), `ours-${transport}-c1-fields-cold-1000`];
		for (const key of keys) {
			const ours = find(call.variants, key);
			if (!ours) continue;
			// A run without the raw client's matching measurement gets no ratio (reported as not measured), never a mismatched one.
			const base = rawBaseline(call, ours);
			const comparison = ours.keep === false ? 'cold' : 'warm';
			rows.push({ transport, comparison, ours, raw: base?.raw ?? null, oursMs: ours.nodeMs, rawMs: base?.rawMs ?? NaN, ratio: base ? ours.nodeMs / base.rawMs : NaN });
		}
	}
	return rows;
}

const API_NAMES = { anthropic: 'Anthropic Messages', openaiChat: 'OpenAI Chat Completions', openaiResponses: 'OpenAI Responses' };
const pct = (value) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : 'n/a');
const tokens = (value) => (Number.isFinite(value) ? value.toLocaleString('en') : 'n/a');

/** Tool Loading of a toolTokens conversation, as the report names it. */
const LOADING_NAMES = { all: 'All Tools', search: 'Search', native: "Search, provider's own" };

/**
 * Part 'toolTokens' (derived by deriveToolTokens): per provider API, the input tokens of the
 * conversation with tool search against All Tools (≤ 10%), and per conversation the share of the
 * tool and system part read from the cache on every turn after the first (≥ 90%, the lowest turn decides).
 */
function toolTokensTargets(part) {
	if (!part?.comparisons) return [];
	const targets = [];
	for (const c of part.comparisons) {
		const all = part.runs.find((r) => r.provider === c.provider && r.loading === 'all');
		const search = part.runs.find((r) => r.provider === c.provider && r.loading === 'search');
		targets.push({
			id: `tool-tokens-search-${c.provider}`,
			target: `Tool search on a ${tokens(part.catalogTools)}-tool Agent (${API_NAMES[c.provider] ?? c.provider}): input tokens of the conversation with search ≤ 10% of All Tools`,
			measured: `${pct(c.ratio)} (${tokens(search?.promptTokens)} tokens in ${search?.turns ?? '?'} turns vs ${tokens(all?.promptTokens)} in ${all?.turns ?? '?'}); not read from the cache: ${pct(c.uncachedRatio)}`,
			value: c.ratio,
			met: Number.isFinite(c.ratio) ? c.ratio <= 0.1 : null,
		});
		const native = part.runs.find((r) => r.provider === c.provider && r.loading === 'native');
		if (native) {
			targets.push({
				id: `tool-tokens-native-${c.provider}`,
				target: `The provider's own tool search on a ${tokens(part.catalogTools)}-tool Agent (${API_NAMES[c.provider] ?? c.provider}): input tokens of the conversation ≤ 10% of All Tools`,
				measured: `${pct(c.nativeRatio)} (${tokens(native.promptTokens)} tokens in ${native.turns} turns vs ${tokens(all?.promptTokens)} in ${all?.turns ?? '?'}); not read from the cache: ${pct(c.nativeUncachedRatio)}`,
				value: c.nativeRatio,
				met: Number.isFinite(c.nativeRatio) ? c.nativeRatio <= 0.1 : null,
			});
		}
	}
	for (const run of part.runs) {
		const lowest = run.lowestCachedShare;
		targets.push({
			id: `tool-tokens-cache-${run.provider}-${run.loading}`,
			target: `Prompt cache (${API_NAMES[run.provider] ?? run.provider}, ${LOADING_NAMES[run.loading] ?? run.loading}): ≥ 90% of the tool and system part a cache read on every turn after the first`,
			measured: lowest ? `lowest ${pct(lowest.share)} (turn ${lowest.turn}); over turns 2–${run.turns}: ${pct(run.cachedShare)}` : 'n/a (one turn)',
			value: lowest ? lowest.share : NaN,
			met: lowest ? lowest.share >= 0.9 : null,
		});
	}
	return targets;
}

/** One row per target: { id, target, measured, met } (met is null when the part did not run). */
function evaluateTargets(results) {
	const targets = [];
	const call = results.callTool;
	if (call) {
		const v = (key) => find(call.variants, key);
		// Our node with each argument style (bench/lib/argumentStyles.js). A computed expression is
		// n8n's expression engine's cost, once per item, whatever the node: reported as supplementary.
		const modes = [
			{ suffix: '-fields', name: ARGUMENT_STYLES.fields.label, prefix: '' },
			{ suffix: '-item', name: ARGUMENT_STYLES.item.label, prefix: '' },
			{ suffix: '-expression', name: ARGUMENT_STYLES.expression.label, prefix: 'supplementary: ' },
		];
		const nodesMcp = v('nodesmcp-stdio-20');
		for (const mode of modes) {
			const seq = v(`ours-stdio-c1${mode.suffix}-1000`);
			const c8 = v(`ours-stdio-c8${mode.suffix}-1000`);
			if (!nodesMcp || !seq) continue;
			const ratio = nodesMcp.perCallMs / seq.perCallMs;
			const ratio8 = c8 ? nodesMcp.perCallMs / c8.perCallMs : NaN;
			targets.push({
				id: `stdio-vs-n8n-nodes-mcp${mode.suffix}`,
				target: `${mode.prefix}stdio, 1,000 items: ≥ 500× faster per call than n8n-nodes-mcp 0.1.37 (${mode.name})`,
				measured: `${fmt(ratio, 0)}× sequential, ${fmt(ratio8, 0)}× with 8 in flight`,
				value: Math.max(ratio, Number.isFinite(ratio8) ? ratio8 : 0),
				met: Math.max(ratio, Number.isFinite(ratio8) ? ratio8 : 0) >= 500,
			});
		}
		const builtin = v('builtin-http-1000');
		for (const mode of modes) {
			const ours8 = v(`ours-http-c8${mode.suffix}-1000`);
			if (!builtin || !ours8) continue;
			const ratio = builtin.perCallMs / ours8.perCallMs;
			targets.push({
				id: `http-vs-n8n-mcp-client${mode.suffix}`,
				target: `${mode.prefix}HTTP, 1,000 items: ≥ 3× faster than n8n's MCP Client node (8 in flight, output order kept; ${mode.name})`,
				measured: `${fmt(ratio)}× (${fmt(ours8.perCallMs, 3)} vs ${fmt(builtin.perCallMs, 3)} ms per call)`,
				value: ratio,
				met: ratio >= 3,
			});
		}
		// Warm vs warm decides the target (a kept connection is the node's default); cold vs cold,
		// the path with Keep Server Running off, is reported beside it (supplementary).
		for (const row of rawSdkComparisons(call)) {
			const mode = modes.find((m) => m.suffix === `-${row.ours.args}`);
			const tname = row.transport === 'http' ? 'HTTP' : 'stdio';
			const perCall = (value) => fmt(value / row.ours.items, 3);
			const warmRow = row.comparison === 'warm';
			const name = ARGUMENT_STYLES[row.ours.args].short;
			targets.push({
				id: `sequential-vs-raw-${row.transport}${mode.suffix}${warmRow ? '' : '-cold'}`,
				target: warmRow
					? `${mode.prefix}${tname}, sequential, warm vs warm (kept connections): per call within 1.25× of the raw SDK client (${name})`
					: `supplementary: ${tname}, sequential, cold vs cold: per call within 1.25× of the raw SDK client, both connecting${row.transport === 'stdio' ? ' (spawning the server)' : ''} in every run (Keep Server Running off, ${name})`,
				measured: row.raw ? `${fmt(row.ratio)}× (${perCall(row.oursMs)} vs ${perCall(row.rawMs)} ms)` : 'not measured in this run',
				value: row.ratio,
				comparison: row.comparison,
				met: row.raw ? row.ratio <= 1.25 : null,
			});
		}
	}
	const agent = results.agent;
	if (agent) {
		// 'sdk' (real SDK clients, in-process zero-latency fetch) is the measurement the target names;
		// the other model paths are reported beside it (see the report's Agent section).
		const PATHS = [
			['sdk', 'real SDK clients, zero-latency in-process fetch', ''],
			['http', 'real SDK clients, loopback fake server', 'supplementary: '],
			['direct', 'no SDK, fake called in-process', 'supplementary: '],
		];
		for (const [mode, label, prefix] of PATHS) {
			const rows = agent.configs.filter((c) => c.mode === mode);
			if (rows.length === 0) continue;
			targets.push(agentOverheadTarget(`agent-overhead-${mode}`, `${prefix}Agent loop within 1.1× of the raw-SDK loop at 10 and 100 turns, host CPU (${label})`, rows));
			// Linear: time per turn may grow only as fast as the raw loop's (both resend the history).
			const growth = [];
			for (const provider of new Set(rows.map((c) => c.provider))) {
				const at = (side, turns) => rows.find((c) => c.provider === provider && c.turns === turns)?.[side].cpuPerTurnMs;
				const ours = at('ours', 100) / at('ours', 10);
				const raw = at('raw', 100) / at('raw', 10);
				growth.push({ provider, ours, raw, excess: ours / Math.max(1, raw) });
			}
			const worstGrowth = growth.reduce((a, b) => (b.excess > a.excess ? b : a));
			targets.push({
				id: `agent-growth-${mode}`,
				target: `${prefix}Agent time per turn grows no more than linearly (10 → 100 turns, ${label})`,
				measured: growth.map((g) => `${providerName(g.provider)}: per turn ×${fmt(g.ours)} (raw loop ×${fmt(g.raw)})`).join('; '),
				value: worstGrowth.excess,
				met: worstGrowth.excess <= 1.1,
			});
		}
	}
	const sameClient = (results.agentRawV2?.configs ?? []).filter((c) => c.mode === 'sdk');
	if (sameClient.length) {
		// The raw loop of the target above uses the 1.x SDK Client; ours talks through the v2 client
		// (@modelcontextprotocol/client), which costs more per call in-process. Against a raw loop on
		// that same client, what remains is our loop's own work.
		targets.push(
			agentOverheadTarget(
				'agent-overhead-same-client',
				'supplementary: Agent loop within 1.1× of a raw-SDK loop on the same MCP client as ours (v2), host CPU (real SDK clients, zero-latency in-process fetch)',
				sameClient,
			),
		);
	}
	const many = results.manyTools;
	if (many) {
		targets.push({
			id: 'thousand-tools',
			target: '1,000-tool server: list + fingerprint + convert to the 3 provider formats in < 200 ms',
			measured: `${fmt(many.handling.warmMs, 0)} ms warm, ${fmt(many.handling.coldMs, 0)} ms on the first pass (list alone ${fmt(many.phases.list.warmMs, 0)} ms)`,
			value: many.handling.warmMs,
			met: many.handling.warmMs < 200,
		});
	}
	const warm = results.warm?.results;
	if (warm) {
		const stdio = warm['cold-stdio'].median / warm['warm-stdio'].median;
		targets.push({
			id: 'warm-stdio',
			target: 'stdio, one one-item execution: warm (Keep Server Running) ≥ 50× cheaper than the cold path (no n8n)',
			measured: `${fmt(stdio, 0)}× (${fmt(warm['warm-stdio'].median)} vs ${fmt(warm['cold-stdio'].median, 0)} ms)`,
			value: stdio,
			met: stdio >= 50,
		});
	}
	const one = results.oneExecution;
	if (one) {
		const v = (key) => find(one.variants, key);
		const cold = v('ours-stdio-cold-1');
		const warmStdio = v('ours-stdio-warm-1');
		if (cold && warmStdio) {
			const ratio = cold.nodeMs / warmStdio.nodeMs;
			targets.push({
				id: 'warm-stdio-n8n',
				target: 'stdio, one one-item MCP Call Tool execution in n8n: warm (Keep Server Running) ≥ 50× cheaper than the cold path (node time)',
				measured: `${fmt(ratio, 0)}× (${fmt(warmStdio.nodeMs, 1)} vs ${fmt(cold.nodeMs, 0)} ms)`,
				value: ratio,
				met: ratio >= 50,
			});
		}
		const httpRows = [
			['warm-http-vs-n8n-mcp-client', 'ours-http-warm-1', 'builtin-http-1', "HTTP, one one-item execution in n8n: warm MCP Call Tool ≥ 3× cheaper than n8n's MCP Client node (node time)"],
			[
				'warm-http-vs-n8n-mcp-client-bearer',
				'ours-http-bearer-warm-1',
				'builtin-http-bearer-1',
				"supplementary: HTTP, one one-item execution in n8n, both nodes with a Bearer token credential: warm MCP Call Tool ≥ 3× cheaper than n8n's MCP Client node (node time)",
			],
		];
		for (const [id, oursKey, builtinKey, target] of httpRows) {
			const warm = v(oursKey);
			const builtin = v(builtinKey);
			if (!warm || !builtin) continue;
			const ratio = builtin.nodeMs / warm.nodeMs;
			targets.push({
				id,
				target,
				measured: `${fmt(ratio)}× (${fmt(warm.nodeMs, 1)} vs ${fmt(builtin.nodeMs, 1)} ms; webhook round trip ${fmt(warm.wallMs, 0)} vs ${fmt(builtin.wallMs, 0)} ms)`,
				value: ratio,
				met: ratio >= 3,
			});
		}
		const ours = v('agent-ours-http');
		const theirs = v('agent-n8n-http');
		if (ours && theirs) {
			const ratio = theirs.nodeMs / ours.nodeMs;
			const wall = theirs.wallMs / ours.wallMs;
			targets.push({
				id: 'agent-vs-n8n-ai-agent',
				target: "Webhook-triggered Agent run with one tool call (zero-latency fake model, MCP server over HTTP): MCP Agent ≥ 3× below n8n's AI Agent with MCP Client Tool (root node time)",
				measured: `${fmt(ratio)}× (${fmt(ours.nodeMs, 0)} vs ${fmt(theirs.nodeMs, 0)} ms); webhook round trip ${fmt(wall)}× (${fmt(ours.wallMs, 0)} vs ${fmt(theirs.wallMs, 0)} ms)`,
				value: ratio,
				met: ratio >= 3,
			});
		}
		targets.push(...chatModelAgentTargets(one));
	}
	targets.push(...approvalTargets(results.approvals));
	targets.push(...toolTokensTargets(results.toolTokens));
	return targets;
}

/** "a× paired over n rounds (95% CI l–h)" for a paired ratio of bench/lib/derive.js pairedSampleRatio. */
function pairedText(r) {
	const ci = Number.isFinite(r.ci?.low) ? `, 95% CI ${fmt(r.ci.low)}–${fmt(r.ci.high)}` : '';
	return `${fmt(r.median)}× paired over ${r.n} rounds${ci}`;
}

/**
 * Issue 30: our MCP Agent driving n8n's OpenAI Chat Model sub-node against n8n's AI Agent on the
 * same sub-node (no slower: paired ratio of root node time ≤ 1.0), and against our built-in
 * OpenAI Chat Completions provider (supplementary, no target). Paired: one pair per round.
 */
function chatModelAgentTargets(one) {
	const v = (key) => find(one.variants, key);
	const pairs = one.agentPairs ?? {};
	const targets = [];
	const row = (pair) => {
		const a = v(pair.numerator);
		const b = v(pair.denominator);
		return `${pairedText(pair.nodeMs)}; medians ${fmt(a?.nodeMs, 0)} vs ${fmt(b?.nodeMs, 0)} ms; webhook round trip ${pairedText(pair.wallMs)}, medians ${fmt(a?.wallMs, 0)} vs ${fmt(b?.wallMs, 0)} ms`;
	};
	const sameModel = pairs.chatModelVsN8n;
	if (sameModel?.nodeMs.n) {
		targets.push({
			id: 'agent-chatmodel-vs-n8n-ai-agent',
			target: "Webhook-triggered Agent run with one tool call through n8n's OpenAI Chat Model sub-node (zero-latency fake model, MCP server over HTTP): MCP Agent no slower than n8n's AI Agent with the same model node (paired ratio of root node time ≤ 1.0)",
			measured: row(sameModel),
			value: sameModel.nodeMs.median,
			met: sameModel.nodeMs.median <= 1,
		});
	}
	const builtIn = pairs.chatModelVsBuiltIn;
	if (builtIn?.nodeMs.n) {
		targets.push({
			id: 'agent-chatmodel-vs-built-in',
			target: "supplementary: MCP Agent through n8n's OpenAI Chat Model sub-node ÷ the same Agent with its built-in OpenAI Chat Completions provider, same fake model and server (root node time; no target)",
			measured: row(builtIn),
			value: builtIn.nodeMs.median,
			met: null,
		});
	}
	return targets;
}

/** The judging samples (µs) of the calls that reach the grant check (asked, or let through by a grant), and of all calls. */
function judgingStats(samples) {
	const grantChecked = [...(samples.asked ?? []), ...(samples.granted ?? [])];
	const all = Object.values(samples).flat();
	const stats = (list) => ({ n: list.length, median: quantile(list, 0.5), p95: quantile(list, 0.95) });
	return { grantChecked: stats(grantChecked), all: stats(all) };
}

/** CPU time per call over the measured passes of the judging benchmark (median over passes), in µs. */
function cpuPerCall(passes) {
	return passes?.length ? quantile(passes.map((p) => p.cpuUs / p.calls), 0.5) : NaN;
}

/** Part 'approvals': the workload's outcomes against the oracle's, and the cost of judging one call. */
function approvalTargets(approvals) {
	if (!approvals) return [];
	const targets = [];
	const w = approvals.workload;
	if (w) {
		targets.push({
			id: 'approvals-reach-person',
			target: `Approval workload through the MCP Agent in n8n (${w.calls} scripted calls, ${w.tools.length} tools, ${w.rules.total} rules, ${w.grants.inserted} grants in n8n's database): the calls that reach a person are exactly those the rules and grants say`,
			measured: `${w.reachedPerson.actual} reached a person (expected ${w.reachedPerson.expected}); refused ${w.refused.actual} (expected ${w.refused.expected}); ran ${w.actual.run} (expected ${w.expected.run}); ${w.calls - w.mismatches} of ${w.calls} calls with the expected outcome and the expected rule, grant or policy named`,
			value: w.mismatches,
			met: w.reachedPerson.equal && w.mismatches === 0,
		});
		targets.push({
			id: 'approvals-run-outside',
			target: 'Approval workload in n8n: calls run without review outside the rules and grants: 0',
			measured: `${w.ranOutsideRules} (in the Agent's output: ${w.ranOutsideByOutput}; calls at the server beyond the ${w.server.expectedRuns} expected: ${w.server.unexpected}, expected ones missing: ${w.server.missing})`,
			value: w.ranOutsideRules,
			met: w.ranOutsideRules === 0,
		});
	}
	const j = approvals.judging;
	if (j) {
		const us = (v) => (Number.isFinite(v) ? `${v.toFixed(0)} µs` : 'n/a');
		const main = judgingStats(j.samples);
		targets.push({
			id: 'approvals-judge',
			target: `Judging one call against ${j.rules} approval rules and ${j.grants.toLocaleString('en')} standing approvals (judgeCall + applyGrants, no n8n): under 1 ms per call (p95 of the calls checked against the grants)`,
			measured: `median ${us(main.grantChecked.median)}, p95 ${us(main.grantChecked.p95)} (${main.grantChecked.n} samples); every call: median ${us(main.all.median)}, p95 ${us(main.all.p95)} (${main.all.n}), CPU ${us(cpuPerCall(j.passCpu))} per call`,
			value: main.grantChecked.p95,
			met: main.grantChecked.p95 < 1000,
		});
		if (j.concentrated) {
			const c = judgingStats(j.concentrated.samples);
			targets.push({
				id: 'approvals-judge-one-tool',
				target: `supplementary: the same with all ${j.concentrated.grantsOnTool.toLocaleString('en')} grants on the tool called (${j.concentrated.tool}): under 1 ms per call (p95 of the calls checked against the grants)`,
				measured: `median ${us(c.grantChecked.median)}, p95 ${us(c.grantChecked.p95)} (${c.grantChecked.n} samples)`,
				value: c.grantChecked.p95,
				met: c.grantChecked.p95 < 1000,
			});
		}
	}
	return targets;
}

module.exports = { evaluateTargets, judgingStats, cpuPerCall, rawBaseline, rawSdkComparisons, toolTokensTargets, API_NAMES, LOADING_NAMES };
