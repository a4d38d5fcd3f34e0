'use strict';
// Part 'approvals' (issue 28), the n8n half: 200 scripted calls over the five tools of a real MCP
// server (bench/fixtures/approval-tools-server.js, stdio, kept running) through the MCP Agent in a
// real n8n 2.41.1, with the rule set, the policy and the standing approvals of
// bench/lib/approvalWorkload.js (the grants put into n8n's database through the package's own grant
// store before n8n starts, bench/scripts/insert-grants.js). What happened to each call is read from
// what n8n stored for the execution (the Agent's two outputs) and from the server's own record of
// the calls that reached it, and compared with the oracle's expected outcome of the same call.
//
// Design: one Agent run per call, so that each call's outcome is one output item (Done: the tool
// log says which rule, grant or policy let it run or which rule refused it; Needs Approval: the
// call waits, and the item says why). The Agent's Needs Approval output is connected to nothing:
// a paused run is counted as having reached a person, and no person decides it (the execution ends
// with the run's state saved in the node's context, as before MCP Approval would put it to sleep).
// The calls go in executions of BATCH items (a Code node makes one item per call from the webhook's
// body), one execution after the other.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { N8n } = require('../../test/e2e/lib/n8n');
const { freePorts } = require('../../test/e2e/lib/net');
const processes = require('../../test/e2e/lib/processes');
const { runNode24Script } = require('../../test/e2e/lib/node24Script');
const { startScriptedLlm } = require('../../test/e2e/lib/scriptedLlm');
const { BENCH, REPO, RUN_MARKER_NAME, log, median, trackGroups } = require('../lib/common');
const { runScript } = require('../lib/child');
const { POLICY, RULES, SERVER, TOOLS, canonical, expectedOutcome, ruleParameters, workloadCalls } = require('../lib/approvalWorkload');

const CALLS = 200;
const BATCH = 20;
const WORKFLOW_ID = 'mcpAgentBenchAppr1';
const AGENT_NODE_ID = '5f0c2a8e-28a1-4b6e-9a11-bench0000028';
const AGENT = 'MCP Agent';
const HOOK_PATH = 'mcp-bench-approvals';
const CREDENTIALS = {
	openai: { id: 'benchApprovalsOpenAi', name: 'Bench approvals: scripted model (OpenAI API)' },
	ops: { id: 'benchApprovalsOpsStd', name: 'Bench approvals: five tools (stdio)' },
};
const SERVER_SCRIPT = path.join(BENCH, 'fixtures', 'approval-tools-server.js');
const ALL_DECISIONS = ['approve', 'deny', 'edit'];

function workflow() {
	const { approvalRules, rulesJson } = ruleParameters();
	const nodes = [
		{
			id: 'b28-hook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			position: [0, 0],
			webhookId: '6a3c1f0e-28a1-4b6e-9a11-bench0000028',
			parameters: { httpMethod: 'POST', path: HOOK_PATH, responseMode: 'onReceived', options: {} },
		},
		{
			id: 'b28-calls',
			name: 'Calls',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: { jsCode: 'return $json.body.plans.map((plan) => ({ json: { plan } }));' },
		},
		{
			id: AGENT_NODE_ID,
			name: AGENT,
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [400, 0],
			parameters: {
				provider: 'openaiChat',
				model: { __rl: true, mode: 'id', value: 'fake-model' },
				userMessage: '={{ $json.plan }}',
				requireApprovalFor: POLICY.requireApprovalFor,
				approvalRules,
				approvalOptions: { alwaysAsk: POLICY.alwaysAsk, neverAsk: POLICY.neverAsk, rulesJson },
				options: { maxIterations: 3 },
			},
			credentials: { mcpAgentOpenAiApi: CREDENTIALS.openai },
		},
		{
			id: 'b28-ops',
			name: SERVER,
			type: 'n8n-nodes-mcp-agent.mcpServer',
			typeVersion: 1,
			position: [400, 200],
			parameters: { connection: 'stdio' },
			credentials: { mcpServerStdioApi: CREDENTIALS.ops },
		},
	];
	const connections = {
		Webhook: { main: [[{ node: 'Calls', type: 'main', index: 0 }]] },
		Calls: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
		[SERVER]: { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] },
	};
	return { id: WORKFLOW_ID, name: 'Benchmark: approval rules and standing approvals', active: false, settings: { executionOrder: 'v1' }, nodes, connections, pinData: {} };
}

/** The Agent node's output items of one finished execution (Done and Needs Approval), from n8n's SQLite file. */
const READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const { parse } = require('flatted');
const [dbFile, workflowId, afterId, agent] = process.argv.slice(1);
const db = new DatabaseSync(dbFile, { readOnly: true, timeout: 10000 });
let result = null;
try {
	const row = db.prepare('SELECT id, status, startedAt, stoppedAt FROM execution_entity WHERE workflowId = ? AND CAST(id AS INTEGER) > ? ORDER BY CAST(id AS INTEGER) ASC LIMIT 1').get(workflowId, Number(afterId));
	if (row) {
		result = { id: String(row.id), status: row.status, startedAt: row.startedAt, stoppedAt: row.stoppedAt };
		if (!['new', 'running', 'waiting'].includes(row.status)) {
			const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(row.id);
			if (data) {
				const run = parse(data.data);
				const runs = (run.resultData && run.resultData.runData && run.resultData.runData[agent]) || [];
				const item = (i) => ({ json: i.json, pairedItem: i.pairedItem });
				result.agentRuns = runs.map((r) => ({ executionTime: r.executionTime, outputs: ((r.data && r.data.main) || []).map((items) => (items || []).map(item)) }));
				const error = run.resultData && run.resultData.error;
				result.error = error ? String(error.message) : null;
			} else result.pendingData = true;
		}
	}
} finally {
	db.close();
}
process.stdout.write(JSON.stringify(result));
`;

/** What n8n says happened to one call: its Agent run's output item. */
function actualOutcome(call, done, pending) {
	if (done && pending) return { outcome: 'both' };
	if (pending) {
		const calls = pending.calls ?? [];
		if (calls.length !== 1 || calls[0].tool !== call.tool || canonical(calls[0].arguments) !== canonical(call.arguments))
			return { outcome: 'other', detail: `Needs Approval with ${JSON.stringify(calls).slice(0, 300)}` };
		const rule = /\(rule (\d+)\)/.exec(calls[0].askedBy ?? '');
		return { outcome: 'ask', by: rule ? { rule: Number(rule[1]) } : 'policy', decisions: calls[0].decisions ?? ALL_DECISIONS, grantable: calls[0].grantable === true };
	}
	if (done) {
		const log = done.toolCalls ?? [];
		if (log.length !== 1 || log[0].tool !== call.tool) return { outcome: 'other', detail: `Done with tool log ${JSON.stringify(log).slice(0, 300)}` };
		const entry = log[0];
		if (entry.refusedBy) return { outcome: 'refuse', by: { rule: entry.refusedBy.rule } };
		const a = entry.allowedBy;
		if (!a) return { outcome: 'other', detail: `Done, neither allowed nor refused: ${JSON.stringify(entry).slice(0, 300)}` };
		const by = a.by === 'rule' ? { rule: a.rule } : a.by === 'grant' ? { grant: a.grant } : a.by;
		return { outcome: 'run', by, isError: entry.isError };
	}
	return { outcome: 'missing' };
}

const byText = (by) => (by === undefined ? '' : typeof by === 'string' ? by : by.rule !== undefined ? `rule ${by.rule}` : `grant ${by.grant}`);

function sameOutcome(expected, actual) {
	if (expected.outcome !== actual.outcome || byText(expected.by) !== byText(actual.by)) return false;
	if (expected.outcome === 'ask') return canonical(expected.decisions) === canonical(actual.decisions) && actual.grantable === expected.decisions.includes('approve');
	if (expected.outcome === 'run') return actual.isError === false;
	return true;
}

class ApprovalsBench {
	constructor({ node24, node24Bin, n8nBin, n8nModules, runId, profileDir }) {
		Object.assign(this, { node24, node24Bin, n8nBin, n8nModules, runId, profileDir });
		this.runMarker = `${RUN_MARKER_NAME}=${runId}`;
		this.pgids = new Set();
	}

	track(start) {
		return trackGroups(this.pgids, start);
	}

	cli(args) {
		return this.track(() => this.n8n.cli(args));
	}

	async setup() {
		this.runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-bench-approvals-'));
		this.userFolder = path.join(this.runDir, 'n8n');
		fs.mkdirSync(this.userFolder);
		this.callsFile = path.join(this.runDir, 'server-calls.jsonl');
		fs.writeFileSync(this.callsFile, '');
		log(`approvals benchmark in ${this.runDir}`);
		const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), this.userFolder], {
			encoding: 'utf8',
			env: { ...process.env, MCP_AGENT_NODE24_BIN: this.node24Bin },
		});
		fs.writeFileSync(path.join(this.runDir, 'install.log'), `${install.stdout}\n${install.stderr}`);
		if (install.status !== 0) throw new Error(`install-package-into-n8n.sh failed:\n${install.stderr}`);
		this.llm = await startScriptedLlm();
		const [port, brokerPort] = await freePorts(2);
		this.n8n = new N8n({
			node24Bin: this.node24Bin,
			n8nBin: this.n8nBin,
			userFolder: this.userFolder,
			port,
			brokerPort,
			logFile: path.join(this.runDir, 'n8n.log'),
			runMarker: this.runMarker,
			extraEnv: { N8N_LOG_LEVEL: 'warn', ...(this.profileDir ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${this.profileDir}`.trim() } : {}) },
		});
		const credentials = [
			{ ...CREDENTIALS.openai, type: 'mcpAgentOpenAiApi', data: { apiKey: 'bench-not-a-key', baseUrl: this.llm.openAiBaseUrl, organization: '', project: '' } },
			{
				...CREDENTIALS.ops,
				type: 'mcpServerStdioApi',
				data: {
					command: 'node',
					args: JSON.stringify([SERVER_SCRIPT]),
					environment: `APPROVAL_CALLS_FILE=${this.callsFile}\n${this.runMarker}`,
					secretEnvironment: '',
					cwd: '',
					trustAnnotations: false,
				},
			},
		];
		const credentialsFile = path.join(this.runDir, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2));
		const workflowFile = path.join(this.runDir, 'workflow.json');
		fs.writeFileSync(workflowFile, JSON.stringify([workflow()], null, 2));
		log('importing the credentials and the approvals workflow, publishing it');
		await this.cli(['import:credentials', `--input=${credentialsFile}`]);
		await this.cli(['import:workflow', `--input=${workflowFile}`]);
		await this.cli(['publish:workflow', `--id=${WORKFLOW_ID}`]);

		this.startedAt = Date.now();
		const dbFile = path.join(this.userFolder, '.n8n', 'database.sqlite');
		const inserted = await this.track(() =>
			runScript(
				this.node24,
				'insert-grants.js',
				{ dbFile, workflowId: WORKFLOW_ID, nodeId: AGENT_NODE_ID, now: this.startedAt, serverScript: SERVER_SCRIPT },
				{ env: { [RUN_MARKER_NAME]: this.runId, N8N_MCP_AGENT_ALLOW_STDIO: 'true' } },
			),
		);
		this.grants = inserted.grants;
		this.grantRows = inserted.rows;
		log(`inserted ${inserted.grants.length} grants into n8n's database (table rows: ${inserted.rows})`);

		log(`starting n8n on ${this.n8n.baseUrl}`);
		const started = this.n8n.start();
		this.n8nPid = this.n8n.child.pid;
		this.pgids.add(this.n8nPid);
		await started;
		this.db = { node24: this.node24, dbFile, n8nModules: this.n8nModules };
	}

	readExecution(afterId) {
		return runNode24Script(this.node24, READER, [this.db.dbFile, WORKFLOW_ID, String(afterId), AGENT], this.db.n8nModules);
	}

	async finishedExecution(afterId, timeoutMs = 120_000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			let execution = null;
			try {
				execution = await this.readExecution(afterId);
			} catch (error) {
				if (!/busy|locked/i.test(error.message)) throw error;
			}
			if (execution && execution.agentRuns) return execution;
			if (Date.now() > deadline) throw new Error(`no finished execution of ${WORKFLOW_ID} after id ${afterId} (latest: ${JSON.stringify(execution)})`);
			await processes.sleep(300);
		}
	}

	async measure() {
		const calls = workloadCalls(CALLS);
		const plans = calls.map((call) => JSON.stringify({ seq: call.seq, rounds: [[{ tool: call.tool, args: call.arguments }]] }));
		const actual = new Array(calls.length);
		const batches = [];
		let lastId = 0;
		for (let start = 0; start < calls.length; start += BATCH) {
			const t0 = performance.now();
			const { status, body } = await this.n8n.trigger(HOOK_PATH, { plans: plans.slice(start, start + BATCH) });
			if (status !== 200) throw new Error(`approvals: webhook answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
			const execution = await this.finishedExecution(lastId);
			const wallMs = performance.now() - t0;
			lastId = Number(execution.id);
			if (execution.status !== 'success') throw new Error(`approvals: execution ${execution.id} ended ${execution.status}: ${execution.error}`);
			if (execution.agentRuns.length !== 1) throw new Error(`approvals: the Agent ran ${execution.agentRuns.length} times in execution ${execution.id}`);
			const [doneItems = [], pendingItems = []] = execution.agentRuns[0].outputs;
			const at = (items, i) => items.filter((item) => (Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem)?.item === i).map((item) => item.json);
			const size = Math.min(BATCH, calls.length - start);
			for (let i = 0; i < size; i++) {
				const done = at(doneItems, i);
				const pending = at(pendingItems, i);
				actual[start + i] =
					done.length > 1 || pending.length > 1
						? { outcome: 'other', detail: `${done.length} Done and ${pending.length} Needs Approval items` }
						: actualOutcome(calls[start + i], done[0], pending[0]);
			}
			batches.push({
				execution: execution.id,
				calls: size,
				wallMs,
				agentMs: execution.agentRuns[0].executionTime,
				executionMs: Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt),
			});
			log(
				`approvals: calls ${start + 1}-${start + size}: execution ${execution.id}, Agent ${execution.agentRuns[0].executionTime} ms, ${doneItems.length} done, ${pendingItems.length} waiting for a person`,
			);
		}
		const uses = await runNode24Script(
			this.node24,
			String.raw`const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(process.argv[1], { readOnly: true, timeout: 10000 }); process.stdout.write(JSON.stringify(db.prepare('SELECT id, uses FROM mcp_agent_grant').all())); db.close();`,
			[this.db.dbFile],
			this.db.n8nModules,
		);
		const serverCalls = fs
			.readFileSync(this.callsFile, 'utf8')
			.split('\n')
			.filter(Boolean)
			.map((line) => JSON.parse(line));
		return { calls, actual, batches, uses, serverCalls };
	}

	analyse({ calls, actual, batches, uses, serverCalls }) {
		const expected = calls.map((call) => expectedOutcome(call, this.grants));
		const count = (list, outcome) => list.filter((o) => o.outcome === outcome).length;
		const perCall = calls.map((call, i) => ({
			seq: call.seq,
			tool: call.tool,
			arguments: call.arguments,
			expected: expected[i],
			actual: actual[i],
			match: sameOutcome(expected[i], actual[i]),
		}));
		// Calls that ran (by the Agent's output, or by the server's record) although the rules and grants say they must not.
		const ranOutside = perCall.filter((c) => c.actual.outcome === 'run' && c.expected.outcome !== 'run').length;
		const expectedRuns = new Map();
		for (const c of perCall)
			if (c.expected.outcome === 'run')
				expectedRuns.set(canonical({ tool: c.tool, arguments: c.arguments }), (expectedRuns.get(canonical({ tool: c.tool, arguments: c.arguments })) ?? 0) + 1);
		const left = new Map(expectedRuns);
		let serverUnexpected = 0;
		for (const call of serverCalls) {
			const key = canonical(call);
			if ((left.get(key) ?? 0) > 0) left.set(key, left.get(key) - 1);
			else serverUnexpected++;
		}
		const serverMissing = [...left.values()].reduce((a, b) => a + b, 0);
		const grantUses = this.grants.map((g) => ({
			key: g.key,
			expected: perCall.filter((c) => c.expected.by?.grant === g.id).length,
			counted: uses.find((row) => row.id === g.id)?.uses ?? null,
		}));
		const byKind = (list) => ({
			byRule: list.filter((o) => o.by?.rule !== undefined).length,
			byGrant: list.filter((o) => o.by?.grant !== undefined).length,
			byPolicy: list.filter((o) => o.by === 'policy').length,
		});
		const summaryOf = (list) => ({
			run: count(list, 'run'),
			ask: count(list, 'ask'),
			refuse: count(list, 'refuse'),
			other: list.length - count(list, 'run') - count(list, 'ask') - count(list, 'refuse'),
			runBy: byKind(list.filter((o) => o.outcome === 'run')),
		});
		const mismatches = perCall.filter((c) => !c.match);
		return {
			calls: calls.length,
			tools: TOOLS.map((t) => t.name),
			perTool: Object.fromEntries(TOOLS.map((t) => [t.name, calls.filter((c) => c.tool === t.name).length])),
			rules: {
				total: RULES.length,
				list: ruleParameters().approvalRules.rule.length,
				json: JSON.parse(ruleParameters().rulesJson).length,
				effects: {
					run: RULES.filter((r) => r.effect === 'run').length,
					ask: RULES.filter((r) => r.effect === 'ask').length,
					refuse: RULES.filter((r) => r.effect === 'refuse').length,
				},
			},
			policy: POLICY,
			grants: {
				inserted: this.grants.length,
				tableRows: this.grantRows,
				usable: this.grants.filter((g) => g.active && g.scope === 'this' && g.fingerprintCurrent).length,
				covering: new Set(perCall.map((c) => c.expected.by?.grant).filter(Boolean)).size,
			},
			batch: BATCH,
			executions: batches.length,
			expected: summaryOf(expected),
			actual: summaryOf(actual),
			reachedPerson: { actual: count(actual, 'ask'), expected: count(expected, 'ask'), equal: count(actual, 'ask') === count(expected, 'ask') },
			refused: { actual: count(actual, 'refuse'), expected: count(expected, 'refuse'), equal: count(actual, 'refuse') === count(expected, 'refuse') },
			ranOutsideRules: Math.max(ranOutside, serverUnexpected),
			ranOutsideByOutput: ranOutside,
			server: { calls: serverCalls.length, expectedRuns: count(expected, 'run'), unexpected: serverUnexpected, missing: serverMissing },
			grantUses: {
				expected: grantUses.reduce((a, g) => a + g.expected, 0),
				counted: grantUses.reduce((a, g) => a + (g.counted ?? 0), 0),
				differing: grantUses.filter((g) => g.expected !== g.counted).map((g) => g.key),
			},
			mismatches: mismatches.length,
			mismatchExamples: mismatches.slice(0, 5).map((c) => ({ seq: c.seq, tool: c.tool, arguments: c.arguments, expected: c.expected, actual: c.actual })),
			timing: {
				// Every batch kept as measured: the medians per call are recomputed from them (bench/lib/derive.js).
				batches,
				agentMsPerCall: median(batches.map((b) => b.agentMs / b.calls)),
				wallMsPerCall: median(batches.map((b) => b.wallMs / b.calls)),
			},
			perCall,
		};
	}

	async stop() {
		if (this.n8n) await this.n8n.stop();
		if (this.llm) await this.llm.close();
	}
}

/** Sets up n8n, runs the workload, compares with the oracle; a failure carries the bench (processes, log). */
async function runApprovalsSuite(options) {
	const bench = new ApprovalsBench(options);
	try {
		await bench.setup();
		const result = bench.analyse(await bench.measure());
		return { result, bench };
	} catch (error) {
		if (bench.n8n) process.stderr.write(`\n[bench] n8n log tail (${bench.n8n.logFile}):\n${bench.n8n.logTail(60)}\n`);
		throw Object.assign(error, { bench });
	} finally {
		await bench.stop();
	}
}

module.exports = { runApprovalsSuite, CALLS, BATCH };
