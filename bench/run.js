'use strict';
// `npm run bench`: performance of n8n-nodes-mcp-agent next to its limits and its competitors.
// Writes bench/results/latest.json, bench/results/latest.md and the README's Performance section,
// and prints the Markdown (a partial, --quick or --profile run writes partial.json/.md to a temp
// folder instead).
//
//   1. MCP Call Tool, 1,000 items, in a real n8n 2.41.1 (our node over stdio and HTTP, sequential
//      and concurrent; n8n's MCP Client node; n8n-nodes-mcp 0.1.37) and the raw SDK client.
//   2. Agent host overhead: our agent loop vs a hand-written loop with the raw SDKs.
//   3. A server with 1,000 tools: list, fingerprint, convert, compile validators.
//   4. Memory: n8n's RSS during 1,000-item runs; stored size of a paused agent run.
//   5. One warm execution without n8n (warm) and in n8n (oneItem): kept connection vs cold path vs
//      n8n's MCP Client vs the raw SDK; a webhook-triggered Agent run with one tool call (agentN8n):
//      our MCP Agent vs n8n's AI Agent with MCP Client Tool, same fake model and server.
//   6. The lean HTTP path (lib/mcp/leanHttpTransport.ts) vs the v2 client's own Streamable HTTP
//      transport under the same connection (leanHttp): whether the hand-made path still pays.
//   7. Approval rules and standing approvals (approvals): 200 scripted calls over 5 tools through the
//      Agent in n8n 2.41.1, each outcome compared with an oracle's; and the cost of judging one call
//      against 50 rules and 1,000 grants in plain Node.
//   8. The durable task wait (taskWait): a webhook-triggered execution calling a 10-minute MCP task
//      (BENCH_TASK_SECONDS) vs n8n's Wait node as long: n8n's CPU and memory while waiting, latency.
//   9. Tool tokens (toolTokens): a scripted conversation through the Agent's loop with a 1,000-tool
//      server and two small ones, on Anthropic Messages, OpenAI Chat and Responses fakes that count
//      input tokens (gpt-tokenizer) and cache reads as the providers do: All Tools vs tool search.
//
// Benchmarks, not tests: numbers come from one run on one machine; nothing here asserts timings.
// Options:
//   --only=callTool,agent,manyTools,scanListing,pausedState,warm,leanHttp,oneItem,agentN8n,approvals,taskWait,toolTokens   run some parts (default: all)
//   --variants=key,key                            Call Tool variants to run (see suites/callTool.js)
//   --quick                                       fewer repetitions (a smoke run; numbers are rough)
//   --profile                                     run n8n with --cpu-prof; summary in the partial folder's profile.md
//   --keep                                        keep the temporary n8n folder
//   --render                                      only rewrite latest.md and the README's Performance section from latest.json (no measuring)
//   --reps=N                                      measured runs per one-execution variant (oneItem, agentN8n; e.g. for --profile)
// Environment: MCP_AGENT_CACHE as in scripts/ensure-n8n.sh.

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const processes = require('../test/e2e/lib/processes');
const { BENCH, EVERYTHING_ENTRY, REPO, RUN_MARKER_NAME, log, machine, resolveN8n } = require('./lib/common');
const { runScript } = require('./lib/child');
const { renderMarkdown, renderReadmePerformance } = require('./lib/report');
const { evaluateTargets } = require('./lib/targets');
const { deriveResults } = require('./lib/derive');
const { profileMarkdown, summarizeProfile } = require('./lib/profile');
const { runCallToolSuite } = require('./suites/callTool');
const { runOneExecutionSuite } = require('./suites/oneExecution');
const { runApprovalsSuite } = require('./suites/approvals');
const { runTaskWaitSuite } = require('./suites/taskWait');
const { renderTaskWait } = require('./lib/taskWaitReport');

const PARTS = ['callTool', 'agent', 'manyTools', 'scanListing', 'pausedState', 'warm', 'leanHttp', 'oneItem', 'agentN8n', 'approvals', 'taskWait', 'toolTokens'];
/** Measured runs of each one-execution variant (n8n, one item or one Agent run), after a warm-up. */
const ONE_EXECUTION_REPS = { full: 60, quick: 2 };

function parseArgs(argv) {
	const options = { only: PARTS, variants: undefined, quick: false, profile: false, keep: false, render: false, reps: undefined };
	for (const arg of argv) {
		const [name, value] = arg.replace(/^--/, '').split('=');
		if (name === 'only') options.only = value.split(',');
		else if (name === 'variants') options.variants = value.split(',');
		else if (name === 'quick') options.quick = true;
		else if (name === 'profile') options.profile = true;
		else if (name === 'keep') options.keep = true;
		else if (name === 'render') options.render = true;
		else if (name === 'reps') options.reps = Number(value);
		else throw new Error(`unknown option ${arg}`);
	}
	for (const part of options.only) if (!PARTS.includes(part)) throw new Error(`unknown part ${part} (parts: ${PARTS.join(', ')})`);
	return options;
}

const runId = crypto.randomBytes(6).toString('hex');
const marker = `${RUN_MARKER_NAME}=${runId}`;
const everPgids = new Set();
let runDirs = [];

/** Every process this run started, however it was started (own groups, n8n's detached stdio servers). */
function leftovers() {
	const found = new Map();
	for (const dir of runDirs.length ? runDirs : [undefined]) {
		for (const p of processes.findLeftovers({ pgids: everPgids, runDir: dir, envMarker: marker })) found.set(p.pid, p);
	}
	// n8n-nodes-mcp passes MCP_* variables on with the prefix cut off.
	for (const p of processes.findLeftovers({ pgids: new Set(), envMarker: `${RUN_MARKER_NAME.replace(/^MCP_/, '')}=${runId}` })) found.set(p.pid, p);
	return [...found.values()];
}

function killLeftoversNow() {
	processes.killAllGroupsNow();
	for (const p of leftovers()) {
		try {
			process.kill(p.pid, 'SIGKILL');
		} catch {
			/* gone */
		}
	}
}

function onSignal(signal) {
	process.stderr.write(`\n[bench] ${signal}: stopping every process this run started\n`);
	killLeftoversNow();
	process.exit(130);
}
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
process.on('exit', () => processes.killAllGroupsNow());

function gitCommit() {
	const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' });
	const dirty = spawnSync('git', ['status', '--porcelain', '--', 'lib', 'nodes', 'credentials'], { cwd: REPO, encoding: 'utf8' });
	return result.status === 0 ? `${result.stdout.trim()}${dirty.stdout.trim() ? ' (lib/nodes modified)' : ''}` : 'unknown';
}

/** JSON of the results, indented, with each array of numbers (the samples) on one line. */
function stringifyResults(results) {
	// Only a pretty-printed array (a newline after its bracket) matches, never text inside a string.
	return JSON.stringify(results, null, 2).replace(/\[\n\s*((?:-?[\d.eE+-]+|null)(?:,\n\s*(?:-?[\d.eE+-]+|null))*)\n\s*\]/g, (_, inner) => `[${inner.split(/,\n\s*/).join(', ')}]`);
}

function writeAtomically(file, text) {
	const tmp = `${file}.tmp`;
	fs.writeFileSync(tmp, text);
	fs.renameSync(tmp, file);
}

async function tracked(start) {
	const before = new Set(processes.groups);
	const promise = start();
	for (const pgid of processes.groups) if (!before.has(pgid)) everPgids.add(pgid);
	return promise;
}

const README_START = '<!-- bench:performance:start (written by `npm run bench`) -->';
const README_END = '<!-- bench:performance:end -->';

/** Rewrites the README's Performance section from a complete run, so it never falls behind latest.md. */
function updateReadme(results) {
	const file = path.join(REPO, 'README.md');
	const text = fs.readFileSync(file, 'utf8');
	const start = text.indexOf(README_START);
	const end = text.indexOf(README_END);
	if (start < 0 || end < start) throw new Error(`README.md has no ${README_START} … ${README_END} block for the Performance section`);
	writeAtomically(file, `${text.slice(0, start + README_START.length)}\n${renderReadmePerformance(results)}\n${text.slice(end)}`);
}

function render() {
	const dir = path.join(BENCH, 'results');
	// Every figure again from the samples latest.json keeps.
	const results = deriveResults(JSON.parse(fs.readFileSync(path.join(dir, 'latest.json'), 'utf8')));
	results.targets = evaluateTargets(results);
	const markdown = renderMarkdown(results) + renderTaskWait(results);
	writeAtomically(path.join(dir, 'latest.md'), markdown);
	updateReadme(results);
	process.stdout.write(`${markdown}\n`);
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	if (options.render) {
		render();
		return options;
	}
	const started = Date.now();
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials, 'dist/lib/agent/step.js']) {
		if (!fs.existsSync(path.join(REPO, file))) throw new Error(`missing ${file}: run 'npm run build' first`);
	}
	if (!fs.existsSync(EVERYTHING_ENTRY)) throw new Error(`${EVERYTHING_ENTRY} is missing: run 'npm ci' first`);
	const n8n = resolveN8n();
	const nodeVersion = spawnSync(n8n.node24, ['-v'], { encoding: 'utf8' }).stdout.trim();
	const results = {
		meta: {
			date: new Date().toISOString(),
			package: `${pkg.name}@${pkg.version}`,
			commit: gitCommit(),
			machine: machine(),
			loadAverageStart: os.loadavg().map((v) => Math.round(v * 100) / 100),
			node: { orchestrator: process.version, benchmarks: nodeVersion },
			n8n: '2.41.1',
			quick: options.quick,
			parts: options.only,
		},
	};
	// Only a complete, full-length run replaces latest.*; partial, quick or profiled runs go to a temp folder.
	const complete = !options.quick && !options.profile && !options.variants && !options.reps && PARTS.every((part) => options.only.includes(part));
	const outDir = complete ? path.join(BENCH, 'results') : fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-bench-partial-'));
	const outName = complete ? 'latest' : 'partial';
	const childEnv = { [RUN_MARKER_NAME]: runId };
	const reps = options.quick ? { reps: 1, loopReps: 1, rawReps: 1 } : { reps: 5, loopReps: 2, rawReps: 5 };

	if (options.only.includes('agent')) {
		log('part 2: agent host overhead (ours vs a hand-written raw-SDK loop)');
		results.agent = await tracked(() => runScript(n8n.node24, 'agent-overhead.js', { quick: options.quick }, { env: childEnv }));
		// The same comparison with the raw loop on the MCP client our library uses (v2): what our own loop adds.
		results.agentRawV2 = await tracked(() => runScript(n8n.node24, 'agent-overhead.js', { quick: options.quick, modes: ['sdk'], rawClient: 'v2' }, { env: childEnv }));
	}
	if (options.only.includes('warm')) {
		log('part 5: fixed cost of one warm execution (kept connection) vs the cold path and the raw SDK');
		results.warm = await tracked(() => runScript(n8n.node24, 'warm-execution.js', { reps: options.quick ? 50 : 300, coldReps: options.quick ? 3 : 15 }, { env: childEnv }));
	}
	if (options.only.includes('leanHttp')) {
		log("part 6: the lean HTTP path vs the v2 client's own Streamable HTTP transport");
		results.leanHttp = await tracked(() => runScript(n8n.node24, 'lean-transport.js', { batches: options.quick ? 6 : 40, batch: 50 }, { env: childEnv }));
	}
	if (options.only.includes('toolTokens')) {
		log('part 9: input tokens and cache reads of a conversation on a 1,000-tool server, All Tools vs tool search');
		results.toolTokens = await tracked(() => runScript(n8n.node24, 'tool-tokens.js', {}, { env: childEnv }));
	}
	if (options.only.includes('manyTools')) {
		log('part 3: a server with 1,000 tools');
		results.manyTools = await tracked(() => runScript(n8n.node24, 'many-tools.js', { tools: 1000, quick: options.quick }, { env: childEnv }));
	}
	if (options.only.includes('scanListing')) {
		log('part 3b: the poisoning scan of a 2,000-tool listing, benign and hostile (near-miss text)');
		results.scanListing = await tracked(() => runScript(n8n.node24, 'scan-listing.js', { tools: 2000, quick: options.quick }, { env: childEnv }));
	}
	if (options.only.includes('pausedState')) {
		log('part 4: stored size of a paused agent run with large tool results');
		results.pausedState = await tracked(() => runScript(n8n.node24, 'paused-state.js', { flatted: path.join(n8n.n8nModules, 'flatted') }, { env: childEnv }));
	}
	/** Runs an n8n suite, keeping its processes and folder for the leftover check and cleanup. */
	const runN8nSuite = async (run, suiteOptions, { profileFocus } = {}) => {
		const profileDir = options.profile ? fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-bench-prof-')) : undefined;
		if (profileDir) runDirs.push(profileDir);
		let bench;
		try {
			const out = await run({ ...n8n, runId, ...suiteOptions, profileDir });
			bench = out.bench;
			return out.result;
		} catch (error) {
			bench = error.bench;
			throw error;
		} finally {
			if (bench) {
				for (const pgid of bench.pgids) everPgids.add(pgid);
				runDirs.push(bench.runDir);
			}
			if (profileDir && bench) {
				const profiles = fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${bench.n8nPid}.`));
				const sections = profiles.map((f) => profileMarkdown(summarizeProfile(path.join(profileDir, f), { focus: profileFocus }), `n8n main process (${suiteOptions.label})`));
				const out = path.join(outDir, `profile-${suiteOptions.label.replace(/[^a-zA-Z0-9]+/g, '-')}.md`);
				fs.mkdirSync(outDir, { recursive: true });
				writeAtomically(out, `# CPU profile of n8n during the benchmark (${suiteOptions.label})\n\n${sections.join('\n') || 'no profile was written'}\n`);
				log(`profile summary: ${out} (raw profiles in ${profileDir})`);
			}
		}
	};
	const oneExecutionParts = ['oneItem', 'agentN8n'].filter((part) => options.only.includes(part));
	if (oneExecutionParts.length) {
		log(`part 5: one small execution in n8n 2.41.1 (${oneExecutionParts.join(', ')})`);
		const oneExecution = await runN8nSuite(runOneExecutionSuite, {
			label: oneExecutionParts.join(', '),
			parts: oneExecutionParts,
			reps: options.reps ?? (options.quick ? ONE_EXECUTION_REPS.quick : ONE_EXECUTION_REPS.full),
			only: options.variants,
		}, { profileFocus: /n8n-nodes-mcp-agent\/dist|n8n-nodes-langchain\/dist\/nodes\/(agents|mcp|llms)/ });
		results.oneExecution = { ...oneExecution, parts: oneExecutionParts };
	}
	if (options.only.includes('approvals')) {
		log('part 7: judging one call against 50 approval rules and 1,000 standing approvals (no n8n)');
		const judging = await tracked(() => runScript(n8n.node24, 'judge-call.js', { passes: options.quick ? 1 : 3, warmupPasses: options.quick ? 1 : 3 }, { env: childEnv }));
		log('part 7: 200 scripted calls through the MCP Agent in n8n 2.41.1 with approval rules and standing approvals');
		const workload = await runN8nSuite(runApprovalsSuite, { label: 'approvals' }, { profileFocus: /n8n-nodes-mcp-agent\/dist/ });
		results.approvals = { judging, workload };
	}
	if (options.only.includes('taskWait')) {
		log('part 8: a webhook-triggered execution calling a long MCP task vs the Wait node (BENCH_TASK_SECONDS, default 600)');
		results.taskWait = await runN8nSuite(runTaskWaitSuite, { label: 'taskWait' }, { profileFocus: /n8n-nodes-mcp-agent\/dist/ });
	}
	if (options.only.includes('callTool')) {
		log('part 1: MCP Call Tool in n8n 2.41.1 (and part 4: n8n memory)');
		results.callTool = await runN8nSuite(runCallToolSuite, {
			label: options.variants ? options.variants.join(', ') : 'all Call Tool variants',
			...reps,
			only: options.variants,
		}, { profileFocus: /n8n-nodes-mcp-agent\/dist\/nodes|n8n-nodes-langchain\/dist\/nodes\/mcp|n8n-nodes-mcp\/dist\/nodes/ });
	}

	results.meta.loadAverageEnd = os.loadavg().map((v) => Math.round(v * 100) / 100);
	results.meta.durationS = Math.round((Date.now() - started) / 1000);
	// The medians, ratios and sums the report prints, from the samples the results keep (bench/lib/derive.js).
	Object.assign(results, deriveResults(results));
	results.targets = evaluateTargets(results);

	const markdown = renderMarkdown(results) + renderTaskWait(results);
	fs.mkdirSync(outDir, { recursive: true });
	writeAtomically(path.join(outDir, `${outName}.json`), `${stringifyResults(results)}\n`);
	writeAtomically(path.join(outDir, `${outName}.md`), markdown);
	if (complete) updateReadme(results);
	process.stdout.write(`${markdown}\n`);
	log(`wrote ${path.join(outDir, outName)}.json and .md in ${results.meta.durationS} s${complete ? '' : ' (not a complete run: bench/results/latest.* left as they were)'}`);
	return options;
}

main()
	.then(async (options) => {
		await finish(options);
	})
	.catch(async (error) => {
		process.stderr.write(`\n[bench] failed: ${error.stack || error.message}\n`);
		await finish({ keep: true });
		process.exitCode = 1;
	});

async function finish(options) {
	// Whatever is still alive after the parts stopped their processes is a bug worth failing for.
	const deadline = Date.now() + 5000;
	let left = leftovers();
	while (left.length && Date.now() < deadline) {
		await processes.sleep(250);
		left = leftovers();
	}
	if (left.length) {
		process.stderr.write(`[bench] processes left behind (killed now):\n${left.map((p) => `  pid ${p.pid} (group ${p.pgid}): ${p.cmdline}`).join('\n')}\n`);
		killLeftoversNow();
		process.exitCode = 1;
	}
	for (const dir of runDirs) {
		if (options && options.keep) log(`kept ${dir}`);
		else fs.rmSync(dir, { recursive: true, force: true });
	}
	runDirs = [];
}
