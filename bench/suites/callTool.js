'use strict';
// Part 1 (and the n8n half of part 4): MCP Call Tool with 1,000 items in a real n8n 2.41.1, next to
// n8n's built-in MCP Client node, the community package n8n-nodes-mcp, and the raw SDK client.
//
// Timing source: each node run's `executionTime` from n8n's execution data (n8n measures it around
// the node's execute(): credentials, connect, list, every call, close). Webhook wall-clock minus
// an empty workflow of the same shape is recorded as a cross-check.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { N8n } = require('../../test/e2e/lib/n8n');
const { startEverythingHttp } = require('../../test/e2e/lib/everything');
const { buildCredentials, CREDENTIAL_IDS } = require('../../test/e2e/lib/fixtures');
const { freePorts } = require('../../test/e2e/lib/net');
const { EVERYTHING_ENTRY, REPO, RUN_MARKER_NAME, log, trackGroups } = require('../lib/common');
const { CALL_TOOL_ITEMS, analyseCallTool } = require('../lib/derive');
const { runScript } = require('../lib/child');
const { finishedExecutionAfter, latestExecutionId } = require('../lib/executions');
const { installPeers } = require('../lib/peers');
const { cpuTimes, sampleRss } = require('../lib/rss');
const { ONE_EXECUTION_CREDENTIALS, WORKFLOW_ID, buildWorkflow, coldCredentials, peerCredentials } = require('../lib/workflow');

const ITEMS = CALL_TOOL_ITEMS;
const LOOP_ITEMS = 20;
/** Measured runs of each raw SDK / library loop per round. */
const RAW_PER_ROUND = 2;

/** What the run measures; `reps` measured runs each, after one warm-up run. */
function variants({ reps, loopReps }) {
	return [
		{ key: 'empty-1000', kind: 'empty', items: ITEMS, reps },
		...['fields', 'item', 'expression'].flatMap((args) =>
			['stdio', 'http'].flatMap((transport) =>
				// Sequential runs are compared with the raw SDK client's within 1.25×: two samples a round,
				// as the raw loop takes, so that the medians are over ten runs on each side.
				[1, 8].map((concurrency) => ({ key: `ours-${transport}-c${concurrency}-${args}-1000`, kind: 'ours', transport, concurrency, items: ITEMS, reps, args, keep: true, perRound: concurrency === 1 ? RAW_PER_ROUND : 1 })),
			),
		),
		// The cold path at 1,000 items (Keep Server Running off: connect, for stdio spawn, per
		// execution), compared with the raw client's whole run, which also connects and closes.
		...['stdio', 'http'].map((transport) => ({
			key: `ours-${transport}-c1-fields-cold-1000`,
			kind: 'ours',
			transport,
			concurrency: 1,
			items: ITEMS,
			reps,
			args: 'fields',
			keep: false,
			credential: `${transport}Cold`,
			perRound: RAW_PER_ROUND,
		})),
		// One-item executions (the fixed cost per execution) are the one-execution part's
		// (suites/oneExecution.js), with the cold path and the Agent beside them.
		{ key: 'builtin-http-1000', kind: 'builtin', transport: 'http', concurrency: 1, items: ITEMS, reps },
		{ key: 'nodesmcp-stdio-20', kind: 'nodesMcp', transport: 'stdio', concurrency: 1, items: LOOP_ITEMS, reps: loopReps },
	];
}

/** Throws unless the webhook's response holds every item's echo, in input order. */
function verifyOutput(variant, status, body) {
	if (status !== 200) throw new Error(`${variant.key}: webhook answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
	if (!Array.isArray(body) || body.length !== variant.items) {
		throw new Error(`${variant.key}: expected ${variant.items} items, got ${Array.isArray(body) ? body.length : typeof body}: ${JSON.stringify(body).slice(0, 500)}`);
	}
	const textOf = {
		empty: (item) => `Echo: ${item.message}`,
		ours: (item) => (item.isError === false ? item.text : `isError ${item.isError}`),
		builtin: (item) => item.content?.[0]?.text,
		nodesMcp: (item) => item.result?.content?.[0]?.text,
	}[variant.kind];
	body.forEach((item, i) => {
		const text = textOf(item);
		const expected = `Echo: m${i}`;
		if (text !== expected) throw new Error(`${variant.key}: item ${i} is ${JSON.stringify(item).slice(0, 300)}`);
	});
}

/**
 * The variants in the order of one round: the empty workflow first, the others shuffled (seeded by
 * the round, so a rerun repeats the order). What runs just before a variant leaves work behind that
 * lands in its time: the first n8n run after a round's raw loops is slower than the rest (n8n idle
 * for half a minute, its heap shrunk by the idle-time GC), and a cold stdio execution ends by
 * stopping a server process. A fixed order, or one only rotated each round, gave each variant
 * nearly always the same predecessor (fields mapped, stdio, sequential: 1.22 against 1.03 ms per
 * call for Input Item in two full runs; the warm one-item HTTP execution always ran right after
 * the cold stdio one).
 */
function roundOrder(variants, round) {
	const empty = variants.filter((v) => v.kind === 'empty');
	const rest = variants.filter((v) => v.kind !== 'empty');
	const random = seededRandom(round + 1);
	for (let i = rest.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[rest[i], rest[j]] = [rest[j], rest[i]];
	}
	return [...empty, ...rest];
}

/** mulberry32: a small deterministic generator, enough to shuffle a round. */
function seededRandom(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

class CallToolBench {
	/**
	 * @param only        variant keys to run (default: all)
	 * @param profileDir  when set, n8n runs with --cpu-prof and writes its profile there on exit
	 */
	constructor({ node24, node24Bin, n8nBin, n8nModules, runId, reps, loopReps, rawReps, only, profileDir }) {
		Object.assign(this, { node24, node24Bin, n8nBin, n8nModules, runId, reps, loopReps, rawReps, only, profileDir });
		this.runMarker = `${RUN_MARKER_NAME}=${runId}`;
		this.pgids = new Set();
	}

	async setup() {
		this.runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-bench-'));
		this.userFolder = path.join(this.runDir, 'n8n');
		fs.mkdirSync(this.userFolder);
		log(`call-tool benchmark in ${this.runDir}`);

		log('installing the packed package into the n8n user folder (Community Nodes way)');
		const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), this.userFolder], {
			encoding: 'utf8',
			env: { ...process.env, MCP_AGENT_NODE24_BIN: this.node24Bin },
		});
		fs.writeFileSync(path.join(this.runDir, 'install.log'), `${install.stdout}\n${install.stderr}`);
		if (install.status !== 0) throw new Error(`install-package-into-n8n.sh failed:\n${install.stderr}`);
		this.peers = installPeers(this.userFolder, this.node24Bin);
		log(`installed peers: ${this.peers.join(', ')}`);

		const [n8nPort, brokerPort, everythingPort, deadPort] = await freePorts(4);
		log(`starting server-everything (Streamable HTTP) on 127.0.0.1:${everythingPort}`);
		this.everything = await startEverythingHttp({
			port: everythingPort,
			logFile: path.join(this.runDir, 'everything-http.log'),
			env: { [RUN_MARKER_NAME]: this.runId },
		});
		this.pgids.add(this.everything.pid);

		this.n8n = new N8n({
			node24Bin: this.node24Bin,
			n8nBin: this.n8nBin,
			userFolder: this.userFolder,
			port: n8nPort,
			brokerPort,
			logFile: path.join(this.runDir, 'n8n.log'),
			runMarker: this.runMarker,
			extraEnv: {
				N8N_LOG_LEVEL: 'warn',
				...(this.profileDir ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${this.profileDir}`.trim() } : {}),
			},
		});

		this.variants = this.buildVariants().filter((v) => !this.only || v.kind === 'empty' || this.only.includes(v.key));
		await this.startServices();
		const ours = buildCredentials({ everythingUrl: this.everything.url, deadPort, runMarker: this.runMarker });
		const credentialRef = (id) => {
			const credential = ours.find((c) => c.id === id);
			return { id: credential.id, name: credential.name };
		};
		const { workflow, chains } = buildWorkflow(this.variants, {
			everythingUrl: this.everything.url,
			ourCredentials: { ...ONE_EXECUTION_CREDENTIALS, stdio: credentialRef(CREDENTIAL_IDS.stdioEverything), http: credentialRef(CREDENTIAL_IDS.httpEverything) },
		});
		this.chains = chains;
		const credentialsFile = path.join(this.runDir, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify([...ours, ...peerCredentials({ everythingEntry: EVERYTHING_ENTRY }), ...this.moreCredentials(ours)], null, 2));
		const workflowFile = path.join(this.runDir, 'workflow.json');
		fs.writeFileSync(workflowFile, JSON.stringify([workflow], null, 2));

		log('importing credentials and the benchmark workflow, publishing it');
		await this.cli(['import:credentials', `--input=${credentialsFile}`]);
		await this.cli(['import:workflow', `--input=${workflowFile}`]);
		await this.cli(['publish:workflow', `--id=${WORKFLOW_ID}`]);

		log(`starting n8n on ${this.n8n.baseUrl}`);
		const started = this.n8n.start();
		this.n8nPid = this.n8n.child.pid;
		this.pgids.add(this.n8nPid);
		await started;
		this.dbContext = { node24: this.node24, userFolder: this.userFolder, n8nModules: this.n8nModules };
		this.lastExecutionId = await latestExecutionId(this.dbContext, WORKFLOW_ID);
	}

	/** What this suite measures (a subclass measures other variants in the same harness). */
	buildVariants() {
		return variants({ reps: this.reps, loopReps: this.loopReps });
	}

	analyse(measured) {
		return analyse(this, measured);
	}

	/** Services the workflow needs besides server-everything (none here). */
	async startServices() {}

	/** Credentials beside ours and the peers': ours with Keep Server Running off (the cold variants). */
	moreCredentials(ours) {
		return coldCredentials({ everythingUrl: this.everything.url, runMarker: this.runMarker, ours });
	}

	/** Throws unless the webhook's response is what the variant must answer. */
	verify(variant, status, body) {
		verifyOutput(variant, status, body);
	}

	/** The measured node's time in one execution (and how many times it ran, checked). */
	nodeTiming(variant, chain, execution) {
		const runs = execution.nodes[chain.node] ?? [];
		if (runs.length === 0) throw new Error(`${variant.key}: node "${chain.node}" did not run`);
		const expectedRuns = variant.kind === 'nodesMcp' ? variant.items : 1;
		if (runs.length !== expectedRuns) throw new Error(`${variant.key}: node ran ${runs.length} times, expected ${expectedRuns}`);
		return { nodeMs: runs.reduce((sum, r) => sum + r.executionTime, 0), nodeRuns: runs.length };
	}

	/** Runs `start()`, remembering every process group it spawns (for the leftover check). */
	track(start) {
		return trackGroups(this.pgids, start);
	}

	cli(args) {
		return this.track(() => this.n8n.cli(args));
	}

	/** One webhook-triggered run: response checked, node time from the execution record, RSS of n8n. */
	async runVariant(variant) {
		const chain = this.chains[variant.key];
		const sampler = sampleRss(this.n8nPid);
		const n8nCpu0 = cpuTimes(this.n8nPid);
		const serverCpu0 = cpuTimes(this.everything.pid).selfMs;
		const t0 = performance.now();
		const { status, body } = await this.n8n.trigger(chain.path, variant.body ?? {}, { timeoutMs: 10 * 60_000 });
		const wallMs = performance.now() - t0;
		const memory = sampler.stop();
		this.verify(variant, status, body);
		const execution = await finishedExecutionAfter(this.dbContext, WORKFLOW_ID, this.lastExecutionId);
		const n8nCpu1 = cpuTimes(this.n8nPid);
		const serverCpu1 = cpuTimes(this.everything.pid).selfMs;
		this.lastExecutionId = Number(execution.id);
		if (execution.status !== 'success') throw new Error(`${variant.key}: execution ${execution.id} ended ${execution.status}: ${execution.error}`);
		return {
			wallMs,
			...this.nodeTiming(variant, chain, execution),
			executionMs: Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt),
			executionDataChars: execution.dataChars,
			// n8n main process + its reaped children (stdio servers) + the HTTP server.
			cpuMs: n8nCpu1.selfMs - n8nCpu0.selfMs + (n8nCpu1.childrenMs - n8nCpu0.childrenMs) + (serverCpu1 - serverCpu0),
			rss: memory,
		};
	}

	/** The raw SDK client and our library without n8n, same server, same work (bench/scripts/call-loop.js). */
	async runClientLoops() {
		const configs = [];
		for (const client of ['raw', 'lib']) {
			for (const transport of ['stdio', 'http']) {
				for (const concurrency of [1, 8]) configs.push({ client, transport, url: transport === 'http' ? this.everything.url : undefined, items: ITEMS, concurrency });
			}
		}
		// The raw client on a kept connection (its runs are only the calls): what our node on a kept connection is compared with.
		for (const transport of ['stdio', 'http']) configs.push({ client: 'raw', transport, url: transport === 'http' ? this.everything.url : undefined, items: ITEMS, concurrency: 1, kept: true });
		const output = await this.track(() =>
			runScript(this.node24, 'call-loop.js', { configs, warmup: 1, warmupItems: ITEMS, reps: RAW_PER_ROUND, httpServerPid: this.everything.pid }, { env: { [RUN_MARKER_NAME]: this.runId } }),
		);
		return output.results;
	}

	/**
	 * Warm-up once per variant, then measured rounds; every round runs each variant (`perRound` times,
	 * in roundOrder()) and then the raw SDK client and library loops (RAW_PER_ROUND runs each), so that
	 * load changes on the machine hit all of them alike.
	 */
	async measure() {
		const samples = Object.fromEntries(this.variants.map((v) => [v.key, []]));
		const raw = {};
		for (const variant of this.variants) {
			log(`warm-up: ${variant.key}`);
			await this.runVariant(variant);
		}
		const rounds = Math.max(this.rawReps, ...this.variants.map((v) => v.reps));
		for (let round = 0; round < rounds; round++) {
			for (const variant of roundOrder(this.variants, round)) {
				if (round >= variant.reps) continue;
				for (let i = 0; i < (variant.perRound ?? 1); i++) {
					const sample = await this.runVariant(variant);
					// The round goes with the sample: paired ratios match samples of one round (bench/lib/derive.js).
					samples[variant.key].push({ ...sample, round });
					log(`round ${round + 1}/${rounds}: ${variant.key}: node ${sample.nodeMs} ms, wall ${Math.round(sample.wallMs)} ms`);
				}
			}
			if (round < this.rawReps) await this.rawRound(raw, round, rounds);
		}
		return { samples, raw };
	}

	/** The same work without n8n, once a round (collected into `raw`, keyed by configuration). */
	async rawRound(raw, round, rounds) {
		for (const result of await this.runClientLoops()) {
			const key = `${result.client}-${result.transport}-c${result.concurrency}${result.kept ? '-kept' : ''}-${result.items}`;
			(raw[key] ??= { ...result, runs: [] }).runs.push(...result.runs);
			for (const run of result.runs) log(`round ${round + 1}/${rounds}: ${key}: ${result.kept ? '' : `total ${Math.round(run.totalMs)} ms, `}calls ${Math.round(run.callsMs)} ms`);
		}
	}

	async stop() {
		if (this.n8n) await this.n8n.stop();
		await this.stopServices();
		if (this.everything) await this.everything.stop();
	}

	async stopServices() {}
}

/** Medians and per-call figures for the report (bench/lib/derive.js), with every sample they come from. */
function analyse(bench, { samples, raw }) {
	return { ...analyseCallTool(bench.variants, samples, raw), samples, rawRuns: raw };
}

/** Sets up n8n, measures and analyses; a failure carries the bench (for its processes and log). */
async function runSuite(bench) {
	try {
		await bench.setup();
		const measured = await bench.measure();
		const result = bench.analyse(measured);
		result.peers = bench.peers;
		return { result, bench };
	} catch (error) {
		if (bench.n8n) process.stderr.write(`\n[bench] n8n log tail (${bench.n8n.logFile}):\n${bench.n8n.logTail(60)}\n`);
		bench.failed = true;
		throw Object.assign(error, { bench });
	} finally {
		await bench.stop();
	}
}

function runCallToolSuite(options) {
	return runSuite(new CallToolBench(options));
}

module.exports = { CallToolBench, analyse, runSuite, runCallToolSuite, ITEMS, LOOP_ITEMS };
