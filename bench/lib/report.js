'use strict';
// The Markdown report (bench/results/latest.md), meant for the README's "Performance" section.

const { ARGUMENT_STYLES } = require('./argumentStyles');
const { quantile } = require('./common');
const { cpuPerCall, rawBaseline } = require('./targets');
const { CALL_TOOL_ITEMS } = require('./derive');
const { toolTokensSection } = require('./toolTokensReport');

const LABELS = {
	raw: 'Raw MCP SDK client (the limit)',
	lib: 'Our library, without n8n',
	ours: '**MCP Call Tool (this package)**',
	builtin: "n8n's MCP Client node",
	nodesMcp: 'n8n-nodes-mcp 0.1.37 (Loop Over Items, 1 item per run)',
};

function variantLabel(v) {
	if (v.kind !== 'ours' || !v.args) return LABELS[v.kind];
	return `${LABELS[v.kind]}, ${ARGUMENT_STYLES[v.args].label}${v.keep === false ? ', *Keep Server Running* off (cold)' : ''}`;
}

const providerName = (provider) => (provider === 'anthropic' ? 'Anthropic' : 'OpenAI Chat');

function ms(value, digits) {
	if (!Number.isFinite(value)) return '–';
	const d = digits ?? (value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3);
	return `${value.toFixed(d)} ms`;
}

function x(value, digits = 2) {
	return Number.isFinite(value) ? `${value.toFixed(digits)}×` : '–';
}

function chars(value) {
	if (!Number.isFinite(value)) return '–';
	if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
	if (value >= 1e3) return `${(value / 1e3).toFixed(1)} k`;
	return String(value);
}

function mb(value) {
	return Number.isFinite(value) ? `${value.toFixed(1)} MB` : '–';
}

function table(header, rows, align) {
	const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => ((align || [])[i] === 'l' ? '---' : '---:')).join('|')}|`];
	for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
	return lines.join('\n');
}

/** How many runs a row's medians are over: every count from the data, so a row says its own. */
function runsNote(entries) {
	const counts = [...new Set(entries.map((e) => e.reps).filter((n) => Number.isFinite(n)))].sort((a, b) => a - b);
	return counts.length ? counts.join(', ') : '?';
}

function callToolSection(call) {
	const find = (list, key) => list.find((e) => e.key === key);
	const out = ['### MCP Call Tool: 1,000 items, server-everything `echo`, n8n 2.41.1', ''];
	const rows = [];
	/** "0.70× (warm)": this entry's time ÷ the raw client's like-for-like sequential run (targets.js rawBaseline). */
	const vsRaw = (entry, totalMs) => {
		const base = rawBaseline(call, entry);
		if (!base) return '–';
		return `${x(totalMs / base.rawMs, entry.kind === 'nodesMcp' ? 0 : 2)} (${base.comparison})`;
	};
	for (const transport of ['stdio', 'http']) {
		const tname = transport === 'stdio' ? 'stdio' : 'Streamable HTTP';
		for (const client of ['raw', 'lib']) {
			for (const key of [`${client}-${transport}-c1-1000`, `${client}-${transport}-c8-1000`, `${client}-${transport}-c1-kept-1000`]) {
				const e = find(call.raw, key);
				if (!e) continue;
				const label = `${LABELS[client]}, ${e.kept ? 'kept connection (calls only)' : 'new connection per run'}`;
				rows.push([label, tname, String(e.concurrency), String(e.reps), ms(e.totalMs), ms(e.perCallMs), vsRaw(e, e.totalMs), ms(e.cpuPerCallMs), '–', '–']);
			}
		}
		for (const v of call.variants.filter((e) => e.transport === transport && e.items > 1)) {
			const perRun = v.kind === 'nodesMcp' ? `${ms(v.nodeMs / v.items)} × ${v.items}` : ms(v.nodeMs);
			rows.push([
				variantLabel(v),
				tname,
				String(v.concurrency),
				String(v.reps),
				perRun,
				ms(v.perCallMs),
				// n8n-nodes-mcp does 1 item per run: its per-call time × 1,000 against the raw client's 1,000 calls.
				vsRaw(v, v.kind === 'nodesMcp' ? v.perCallMs * CALL_TOOL_ITEMS : v.nodeMs),
				ms(v.cpuPerCallMinusEmptyMs),
				v.kind === 'nodesMcp' ? '–' : ms(v.wallPerCallMinusEmptyMs),
				mb(v.rss.peakDeltaMb),
			]);
		}
	}
	out.push(
		table(['Client', 'Transport', 'In flight', 'Runs', 'Time per run', 'Per call', 'vs raw SDK, sequential, like for like', 'CPU per call', 'Webhook wall − empty, per call', 'n8n RSS peak Δ'], rows, ['l', 'l']),
		'',
	);
	const v = (key) => find(call.variants, key);
	const nodesMcp = v('nodesmcp-stdio-20');
	const builtin = v('builtin-http-1000');
	const cmp = [];
	const against = (other, keys) =>
		keys
			.map((key) => v(key))
			.filter(Boolean)
			.map((o) => `${x(other.perCallMs / o.perCallMs, other === nodesMcp ? 0 : 2)} (${ARGUMENT_STYLES[o.args].short}, ${o.concurrency} in flight${o.keep === false ? ', Keep Server Running off' : ''})`)
			.join(', ');
	const oursKeys = (transport) => call.variants.filter((e) => e.kind === 'ours' && e.transport === transport && e.items > 1).map((e) => e.key);
	if (nodesMcp) cmp.push(`n8n-nodes-mcp ÷ ours over stdio: ${against(nodesMcp, oursKeys('stdio'))}`);
	if (builtin) cmp.push(`n8n's MCP Client ÷ ours over HTTP: ${against(builtin, oursKeys('http'))}`);
	if (cmp.length) out.push(`Per-call time of the competitor ÷ ours (above 1: ours is faster): ${cmp.join('; ')}.`, '');
	const n8nRows = call.variants.filter((e) => e.kind !== 'empty' && e.items > 1);
	out.push(
		'How it is measured: **Time per run** for n8n nodes is the node\'s own `executionTime` from n8n\'s execution data (read from the SQLite `execution_data`, flatted): the time of the node\'s execute() in that execution. ' +
			'For MCP Call Tool on a kept connection (*Keep Server Running*, the default; every row of ours not marked otherwise) that is reading the credential, taking the connection from the pool, tools/list from the connection\'s cache, every call and releasing the connection: no connect and no server start, which the warm-up run before the measured runs did. ' +
			'For MCP Call Tool with *Keep Server Running* off, n8n\'s MCP Client node and each run of n8n-nodes-mcp it is reading the credential, connecting (for stdio spawning the server), tools/list, every call and closing. ' +
			`**Runs**: how many measured runs each row's medians are over (${runsNote(n8nRows)} here), after a warm-up run, interleaved with the other variants. ` +
			'The raw SDK client and our library without n8n do the same work in a plain Node script on the same server: **new connection per run** is connect (for stdio spawning the server), tools/list, 1,000 calls and close; **kept connection (calls only)** is the raw client connected, listed and warmed up with 1,000 calls once before its measured runs, each run then only its 1,000 calls, so nothing but calls is in its time. ' +
			'**vs raw SDK, sequential, like for like**: the row\'s time per run ÷ the raw client\'s sequential run of the same transport doing the same work, *warm* (our node on a kept connection, the raw client\'s kept-connection calls) or *cold* (a connection, for stdio a server, per execution, against the raw client\'s whole run with its connect and close). ' +
			'Every run\'s output is checked: 1,000 items, each the echo of its own input, in input order. ' +
			(nodesMcp ? `n8n-nodes-mcp processes only the first item of each execution of its node, so it runs ${nodesMcp.items} times in a Loop Over Items (batch size 1); its per-call time is its node time per run. ` : '') +
			'**CPU per call**: CPU time of the n8n process, its exited children (stdio servers) and the HTTP server, minus an empty workflow of the same shape (Webhook, Code with 1,000 items, No-Op); for the raw client and our library, the script\'s and the server\'s CPU time. ' +
			'**Webhook wall − empty**: the webhook round trip minus the same empty workflow\'s, as a cross-check of the node time. ' +
			'**n8n RSS peak Δ**: peak resident memory of the n8n main process during the run minus before it (sampled every 5 ms, and the kernel\'s high-water mark).',
		'',
	);
	return out.join('\n');
}

/** Batches, batch size and warm-up runs per row, from the data ("?" for a run that did not record them). */
function agentPlanText(configs) {
	const plans = new Map();
	for (const c of configs) {
		const size = c.batch ?? (c.runs && c.batches ? c.runs / c.batches : '?');
		const runs = (n) => `${n} run${n === 1 ? '' : 's'}`;
		const text = `${c.batches} batches of ${runs(size)} per side after ${c.warmupRuns === undefined ? 'warm-up runs this run did not record' : `${c.warmupRuns} warm-up ${c.warmupRuns === 1 ? 'run' : 'runs'} per side`}`;
		const where = `${AGENT_PATHS[c.mode] ?? c.mode}, ${c.turns} turns`;
		if (!plans.has(text)) plans.set(text, new Set());
		plans.get(text).add(where);
	}
	return [...plans].map(([text, where]) => `${text}: ${[...where].join(', ')}`).join('; ');
}

const AGENT_PATHS = {
	sdk: 'SDK client, in-process fetch (target)',
	http: 'SDK client → loopback fake',
	direct: 'no SDK, fake called in-process',
};

function agentSection(agent) {
	const out = ['### Agent host overhead: our loop vs a hand-written loop with the raw SDKs', ''];
	const order = ['sdk', 'http', 'direct'];
	const configs = [...agent.configs].sort((a, b) => order.indexOf(a.mode) - order.indexOf(b.mode) || a.provider.localeCompare(b.provider) || a.turns - b.turns);
	const rows = configs.map((c) => [
		c.provider === 'anthropic' ? 'Anthropic Messages' : 'OpenAI Chat Completions',
		AGENT_PATHS[c.mode] ?? c.mode,
		String(c.turns),
		ms(c.raw.cpuPerTurnMs),
		ms(c.ours.cpuPerTurnMs),
		`**${x(c.ratioCpu)}**`,
		x(c.ratioCpuPaired),
		x(c.ratioWall),
		ms(c.overheadPerTurnCpuMs, 3),
	]);
	out.push(
		table(
			['Provider API', 'Model path', 'Turns', 'Raw loop, per turn', 'Ours, per turn', 'Ratio (CPU)', 'Paired ratio (CPU)', 'Ratio (wall)', 'Added per turn'],
			rows,
			['l', 'l'],
		),
		'',
	);
	out.push(
		'A turn = one model call that asks for one tool call, the MCP `tools/call`, and the result back into the conversation; then a final answer. ' +
			'Both loops use the same zero-latency fake model (wire-compatible; stateless, it reads the turn from the conversation; both get byte-identical responses) and the same kind of in-process MCP server (SDK `Server` over `InMemoryTransport`, 5 tools). ' +
			'The raw loop is the seed example (`messages.create` → `tool_use` → `client.callTool` → `tool_result` → repeat; OpenAI: `tool_calls` → role `tool`); ' +
			'ours is `createRun` + `runAgent` + `runToolCalls` over an `McpConnection`, with the node\'s default settings (argument validation, result capping, tool log, immutable JSON state). ' +
			'Model paths: **SDK client, in-process fetch** (the target\'s measurement): both sides use the real Anthropic/OpenAI SDK clients (ours through `createModelClient`), given a `fetch` that answers from the fake in-process, so the SDKs build, serialize and parse every request and response but no socket is opened. ' +
			'**SDK client → loopback fake**: the same clients against the fake as an HTTP server in a child process (adds the HTTP stack on both sides). ' +
			'**No SDK, fake called in-process**: both call the fake function directly, which leaves only the loops\' own work (the raw loop there is a few lines of code, so this is the strictest view of what our loop adds). ' +
			'Times are CPU time of the benchmark process, which holds the host side (both loops, the MCP server). The provider\'s own work is not the host\'s: on the in-process fetch path the fake answers at next to no CPU cost (it counts the turn in the request text and keeps each answer\'s bytes), and the loopback fake runs in its own process. ' +
			'Our Anthropic requests carry a little more than the raw loop\'s (`tool_choice`, cache markers on the tools and the system prompt), which the SDK serializes on every turn. ' +
			`Runs are timed in small alternating batches (ours, raw, raw, ours, ...) in a warm process (${agentPlanText(configs)}) without forced GCs; "Paired ratio" is the median of ours ÷ raw over adjacent batches, which decides the target (see the note under Targets), "Ratio (CPU)" the ratio of the medians over batches; wall-clock ratios alongside. ` +
			'"Added per turn" is ours minus raw, per turn.',
		'',
	);
	return out.join('\n');
}

function manyToolsSection(many) {
	const out = [`### A server with ${many.tools.toLocaleString('en')} tools`, ''];
	const p = many.phases;
	const names = {
		list: 'List (`McpConnection` + `listAllTools`, stdio)',
		fingerprint: 'Fingerprint (`fingerprintTool`)',
		toAnthropic: 'Convert: `toAnthropicTool`',
		toOpenAiChat: 'Convert: `toOpenAiChatTool`',
		toOpenAiResponses: 'Convert: `toOpenAiResponsesTool`',
		catalog: "Agent catalog (`buildCatalog`: fingerprints, poisoning scan, names)",
		compileValidators: 'Compile argument validators (`compileArgumentValidator`)',
	};
	const rows = Object.entries(names)
		.filter(([key]) => p[key])
		.map(([key, label]) => [label, ms(p[key].coldMs), key === 'compileValidators' ? `${ms(p[key].cachedMs)} (cached)` : ms(p[key].warmMs), mb(p[key].retainedMb)]);
	rows.push([`**List + fingerprint + 3 conversions**`, `**${ms(many.handling.coldMs)}**`, `**${ms(many.handling.warmMs)}**`, '']);
	out.push(table(['Step', 'First pass', 'Later passes (median)', 'Heap retained'], rows, ['l']), '');
	out.push(
		`The tool list is ${chars(many.listedJsonChars)} characters of JSON (descriptions of ~300 characters; flat, nested, enum, format, \`$ref\` and \`anyOf\` schemas; a quarter with output schemas). ` +
			`"First pass" is the first time in a fresh process (as on the first execution after n8n starts), later passes are the steady state. Connecting (spawning the server) took ${ms(many.connectMs)}, not included. ` +
			'Validators compile lazily, one per tool actually called, and are cached by schema.',
		'',
	);
	return out.join('\n');
}

function scanListingSection(scan) {
	const out = [`### Poisoning scan of a ${scan.tools.toLocaleString('en')}-tool listing`, ''];
	const rows = [];
	for (const kind of ['benign', 'hostile']) {
		for (const [key, label] of [['catalog', 'Agent catalog (`buildCatalogYielding`)'], ['listTools', 'MCP List Tools (`flagListedTools`)']]) {
			const run = scan.runs[kind][key];
			rows.push([`${kind === 'benign' ? 'Benign' : 'Hostile (near-miss)'}: ${label}`, ms(run.totalMs), ms(run.firstMaxStallMs ?? run.maxStallMs), run.laterMaxStallMs == null ? '' : ms(run.laterMaxStallMs)]);
		}
	}
	out.push(table(['Listing', 'Total (median)', 'Longest stall, first pass', 'Longest stall, later passes'], rows, ['l']), '');
	out.push(
		`Each tool has a 200-character title, a ${chars(scan.fieldChars)}-character description and a parameter description of the same length (\`test/fixtures/hostile-listing-server.js\`). ` +
			`Hostile/benign: ${scan.hostileToBenign.toFixed(1)}×. The scan runs on RE2 and yields to the event loop every 15 ms, so a stall is one step of the scan (the first pass in a process includes the JIT's warm-up of re2js) or the catalog's own synchronous work after the scan (fingerprints and provider names of 2,000 tools), never the whole listing.`,
		'',
	);
	return out.join('\n');
}

function memorySection(results) {
	const out = ['### Memory', ''];
	const call = results.callTool;
	if (call) {
		const rows = call.variants
			.filter((v) => v.items === 1000)
			.map((v) => [
				v.kind === 'empty' ? 'Empty workflow (Webhook, Code, No-Op)' : `${variantLabel(v)}, ${v.transport === 'stdio' ? 'stdio' : 'HTTP'}, ${v.concurrency} in flight`,
				mb(v.rss.beforeMb),
				mb(v.rss.peakDeltaMb),
				mb(v.rss.peakDeltaMaxMb),
				chars(v.executionDataChars),
			]);
		out.push(
			'Resident memory of the n8n main process during one 1,000-item run (peak minus the value just before the run):',
			'',
			table(['Workflow', 'RSS before', 'Peak Δ, median', 'Peak Δ, max', 'Stored execution data (chars)'], rows, ['l']),
			'',
		);
	}
	const paused = results.pausedState;
	if (paused) {
		const caps = [...new Set(paused.rows.map((r) => r.cap))];
		const rows = caps.map((cap) => {
			const a = paused.rows.find((r) => r.cap === cap && r.provider === 'anthropic');
			const o = paused.rows.find((r) => r.cap === cap && r.provider === 'openaiChat');
			return [`${cap.toLocaleString('en')}${cap === paused.defaultCap ? ' (default)' : ''}`, chars(a?.stateChars), chars(a?.storeFlattedChars), chars(o?.stateChars), ms(a?.stringifyMs)];
		});
		out.push(
			`Paused Agent run after ${paused.bigResults} approved tool calls that each returned ${chars(paused.bigResultChars)} characters, waiting for approval of a sixth (approval mode "all"):`,
			'',
			table(['Max Tool Result Characters', 'State, Anthropic (JSON chars)', 'As stored by n8n (flatted)', 'State, OpenAI Chat (JSON chars)', 'JSON.stringify'], rows, ['l']),
			'',
			`The first pause of the same run (no results yet) stores ${chars(paused.rows[0]?.firstPauseChars)} characters; what grows is the conversation, capped per result.`,
			'',
		);
	}
	return out.join('\n');
}

/** Why the Agent rows go by the paired ratio, with this run's own spread (every figure from its batches). */
function agentEstimatorNote(results) {
	const sdk = (results.agent?.configs ?? []).filter((c) => c.mode === 'sdk');
	const m = results.meta;
	const machineText = m?.machine ? ` (this run: ${m.machine.cores} cores, load average ${m.loadAverageStart?.[0] ?? '?'} at the start${m.loadAverageEnd ? `, ${m.loadAverageEnd[0]} at the end` : ''})` : '';
	const widest = sdk.flatMap((c) => [{ c, side: 'raw loop', s: c.raw.cpu }, { c, side: 'ours', s: c.ours.cpu }]).reduce((a, b) => (b.s.median / b.s.p25 > a.s.median / a.s.p25 ? b : a), { s: { median: 1, p25: 1 } });
	const example = widest.c
		? ` In this run the widest spread of one side's batches was ${widest.c.provider === 'anthropic' ? 'Anthropic' : 'OpenAI Chat'} at ${widest.c.turns} turns, ${widest.side}: p25 ${ms(widest.s.p25)}, median ${ms(widest.s.median)}, p75 ${ms(widest.s.p75)} per run.`
		: '';
	const withCi = sdk.filter((c) => Number.isFinite(c.ratioCpuPairedCi?.low));
	const spread = withCi.length
		? ` The spread of the paired ratio in this run, as a 95% confidence interval of its median over the batch pairs (order statistics, no assumption about the distribution): ${withCi
				.map((c) => `${providerName(c.provider)} ${c.turns} turns ${x(c.ratioCpuPaired)} (${x(c.ratioCpuPairedCi.low)}–${x(c.ratioCpuPairedCi.high)}, ${c.ratioCpuPairedCi.n} pairs)`)
				.join('; ')}. One run cannot say how far another run would land.`
		: '';
	return (
		`The Agent rows are decided by the paired ratio, the median of ours ÷ raw over adjacent batches: on a machine shared with other work${machineText} batch times can shift between a fast and a slow state for stretches of many batches, so the median of each side can land in different states, while adjacent batches run in the same one. The ratio of the medians is shown beside it.` +
		example +
		spread
	);
}


/** What an expression per item cost in this run: the expression variant against fields mapped, same transport, sequential. */
function expressionCostNote(results) {
	const call = results.callTool;
	const find = (list, key) => (list ?? []).find((e) => e.key === key);
	const fields = find(call?.variants, 'ours-stdio-c1-fields-1000');
	const expression = find(call?.variants, 'ours-stdio-c1-expression-1000');
	if (!fields || !expression) return '';
	const raw = find(call.raw, 'raw-stdio-c1-kept-1000');
	return (
		` In this run (stdio, sequential, kept connection) the expression took ${ms((expression.nodeMs - fields.nodeMs) / expression.items, 3)} more node time per item than fields mapped (${ms(expression.perCallMs, 3)} against ${ms(fields.perCallMs, 3)} per call) and ${ms(expression.cpuPerCallMinusEmptyMs - fields.cpuPerCallMinusEmptyMs, 3)} more CPU per item` +
		(raw ? `, against ${ms(raw.callsMs / raw.items, 3)} for a whole call of the raw SDK client on a kept connection.` : '.')
	);
}

function targetsSection(targets, results) {
	const rows = targets.map((t) => [t.target, t.measured, t.met === null ? '–' : t.met ? '✅ met' : '❌ missed']);
	const notes = [];
	if (targets.some((t) => t.id.startsWith('sequential-vs-raw'))) {
		notes.push(
			'The sequential rows against the raw SDK client compare like with like: **warm vs warm** is our node on a kept connection (*Keep Server Running*, the default: no connect or server start in its time) against the raw client\'s 1,000 calls on a connection it keeps (connected and warmed up before its runs); **cold vs cold** is our node with *Keep Server Running* off (connect, for stdio spawning the server, tools/list, the calls, close in every execution) against the raw client\'s whole run doing the same. Warm vs warm decides the target, a kept connection being the node\'s default; cold vs cold is reported beside it (supplementary).',
		);
	}
	if (targets.some((t) => t.id.endsWith('-expression'))) {
		notes.push(
			'MCP Call Tool is measured with three ways of giving each item its arguments. **Fields mapped from the item** is the node\'s default mode (Fields From the Tool Schema) with `message` mapped as `{{ $json.message }}`, what n8n\'s editor writes when the field is dragged from the input; the node reads such plain `$json` paths from the item itself. ' +
				'**Input Item** makes the item itself the arguments object. **Computed by an expression** (`{{ JSON.stringify({ message: $json.message }) }}`, supplementary) needs n8n\'s expression engine, which n8n 2.41 runs once per item in isolated-vm (`@n8n/expression-runtime` in n8n\'s CPU profile, `--profile`).' +
				expressionCostNote(results) +
				" Every n8n node with a per-item expression pays that, n8n's MCP Client and n8n-nodes-mcp included; for thousands of items, map plain fields or shape the items upstream.",
		);
	}
	if (targets.some((t) => t.id.startsWith('agent-overhead'))) {
		notes.push(agentEstimatorNote(results));
	}
	return ['### Targets', '', table(['Target', 'Measured', 'Result'], rows, ['l', 'l', 'l']), '', ...notes.flatMap((n) => [n, ''])].join('\n');
}

function warmSection(warm) {
	const r = warm.results;
	const row = (label, key) => [label, ms(r[`cold-${key}`].median), ms(r[`warm-${key}`].median), ms(r[`raw-warm-${key}`].median), x(r[`cold-${key}`].median / r[`warm-${key}`].median, 0)];
	return [
		'### One warm execution: a kept connection vs the cold path',
		'',
		table(['Transport', 'Cold (Keep Server Running off)', 'Warm (kept connection)', 'Raw SDK call, warm connection', 'Cold ÷ warm'], [row('stdio (server-everything)', 'stdio'), row('Streamable HTTP (server-everything)', 'http')], ['l', 'r', 'r', 'r', 'r']),
		'',
		`One one-item execution as MCP Call Tool does it, without n8n: credential data to server config and pool key, connection from the pool, tools/list (cached when warm), one validated \`echo\` call, release (cold: connect or spawn, list, call, close). Medians of ${r['warm-stdio'].n ?? warm.reps} warm and ${r['cold-stdio'].n ?? warm.coldReps} cold executions after a warm-up; the raw SDK row is one \`callTool\` on a connected raw client.`,
		'',
	].join('\n');
}

/** The lean HTTP path against the SDK transport under the same connection (part 'leanHttp'). */
function leanHttpSection(lean) {
	const names = { everything: 'server-everything (streamableHttp)', minimal: 'minimal JSON server (`bench/fixtures/minimal-http-server.js`)' };
	const rows = Object.entries(lean.servers).map(([name, r]) => [
		names[name] ?? name,
		r.protocol,
		ms(r.lean.wallMs),
		ms(r.sdk.wallMs),
		`**${x(r.ratio.wall)}**`,
		ms(r.lean.cpuMs),
		ms(r.sdk.cpuMs),
		`**${x(r.ratio.cpu)}**`,
	]);
	return [
		"### The lean HTTP path vs the v2 client's own transport",
		'',
		table(['Server (loopback)', 'Protocol', 'Lean, per call', 'SDK transport, per call', 'SDK ÷ lean (wall)', 'Lean, client CPU per call', 'SDK, client CPU per call', 'SDK ÷ lean (CPU)'], rows, ['l', 'l']),
		'',
		`Sequential \`echo\` calls through McpConnection and a validated tools/call on a kept connection, once on the lean node:http path (\`lib/mcp/leanHttpTransport.ts\`) and once on \`StreamableHTTPClientTransport\` of @modelcontextprotocol/client ${lean.sdkVersion}, everything else the same; ${lean.batches} batches of ${lean.batch} calls per side, alternating, medians; the ratios are medians over adjacent batch pairs. CPU is the benchmark process's (the client's side). Run alone with \`node bench/run.js --only=leanHttp\` (after \`npm run build\`).`,
		'',
	].join('\n');
}

/** Part 'oneItem' and 'agentN8n': one small execution in n8n (suites/oneExecution.js). */
/** The one-item table (part 'oneItem'): cold, warm, n8n's MCP Client, no-n8n library and raw SDK; '' without data. */
function oneExecutionTable(one) {
	const v = (key) => (one.variants || []).find((e) => e.key === key);
	const lib = (key) => one.noN8n?.[key]?.median;
	const rows = [];
	const lines = [
		{ name: 'stdio (server-everything)', transport: 'stdio', warm: 'ours-stdio-warm-1', cold: 'ours-stdio-cold-1' },
		{ name: 'Streamable HTTP (server-everything)', transport: 'http', warm: 'ours-http-warm-1', cold: 'ours-http-cold-1', builtin: 'builtin-http-1' },
		{ name: 'Streamable HTTP, both nodes with a Bearer token credential (supplementary)', warm: 'ours-http-bearer-warm-1', builtin: 'builtin-http-bearer-1' },
	];
	for (const line of lines) {
		const warm = v(line.warm);
		const cold = line.cold ? v(line.cold) : undefined;
		if (!warm && !cold) continue;
		const builtin = line.builtin ? v(line.builtin) : undefined;
		rows.push([
			line.name,
			ms(cold?.nodeMs),
			`**${ms(warm?.nodeMs)}**`,
			builtin ? ms(builtin.nodeMs) : '–',
			line.transport ? ms(lib(`warm-${line.transport}`)) : '–',
			line.transport ? ms(lib(`raw-warm-${line.transport}`)) : '–',
			cold ? x(cold.nodeMs / warm?.nodeMs, 0) : '–',
			builtin ? x(builtin.nodeMs / warm?.nodeMs) : '–',
			`${ms(cold?.wallMs)} / ${ms(warm?.wallMs)}${builtin ? ` / ${ms(builtin.wallMs)}` : ''}`,
		]);
	}
	if (!rows.length) return '';
	return table(
		['Transport', 'MCP Call Tool, cold (Keep Server Running off)', 'MCP Call Tool, warm (default)', "n8n's MCP Client node", 'Our library on a kept connection, no n8n', 'Raw SDK `callTool`, warm connection', 'Cold ÷ warm', "n8n's MCP Client ÷ warm", 'Webhook round trip (cold / warm / MCP Client)'],
		rows,
		['l'],
	);
}

function oneExecutionSection(one) {
	const v = (key) => (one.variants || []).find((e) => e.key === key);
	const out = [];
	const oneItem = oneExecutionTable(one);
	if (oneItem) {
		out.push(
			"### One one-item execution in n8n: kept connection vs cold path vs n8n's MCP Client vs the raw SDK",
			'',
			oneItem,
			'',
			`A webhook-triggered workflow (Webhook → the measured node, the webhook's body being the one item, as in the Agent rows below) per variant, in one n8n 2.41.1; no Code node in front, because n8n 2.x runs a Code node in its task runner and handles the runner's messages after the task while the next node runs, which would put unrelated work into the measured node's time (ours and n8n's MCP Client alike); the times are the node's own \`executionTime\` from n8n's execution data (warm: reading the credential, the kept connection from the pool, tools/list from its cache, the call, release; cold: reading the credential, connecting or for stdio spawning the server, tools/list, the call, close), medians of ${runsNote((one.variants || []).filter((e) => e.part === 'oneItem'))} runs per variant after a warm-up run, every variant once per round in a shuffled order (seeded by the round, so that no variant always follows the same one). ` +
				`Cold is MCP Call Tool with a copy of the credential whose *Keep Server Running* is off: a new connection (for stdio a new server process) per execution, as every execution ran before. The Bearer row gives both nodes a credential with a token (ours: *Authentication* Bearer Token; n8n's: Bearer Auth), so that both read one from n8n's database, as against a server that needs a key; n8n's MCP Client on the main row has no credential to read. ` +
				`The two columns without n8n come from a plain script run once per round against the same HTTP server (and its own stdio server): our library's whole one-item execution on a kept connection (credential data → pool → cached tools/list → validated call → release), and one \`callTool\` of the raw MCP SDK client on a warm connection, ${one.rawCallsPerRound} calls per round, medians over all of them (${[...new Set(Object.values(one.noN8n ?? {}).map((e) => e.n))].join(', ') || '?'} calls).`,
			'',
		);
	}
	const ours = v('agent-ours-http');
	const theirs = v('agent-n8n-http');
	const viaSubNode = v('agent-ours-chatmodel-http');
	if (ours || theirs || viaSubNode) {
		const agentRow = (label, e) => [label, `**${ms(e?.nodeMs)}**`, ms(e?.rootSumMs), ms(e?.wallMs), ms(e?.executionMs)];
		const rows = [agentRow('**MCP Agent (this package)**, built-in OpenAI Chat Completions provider, MCP Server sub-node, kept connection', ours), agentRow("n8n's AI Agent 3.1, OpenAI Chat Model, MCP Client Tool", theirs)];
		if (viaSubNode) rows.push(agentRow("**MCP Agent (this package)**, Provider Chat Model with n8n's OpenAI Chat Model sub-node, MCP Server sub-node, kept connection", viaSubNode));
		out.push(
			"### A webhook-triggered Agent run with one tool call: MCP Agent vs n8n's AI Agent",
			'',
			table(['Agent', 'Root node time', 'Root node executionTime', 'Webhook round trip', 'Execution (n8n start → stop)'], rows, ['l']),
			'',
			`n8n's AI Agent ÷ MCP Agent (built-in provider): ${x(theirs?.nodeMs / ours?.nodeMs)} by root node time, ${x(theirs?.wallMs / ours?.wallMs)} by webhook round trip (ratios of the medians). ` +
				chatModelPairsText(one) +
				`Webhook (answering with the last node's output) → the agent, with one MCP server over Streamable HTTP (server-everything, every tool offered) and the same zero-latency fake model on loopback (\`bench/lib/fakeModel.js\`, OpenAI Chat Completions; plan \`${one.agentModel}\`: call \`echo\`, then answer; n8n's chat model sends \`stream: false\`, a streaming request would fail the run). ` +
				"Ours: provider OpenAI Chat Completions, no review; the server credential keeps its connection (the default). n8n's: AI Agent 3.1, OpenAI Chat Model 1.3 with the Responses API off and its credential's base URL on the fake, MCP Client Tool 1.2 on the same server. " +
				(viaSubNode
					? "Ours through the sub-node: Provider *Chat Model (Connected Sub-Node)* with the same OpenAI Chat Model 1.3 node on its Chat Model input (same credential on the fake, Responses API off), the same MCP Server sub-node. "
					: '') +
				`Each answer is checked (the final text only comes after a tool result went back to the model; n8n's MCP Client Tool ran once; our Agent listed exactly one \`echo\` call${viaSubNode ? `; the OpenAI Chat Model sub-node ran ${one.agentModelCalls ?? '?'} times, once per model call, under either agent` : ''}). Medians of ${runsNote([ours, theirs, viaSubNode].filter(Boolean))} runs each after a warm-up run, interleaved with the other variants in a shuffled order. ` +
				"**Root node time**: the span of the agent node's runs in n8n's execution data, and of its tool node's run when n8n runs the tool as a node of its own (in 2.41.1 the AI Agent runs once and the tool's run lies inside it); **Root node executionTime**: the agent node's own executionTime.",
			'',
		);
	}
	return out.join('\n');
}

/** "a× (95% CI l–h)" for a paired ratio of bench/lib/derive.js pairedSampleRatio. */
function pairedRatioText(r) {
	return `${x(r.median)}${Number.isFinite(r.ci?.low) ? ` (95% CI ${x(r.ci.low)}–${x(r.ci.high)})` : ''}`;
}

/** The paired ratios of the Chat Model sub-node variant (issue 30), from this run's samples; '' without them. */
function chatModelPairsText(one) {
	const pairs = one.agentPairs ?? {};
	const sentence = (pair, label) =>
		pair?.nodeMs.n ? `${label}: ${pairedRatioText(pair.nodeMs)} by root node time, ${pairedRatioText(pair.wallMs)} by webhook round trip, medians over ${pair.nodeMs.n} rounds of the ratio of the two runs in the same round. ` : '';
	return (
		sentence(pairs.chatModelVsN8n, "MCP Agent through n8n's OpenAI Chat Model sub-node ÷ n8n's AI Agent with the same sub-node") +
		sentence(pairs.chatModelVsBuiltIn, 'MCP Agent through the sub-node ÷ MCP Agent with its built-in provider')
	);
}

/** Part 'approvals': the workload in n8n against the oracle, and the cost of judging one call (every figure from this run's results). */
function approvalsSection(approvals) {
	const out = ['### Approval rules and standing approvals', ''];
	const w = approvals.workload;
	if (w) {
		const row = (label, expected, actual) => [label, String(expected), String(actual), expected === actual ? 'equal' : '**differs**'];
		out.push(
			table(
				['Calls', 'Expected (oracle)', 'In n8n', ''],
				[
					row('Reached a person (*Needs Approval*)', w.expected.ask, w.actual.ask),
					row('Refused by a rule', w.expected.refuse, w.actual.refuse),
					row('Ran without review', w.expected.run, w.actual.run),
					row('… let through by a run rule', w.expected.runBy.byRule, w.actual.runBy.byRule),
					row('… let through by a standing approval', w.expected.runBy.byGrant, w.actual.runBy.byGrant),
					row('… let through by the policy (*Never Ask For*)', w.expected.runBy.byPolicy, w.actual.runBy.byPolicy),
					row('Anything else (no output, two outputs, another call)', 0, w.actual.other),
					row('Reached the MCP server (its own record)', w.server.expectedRuns, w.server.calls),
					row('Uses counted on the grants in the database', w.grantUses.expected, w.grantUses.counted),
				],
				['l'],
			),
			'',
			`Calls run without review outside the rules and grants: **${w.ranOutsideRules}**. Calls whose outcome, rule, grant or policy (and, for a call that waits, the decisions offered) differ from the oracle's: **${w.mismatches}** of ${w.calls}.`,
			'',
			`${w.calls} scripted calls (${Object.entries(w.perTool)
				.map(([tool, n]) => `${n} \`${tool}\``)
				.join(', ')}) of a stdio MCP server (\`bench/fixtures/approval-tools-server.js\`, which records every call it runs), one Agent run per call, ${w.batch} runs per webhook-triggered execution (${w.executions} executions). ` +
				`Rules: ${w.rules.list} in the node's *Approval Rules* list and ${w.rules.json} in *Approval Rules (JSON)* (${w.rules.effects.run} run, ${w.rules.effects.ask} ask, ${w.rules.effects.refuse} refuse, with conditions on the arguments); *Require Approval For* ${w.policy.requireApprovalFor}, *Always Ask For* \`${w.policy.alwaysAsk}\`, *Never Ask For* \`${w.policy.neverAsk}\`. ` +
				`Standing approvals: ${w.grants.inserted} inserted into n8n's database through the package's grant store before n8n started (exact and field conditions; revoked, expired, bound to an earlier definition, of another Agent node or workflow, or matching no call among them), ${w.grants.covering} of which cover calls of the workload. ` +
				"The expected outcome of each call comes from the workload's definitions alone (`bench/lib/approvalWorkload.js`: its own JSON Schema evaluator and the order of decision in docs/human-review.md), never from the package's code; what happened comes from the Agent's two outputs as n8n stored them (a paused run counts as reaching a person; no one decides it) and from the server's record. " +
				`Agent node time per call in n8n: median ${ms(w.timing.agentMsPerCall)} over the executions (zero-latency scripted model, two model calls per run that is not paused).`,
			'',
		);
	}
	const j = approvals.judging;
	if (j) {
		const us = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} µs` : '–');
		const kinds = [
			['ranByRuleOrPolicy', 'Run by a rule or the policy (no grant check)'],
			['refused', 'Refused by a rule'],
			['asked', 'Would wait: checked against the grants, none covers'],
			['granted', 'Would wait: checked against the grants, one covers'],
		];
		const line = (label, list) => [label, String(list.length), us(quantile(list, 0.5)), `**${us(quantile(list, 0.95))}**`, us(quantile(list, 0.99)), us(list.length ? Math.max(...list) : NaN)];
		const rows = kinds.filter(([key]) => j.samples[key]).map(([key, label]) => line(label, j.samples[key]));
		rows.push(line('**Checked against the grants (asked or covered)**', [...(j.samples.asked ?? []), ...(j.samples.granted ?? [])]));
		rows.push(line('Every call', Object.values(j.samples).flat()));
		if (j.concentrated) {
			const c = j.concentrated.samples;
			rows.push(line(`Supplementary: all ${j.concentrated.grantsOnTool.toLocaleString('en')} grants on \`${j.concentrated.tool}\`, its calls checked against them`, [...(c.asked ?? []), ...(c.granted ?? [])]));
		}
		out.push(
			table(['Judging one call', 'Samples', 'Median', 'p95', 'p99', 'Max'], rows, ['l']),
			'',
			`One sample = one call judged by the package's own code in a warm Node process without n8n (\`bench/scripts/judge-call.js\`): \`judgeCall\` over ${j.rules} rules (${j.rulesWithCondition} with a condition) and the policy, then, for a call that would wait for a person, \`applyGrants\` over ${j.grants.toLocaleString('en')} grants of the Agent node (${Object.values(j.grantsPerTool).join('/')} per tool), parsed as \`readGrants\` hands them over; reading them from the database is not included. ` +
				`${j.distinctCalls.toLocaleString('en')} calls made like the workload's, ${j.passes} measured passes after ${j.warmupPasses} warm-up passes; every sample is kept in the results (\`latest.json\` after a complete run). ` +
				`A sample's time is wall-clock time, so on a shared machine it includes any moment the process was not running (the tail of the distribution); the CPU time of the measured passes was ${us(cpuPerCall(j.passCpu))} per call` +
				(j.concentrated?.passCpu ? ` (${us(cpuPerCall(j.concentrated.passCpu))} with all grants on the tool called).` : '.'),
			'',
		);
	}
	return out.join('\n');
}

/** When, where and what a run measured: date, machine, Node and n8n versions, package and commit. */
function runLine(m) {
	return (
		`Measured ${m.date.slice(0, 10)} on ${m.machine.cpu} (${m.machine.cores} cores, ${m.machine.memoryGb} GB RAM, ${m.machine.os}); ` +
		`benchmarks and n8n on Node ${m.node.benchmarks}, n8n ${m.n8n}; ${m.package} at ${m.commit}.`
	);
}

/** The Agent overhead rows' worst case, without the per-provider breakdown that follows (in latest.md). */
function worstCase(measured) {
	let depth = 0;
	for (let i = 0; i < measured.length; i++) {
		const c = measured[i];
		if (c === '(') depth++;
		else if (c === ')') depth--;
		else if (depth === 0 && measured.startsWith('; ', i)) return measured.slice(0, i);
	}
	return measured;
}

/**
 * The README's Performance section (between its bench markers): the run line, every target's ratio
 * and the one-item table (issue 13's warm, cold, n8n's MCP Client and raw SDK times); the
 * supplementary rows, the other tables and how each number is measured stay in latest.md.
 */
/**
 * The README's families of targets, one row each (the README stays short; latest.md has every
 * row): a target whose id matches no family gets a row of its own, so none is left out.
 */
const README_FAMILIES = [
	[/^stdio-vs-n8n-nodes-mcp-/, 'stdio, 1,000 items: ≥ 500× faster per call than n8n-nodes-mcp'],
	[/^http-vs-n8n-mcp-client-/, "HTTP, 1,000 items: ≥ 3× faster than n8n's MCP Client node"],
	[/^sequential-vs-raw-/, 'Sequential calls on a kept connection: within 1.25× of the raw SDK client'],
	[/^agent-overhead-/, 'Agent loop: within 1.1× of a raw-SDK loop (host CPU)'],
	[/^agent-growth-/, 'Agent time per turn grows at most linearly (10 → 100 turns)'],
	[/^warm-stdio/, 'stdio, one execution: warm ≥ 50× cheaper than cold'],
	[/^warm-http-vs-n8n-mcp-client/, "HTTP, one execution in n8n: ≥ 3× cheaper than n8n's MCP Client node"],
	[/^agent-vs-n8n-ai-agent$/, "Webhook Agent run, one tool call: ≥ 3× below n8n's AI Agent"],
	[/^agent-chatmodel-vs-n8n-ai-agent$/, "The same through n8n's OpenAI Chat Model sub-node: no slower than n8n's AI Agent on it"],
	[/^approvals-/, 'Approval rules and standing approvals: the right calls reach a person, none runs unreviewed, judging < 1 ms'],
	[/^tool-tokens-(search|native)-/, 'Tool search on a 1,023-tool Agent: input tokens ≤ 10% of All Tools'],
	[/^tool-tokens-cache-/, 'Prompt cache: ≥ 90% of the tool and system part read on every turn after the first'],
];

/** One row per family: how many of its targets were met, and what the missed ones measured (their first clause). */
function readmeRows(targets) {
	const groups = new Map();
	for (const t of targets) {
		if (t.met === null) continue;
		const family = README_FAMILIES.find(([pattern]) => pattern.test(t.id));
		const label = family ? family[1] : t.target;
		if (!groups.has(label)) groups.set(label, []);
		// Which member, by the rest of its id (e.g. "openaiChat-search"), when the family has several.
		groups.get(label).push({ ...t, variant: family ? t.id.replace(family[0], '') : '' });
	}
	return [...groups].map(([label, members]) => {
		const missed = members.filter((t) => !t.met);
		const counted = `${members.length - missed.length} of ${members.length} met`;
		const named = (t) => (members.length > 1 && t.variant ? ` (${t.variant})` : '');
		const shown = (missed.length ? missed : members.slice(0, 1)).map((t) => worstCase(t.measured).split(' (')[0] + named(t));
		return [label, `${counted}; ${missed.length ? 'missed: ' : ''}${shown.join(', ')}`, missed.length ? `❌ ${missed.length} missed` : '✅ met'];
	});
}

function renderReadmePerformance(results) {
	const all = results.targets ?? [];
	const main = all.filter((t) => !t.target.startsWith('supplementary:'));
	const met = main.filter((t) => t.met === true).length;
	return [
		`${runLine(results.meta)} Latest complete run of \`npm run bench\`: ${met} of ${main.filter((t) => t.met !== null).length} targets met (supplementary rows aside). Every row, with its figures, in [bench/results/latest.md](bench/results/latest.md); the method in [docs/performance.md](docs/performance.md). One shared machine: the ratios are the point, not the absolute numbers.`,
		'',
		table(['Targets', 'Measured', 'Result'], readmeRows(main), ['l', 'l', 'l']),
	].join('\n');
}

function renderMarkdown(results) {
	const m = results.meta;
	const out = [
		'## Performance',
		'',
		`${runLine(m)} ` +
			`Load average (1 min) ${m.loadAverageStart[0]} at the start, ${m.loadAverageEnd ? m.loadAverageEnd[0] : '?'} at the end. ` +
			(m.loadAverageStart[0] > m.machine.cores ? 'The machine was shared with other work during the run (load above its core count), which inflates and scatters times. ' : '') +
			'One run on one machine: the ratios are the point, not the absolute numbers. Reproduce with `npm run bench` (results in `bench/results/`).' +
			(m.quick ? ' **Quick run (`--quick`): few repetitions, rough numbers.**' : ''),
		'',
	];
	if (results.targets?.length) out.push(targetsSection(results.targets, results));
	if (results.callTool) out.push(callToolSection(results.callTool));
	if (results.agent) out.push(agentSection(results.agent));
	if (results.manyTools) out.push(manyToolsSection(results.manyTools));
	if (results.scanListing) out.push(scanListingSection(results.scanListing));
	if (results.warm) out.push(warmSection(results.warm));
	if (results.leanHttp) out.push(leanHttpSection(results.leanHttp));
	if (results.oneExecution) out.push(oneExecutionSection(results.oneExecution));
	if (results.approvals) out.push(approvalsSection(results.approvals));
	if (results.toolTokens) out.push(toolTokensSection(results.toolTokens));
	if (results.callTool || results.pausedState) out.push(memorySection(results));
	return `${out.join('\n')}\n`;
}

module.exports = { renderMarkdown, renderReadmePerformance };
