'use strict';
// One e2e environment per run: a temp folder, server-everything over HTTP, and a real n8n with our
// packed package installed the way the Community Nodes installer does it.

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { N8n } = require('./n8n');
const { startEverythingHttp, assertInstalled, REPO } = require('./everything');
const { buildCredentials, loadWorkflows } = require('./fixtures');
const { createRootsFixture } = require('./rootsFixture');
const { freePorts } = require('./net');
const processes = require('./processes');
const { requestedN8nVersion } = require('./n8nVersion');

function step(message) {
	process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
}

/**
 * Node 24 and the n8n selected by MCP_AGENT_N8N_VERSION (default 2.41.1) from the cache:
 * { node24Bin, n8nBin, version }.
 */
function resolveN8n() {
	const version = requestedN8nVersion();
	// ensure-n8n.sh returns at once when the cache is complete, and installs what is missing.
	const result = spawnSync('bash', [path.join(REPO, 'scripts', 'ensure-n8n.sh'), '--env', '--version', version], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	if (result.status !== 0) throw new Error('scripts/ensure-n8n.sh failed');
	const vars = Object.fromEntries(
		result.stdout
			.trim()
			.split('\n')
			.map((line) => line.split('='))
			.map(([k, ...v]) => [k, v.join('=').replace(/^'(.*)'$/, '$1')]),
	);
	if (vars.MCP_AGENT_N8N_VERSION !== version) throw new Error(`scripts/ensure-n8n.sh gave n8n ${vars.MCP_AGENT_N8N_VERSION}, not ${version}`);
	return { node24Bin: vars.MCP_AGENT_NODE24_BIN, n8nBin: vars.MCP_AGENT_N8N_BIN, version };
}

/** The run object `n8n execute --rawOutput` prints: the first top-level JSON object, log lines around it ignored. */
function parseExecuteOutput(output) {
	const start = output.search(/^\{/m);
	if (start < 0) throw new Error(`no JSON in n8n execute output:\n${output.slice(-2000)}`);
	let depth = 0;
	let inString = false;
	for (let i = start; i < output.length; i++) {
		const ch = output[i];
		if (inString) {
			if (ch === '\\') i++;
			else if (ch === '"') inString = false;
		} else if (ch === '"') inString = true;
		else if (ch === '{' || ch === '[') depth++;
		else if ((ch === '}' || ch === ']') && --depth === 0) return JSON.parse(output.slice(start, i + 1));
	}
	throw new Error(`unterminated JSON in n8n execute output:\n${output.slice(-2000)}`);
}

function loadExamples() {
	const dir = path.join(REPO, 'examples');
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

/** scripts/example-credentials.js, plus the run marker so the servers they start can be traced. */
function exampleCredentials(runMarker) {
	const result = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'example-credentials.js')], { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`scripts/example-credentials.js failed: ${result.stderr}`);
	return JSON.parse(result.stdout).map((c) =>
		c.type === 'mcpServerStdioApi' ? { ...c, data: { ...c.data, environment: [c.data.environment, runMarker].filter(Boolean).join('\n') } } : c,
	);
}

function assertBuilt() {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	const missing = [...pkg.n8n.nodes, ...pkg.n8n.credentials].filter((f) => !fs.existsSync(path.join(REPO, f)));
	if (missing.length) throw new Error(`not built (missing ${missing.join(', ')}): run 'npm run build' first`);
}

class E2eEnvironment {
	constructor() {
		this.runId = crypto.randomBytes(6).toString('hex');
		this.runMarker = `MCP_AGENT_E2E_RUN=${this.runId}`;
		this.runDir = null;
		this.n8n = null;
		this.everything = null;
		this.everPgids = new Set();
		this.failed = false;
	}

	async setup() {
		const started = Date.now();
		assertInstalled();
		assertBuilt();
		const { node24Bin, n8nBin, version } = resolveN8n();

		this.runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-e2e-'));
		const userFolder = path.join(this.runDir, 'n8n');
		fs.mkdirSync(userFolder);
		step(`run ${this.runId} in ${this.runDir} against n8n ${version}`);
		this.startReaper();

		step('installing the packed package into the n8n user folder');
		const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), userFolder], {
			encoding: 'utf8',
			env: { ...process.env, MCP_AGENT_NODE24_BIN: node24Bin },
		});
		fs.writeFileSync(path.join(this.runDir, 'install.log'), `${install.stdout}\n${install.stderr}`);
		if (install.status !== 0) throw new Error(`install-package-into-n8n.sh failed:\n${install.stderr}`);

		const [n8nPort, brokerPort, everythingPort, deadPort] = await freePorts(4);

		step(`starting server-everything (Streamable HTTP) on 127.0.0.1:${everythingPort}`);
		this.everything = await startEverythingHttp({
			port: everythingPort,
			logFile: path.join(this.runDir, 'everything-http.log'),
			env: { MCP_AGENT_E2E_RUN: this.runId },
		});
		this.everPgids.add(this.everything.pid);

		this.n8n = new N8n({
			node24Bin,
			n8nBin,
			userFolder,
			port: n8nPort,
			brokerPort,
			logFile: path.join(this.runDir, 'n8n.log'),
			runMarker: this.runMarker,
		});

		this.roots = createRootsFixture(this.runDir);

		// The examples (what `npm start` imports) come along, run once with `n8n execute` below.
		const examples = loadExamples();
		const credentialsFile = path.join(this.runDir, 'credentials.json');
		fs.writeFileSync(
			credentialsFile,
			JSON.stringify(
				[
					...buildCredentials({ everythingUrl: this.everything.url, deadPort, runMarker: this.runMarker, roots: this.roots }),
					...exampleCredentials(this.runMarker),
				],
				null,
				2,
			),
		);
		const workflows = loadWorkflows();
		const workflowsFile = path.join(this.runDir, 'workflows.json');
		fs.writeFileSync(workflowsFile, JSON.stringify([...workflows, ...examples], null, 2));

		step('importing credentials and workflows');
		await this.trackCli(['import:credentials', `--input=${credentialsFile}`]);
		await this.trackCli(['import:workflow', `--input=${workflowsFile}`]);
		for (const wf of workflows) {
			step(`publishing workflow ${wf.id} (${wf.name})`);
			await this.trackCli(['publish:workflow', `--id=${wf.id}`]);
		}

		// `n8n execute` runs a Manual Trigger workflow in the CLI; it must not share the database
		// with a running n8n, so the examples run before the server starts.
		this.exampleRuns = {};
		// Only Manual Trigger examples can run from the CLI; webhook-triggered ones are imported only.
		for (const wf of examples.filter((w) => w.nodes.some((n) => n.type === 'n8n-nodes-base.manualTrigger'))) {
			step(`executing example ${wf.id} (${wf.name})`);
			try {
				this.exampleRuns[wf.id] = { run: parseExecuteOutput(await this.trackCli(['execute', `--id=${wf.id}`, '--rawOutput'], { stdoutOnly: true })) };
			} catch (error) {
				this.exampleRuns[wf.id] = { error };
			}
		}

		step(`starting n8n on ${this.n8n.baseUrl} (task broker port ${brokerPort})`);
		const startPromise = this.n8n.start();
		this.everPgids.add(this.n8n.child.pid);
		await startPromise;
		step(`n8n ready after ${((Date.now() - started) / 1000).toFixed(1)} s of setup`);
	}

	/** A detached watchdog that cleans up after this process if it dies without doing so. */
	startReaper() {
		const pgidFile = path.join(this.runDir, 'process-groups');
		fs.writeFileSync(pgidFile, '');
		processes.recordGroupsIn(pgidFile);
		const reaper = spawn(
			process.execPath,
			[path.join(__dirname, 'reaper.js'), String(process.pid), pgidFile, this.runDir, this.runMarker],
			{ detached: true, stdio: 'ignore' },
		);
		reaper.unref();
		this.reaperPid = reaper.pid;
	}

	stopReaper() {
		if (!this.reaperPid) return;
		try {
			process.kill(this.reaperPid, 'SIGKILL');
		} catch {
			/* gone */
		}
		this.reaperPid = null;
	}

	async trackCli(args, options) {
		// Record the CLI's process group for the leftover check as soon as it is spawned.
		const before = new Set(processes.groups);
		const promise = this.n8n.cli(args, options);
		for (const pgid of processes.groups) if (!before.has(pgid)) this.everPgids.add(pgid);
		return promise;
	}

	/** Stop n8n and server-everything; safe to call more than once. */
	async stop() {
		if (this.n8n) await this.n8n.stop();
		if (this.everything) await this.everything.stop();
	}

	/** Processes started by this run that are still alive after stop(). */
	async leftovers({ waitMs = 5000 } = {}) {
		const criteria = {
			pgids: this.everPgids,
			runDir: this.runDir,
			envMarker: this.runMarker,
			excludePids: this.reaperPid ? [this.reaperPid] : [],
		};
		const deadline = Date.now() + waitMs;
		let found = processes.findLeftovers(criteria);
		while (found.length && Date.now() < deadline) {
			await processes.sleep(250);
			found = processes.findLeftovers(criteria);
		}
		return found;
	}

	/** Synchronous, for signal handlers: SIGKILL every group and every process of this run. */
	killEverythingNow() {
		processes.killAllGroupsNow();
		if (!this.runDir) return;
		this.killLeftovers(
			processes.findLeftovers({
				pgids: this.everPgids,
				runDir: this.runDir,
				envMarker: this.runMarker,
				excludePids: this.reaperPid ? [this.reaperPid] : [],
			}),
		);
		this.stopReaper();
	}

	killLeftovers(found) {
		for (const p of found) {
			try {
				process.kill(p.pid, 'SIGKILL');
			} catch {
				/* already gone */
			}
		}
	}

	reportFailure(what) {
		this.failed = true;
		if (!this.n8n) return;
		process.stderr.write(
			`\n[e2e] ${what} failed; last lines of ${this.n8n.logFile}:\n${this.n8n.logTail(80)}\n[e2e] end of n8n log tail\n\n`,
		);
	}

	cleanupFiles() {
		if (!this.runDir) return;
		if (this.failed || process.env.MCP_AGENT_E2E_KEEP === '1') {
			step(`keeping ${this.runDir} (n8n.log, everything-http.log, credentials.json, workflows.json)`);
			return;
		}
		fs.rmSync(this.runDir, { recursive: true, force: true });
	}
}

module.exports = { E2eEnvironment, step, parseExecuteOutput, resolveN8n };
