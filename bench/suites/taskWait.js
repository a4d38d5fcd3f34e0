'use strict';
// Part 'taskWait' (issue 29): a webhook-triggered execution calling a 10-minute MCP task, in a real
// n8n 2.41.1, against n8n's own Wait node waiting as long.
//
//   task:      Webhook -> MCP Agent (scripted model: one call of timed_task {seconds}) over one MCP
//              Server sub-node (test/fixtures/modern-task-server.js over HTTP, 2026-07-28 tasks
//              extension, poll interval 1 s, its own process) -> Report (POST to a local sink).
//              Needs Approval -> MCP Approval -> back into the Agent: the durable task wait. The
//              Agent waits in place for Task Wait Before Pausing, then the execution waits in n8n.
//   waitNode:  Webhook -> Wait ("After Time Interval", the same seconds) -> Set -> Report.
//
// One n8n, the phases one after the other after it settled: n8n idle (no execution), the Wait node
// execution, n8n idle again, the task execution; each idle phase is the baseline of the next. The n8n process tree (the main process and its children, n8n's task runner) is
// sampled every second from /proc (CPU time: utime+stime of each live member plus what it reaped;
// RSS summed) by this process, which is not part of the tree. A phase's waiting window starts a
// few seconds after n8n's database first says the execution is "waiting" and ends when the wait's
// reason ends (the Wait node's waitTill; the task's completion as the task server logs it). The
// added latency is from that end to when the Report node's POST reached the sink (and to n8n's
// stoppedAt). Every sample and time stamp goes into the result; bench/lib/taskWaitReport.js
// derives the figures from them.
//
// BENCH_TASK_SECONDS (default 600) sets the task's and the Wait node's length,
// BENCH_TASK_PAUSE_AFTER the Agent's Task Wait Before Pausing (default 60, the option's default),
// BENCH_TASK_IDLE_SECONDS the idle phase (default 30). The Wait node keeps executions shorter
// than 65 s in memory instead of in n8n's database, so lengths under 66 s are refused.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { N8n } = require('../../test/e2e/lib/n8n');
const { freePorts } = require('../../test/e2e/lib/net');
const processes = require('../../test/e2e/lib/processes');
const { runNode24Script } = require('../../test/e2e/lib/node24Script');
const { startScriptedLlm } = require('../../test/e2e/lib/scriptedLlm');
const { startModernTasksHttp } = require('../../test/e2e/lib/modernServer');
const { REPO, RUN_MARKER_NAME, log, trackGroups } = require('../lib/common');
const { sampleTree, parseCompletions, countDeliveries, parseDbTime, pollTimes } = require('../lib/taskWaitStats');
const { analyseTaskWait } = require('../lib/taskWaitReport');

const WORKFLOWS = { task: 'mcpAgentBenchTaskW1', waitNode: 'mcpAgentBenchWaitN1', taskWarm: 'mcpAgentBenchTaskW0', waitNodeWarm: 'mcpAgentBenchWaitN0' };
const HOOKS = { task: 'mcp-bench-taskwait-task', waitNode: 'mcp-bench-taskwait-wait', taskWarm: 'mcp-bench-taskwait-task-warm', waitNodeWarm: 'mcp-bench-taskwait-wait-warm' };
const WEBHOOK_IDS = { task: '00001', waitNode: '00002', taskApproval: '00003', waitNodeWait: '00004', taskWarm: '00005', waitNodeWarm: '00006', taskWarmApproval: '00007', waitNodeWarmWait: '00008' };
/** The warm-up runs before anything is measured: a short task through one pause and wake, a Wait node of 2 s. */
const WARM_TASK_SECONDS = 3;
const WARM_WAIT_SECONDS = 2;
const CREDENTIALS = {
	openai: { id: 'benchTaskWaitOpenAi1', name: 'Bench task wait: scripted model (OpenAI API)' },
	tasks: { id: 'benchTaskWaitTasks01', name: 'Bench task wait: MCP tasks fixture (HTTP)' },
};
/** The fixture's poll interval for timed_task (test/fixtures/modern-task-server.js). */
const FIXTURE_POLL_INTERVAL_MS = 1000;
const SAMPLE_INTERVAL_MS = 1000;
/** A window starts this long after the execution was first seen waiting (the pause's own writes settle). */
const SETTLE_MS = 3000;
/** Not measured: n8n's first half minute after it said it is ready. */
const STARTUP_SETTLE_MS = 30_000;
/** The Wait node keeps shorter waits in memory (n8n-nodes-base Wait.node.js, 65 s). */
const WAIT_NODE_IN_MEMORY_BELOW_S = 65;

function envNumber(name, fallback) {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw} is not a number of seconds`);
	return value;
}

function settings() {
	const taskSeconds = envNumber('BENCH_TASK_SECONDS', 600);
	if (taskSeconds <= WAIT_NODE_IN_MEMORY_BELOW_S) throw new Error(`BENCH_TASK_SECONDS must be above ${WAIT_NODE_IN_MEMORY_BELOW_S}: n8n's Wait node keeps shorter waits in memory, not in its database`);
	const taskPauseAfterSeconds = envNumber('BENCH_TASK_PAUSE_AFTER', 60);
	if (taskPauseAfterSeconds + 20 > taskSeconds) throw new Error('BENCH_TASK_PAUSE_AFTER must leave at least 20 s of the task to wait paused');
	return { taskSeconds, taskPauseAfterSeconds, idleSeconds: envNumber('BENCH_TASK_IDLE_SECONDS', 30) };
}

const webhookId = (key) => `6b1d2e3f-29a1-4c5d-8e9f-bench29${WEBHOOK_IDS[key]}`;

const post = (name, url, position) => ({
	id: `tw-${name.toLowerCase()}`,
	name,
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	position,
	parameters: { method: 'POST', url, sendBody: true, specifyBody: 'json', jsonBody: '={{ JSON.stringify($json) }}', options: {} },
});

const hook = (kind, position) => ({
	id: `tw-${kind}-hook`,
	name: 'Webhook',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2.1,
	position,
	webhookId: webhookId(kind),
	parameters: { httpMethod: 'POST', path: HOOKS[kind], responseMode: 'onReceived', options: {} },
});

/**
 * The Agent's durable task wait: Done -> Report; Needs Approval -> MCP Approval -> the Agent.
 * kind 'taskWarm': the warm-up copy (Task Wait Before Pausing 1 s).
 */
function taskWorkflow({ sinkUrl, taskSeconds, taskPauseAfterSeconds, kind = 'task' }) {
	const nodes = [
		hook(kind, [0, 0]),
		{
			id: 'tw-agent',
			name: 'MCP Agent',
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [300, 0],
			parameters: {
				provider: 'openaiChat',
				model: { __rl: true, mode: 'id', value: 'fake-model' },
				userMessage: '={{ $json.body.plan }}',
				requireApprovalFor: 'none',
				options: { taskPauseAfter: kind === 'task' ? taskPauseAfterSeconds : 1, maxTaskWait: taskSeconds + 600 },
			},
			credentials: { mcpAgentOpenAiApi: CREDENTIALS.openai },
		},
		{ id: 'tw-server', name: 'Reports', type: 'n8n-nodes-mcp-agent.mcpServer', typeVersion: 1, position: [300, 250], parameters: { connection: 'http' }, credentials: { mcpServerHttpApi: CREDENTIALS.tasks } },
		post('Report', `${sinkUrl}/done/${kind}`, [700, -150]),
		{ id: 'tw-approval', name: 'Approval', type: 'n8n-nodes-mcp-agent.mcpApproval', typeVersion: 1, position: [700, 250], webhookId: webhookId(`${kind}Approval`), parameters: {} },
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
		'MCP Agent': { main: [[{ node: 'Report', type: 'main', index: 0 }], [{ node: 'Approval', type: 'main', index: 0 }]] },
		Reports: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
		Approval: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
	};
	return { id: WORKFLOWS[kind], name: `Benchmark: a webhook-triggered execution calling a long MCP task${kind === 'task' ? '' : ' (warm-up)'}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections, pinData: {} };
}

/** The peer: n8n's Wait node "After Time Interval" of the same length, then Set, then Report ('waitNodeWarm': 2 s, in memory). */
function waitNodeWorkflow({ sinkUrl, taskSeconds, kind = 'waitNode' }) {
	const nodes = [
		hook(kind, [0, 0]),
		{ id: 'tw-wait', name: 'Wait', type: 'n8n-nodes-base.wait', typeVersion: 1.1, position: [250, 0], webhookId: webhookId(`${kind}Wait`), parameters: { resume: 'timeInterval', amount: kind === 'waitNode' ? taskSeconds : WARM_WAIT_SECONDS, unit: 'seconds' } },
		{ id: 'tw-set', name: 'Set', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [500, 0], parameters: { mode: 'raw', jsonOutput: '={{ JSON.stringify({ waited: true, label: $json.body.label }) }}', options: {} } },
		post('Report', `${sinkUrl}/done/${kind}`, [750, 0]),
	];
	const connections = {
		Webhook: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] },
		Wait: { main: [[{ node: 'Set', type: 'main', index: 0 }]] },
		Set: { main: [[{ node: 'Report', type: 'main', index: 0 }]] },
	};
	return { id: WORKFLOWS[kind], name: `Benchmark: the Wait node waiting as long as the task${kind === 'waitNode' ? '' : ' (warm-up)'}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections, pinData: {} };
}

/** The newest execution of a workflow: status and times; once finished, how often each node ran. */
const READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const { parse } = require('flatted');
const [dbFile, workflowId] = process.argv.slice(1);
const db = new DatabaseSync(dbFile, { readOnly: true, timeout: 10000 });
let result = null;
try {
	const row = db.prepare('SELECT id, status, startedAt, stoppedAt, waitTill FROM execution_entity WHERE workflowId = ? ORDER BY CAST(id AS INTEGER) DESC LIMIT 1').get(workflowId);
	if (row) {
		result = { id: String(row.id), status: row.status, startedAt: row.startedAt, stoppedAt: row.stoppedAt, waitTill: row.waitTill };
		if (!['new', 'running', 'waiting'].includes(row.status)) {
			const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(row.id);
			if (data) {
				const run = parse(data.data);
				const runData = (run.resultData && run.resultData.runData) || {};
				result.nodeRuns = Object.fromEntries(Object.entries(runData).map(([name, runs]) => [name, runs.length]));
				const error = run.resultData && run.resultData.error;
				result.error = error ? String(error.message) : null;
			}
		}
	}
} finally {
	db.close();
}
process.stdout.write(JSON.stringify(result));
`;

/** A loopback HTTP sink: each POST's path, arrival time (epoch ms) and JSON body. */
function startSink() {
	const http = require('node:http');
	const events = [];
	const waiters = [];
	const server = http.createServer((req, res) => {
		const at = Date.now();
		let data = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => (data += chunk));
		req.on('end', () => {
			let body = data;
			try {
				body = JSON.parse(data);
			} catch {
				/* kept as text */
			}
			const event = { path: req.url, at, body };
			events.push(event);
			for (const w of waiters.splice(0)) if (!w(event)) waiters.push(w);
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	return new Promise((resolve) => {
		server.listen(0, '127.0.0.1', () => {
			const url = `http://127.0.0.1:${server.address().port}`;
			resolve({
				url,
				events,
				next(pathName, timeoutMs) {
					const found = events.find((e) => e.path === pathName);
					if (found) return Promise.resolve(found);
					return new Promise((res, rej) => {
						const timer = setTimeout(() => rej(new Error(`sink: nothing POSTed to ${pathName} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
						waiters.push((event) => {
							if (event.path !== pathName) return false;
							clearTimeout(timer);
							res(event);
							return true;
						});
					});
				},
				close: () => new Promise((res) => server.close(() => res())),
			});
		});
	});
}

class TaskWaitBench {
	constructor({ node24, node24Bin, n8nBin, n8nModules, runId, profileDir }) {
		Object.assign(this, { node24, node24Bin, n8nBin, n8nModules, runId, profileDir });
		this.runMarker = `${RUN_MARKER_NAME}=${runId}`;
		this.pgids = new Set();
		this.settings = settings();
		// Columns, so that latest.json keeps each on one line: epoch ms, cumulative CPU ms, RSS bytes, processes.
		this.samples = { t: [], cpuMs: [], rss: [], pids: [] };
	}

	track(start) {
		return trackGroups(this.pgids, start);
	}

	cli(args) {
		return this.track(() => this.n8n.cli(args));
	}

	async setup() {
		this.runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-bench-taskwait-'));
		this.userFolder = path.join(this.runDir, 'n8n');
		fs.mkdirSync(this.userFolder);
		log(`task-wait benchmark in ${this.runDir} (task ${this.settings.taskSeconds} s, Task Wait Before Pausing ${this.settings.taskPauseAfterSeconds} s)`);
		const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), this.userFolder], { encoding: 'utf8', env: { ...process.env, MCP_AGENT_NODE24_BIN: this.node24Bin } });
		fs.writeFileSync(path.join(this.runDir, 'install.log'), `${install.stdout}\n${install.stderr}`);
		if (install.status !== 0) throw new Error(`install-package-into-n8n.sh failed:\n${install.stderr}`);
		this.llm = await startScriptedLlm();
		this.sink = await startSink();
		this.tasksLog = path.join(this.runDir, 'task-server.log');
		const [tasksPort] = await freePorts(1);
		this.tasks = await this.track(() => startModernTasksHttp({ port: tasksPort, logFile: this.tasksLog, env: { [RUN_MARKER_NAME]: this.runId } }));
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
			{ ...CREDENTIALS.tasks, type: 'mcpServerHttpApi', data: { url: this.tasks.url, transport: 'streamableHttp', authentication: 'none', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 } },
		];
		const credentialsFile = path.join(this.runDir, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2));
		const workflowFile = path.join(this.runDir, 'workflows.json');
		const context = { sinkUrl: this.sink.url, ...this.settings };
		const flows = [taskWorkflow(context), waitNodeWorkflow(context), taskWorkflow({ ...context, kind: 'taskWarm' }), waitNodeWorkflow({ ...context, kind: 'waitNodeWarm' })];
		fs.writeFileSync(workflowFile, JSON.stringify(flows, null, 2));
		log('importing the credentials and the workflows (measured and warm-up), publishing them');
		await this.cli(['import:credentials', `--input=${credentialsFile}`]);
		await this.cli(['import:workflow', `--input=${workflowFile}`]);
		for (const id of Object.values(WORKFLOWS)) await this.cli(['publish:workflow', `--id=${id}`]);
		log(`starting n8n on ${this.n8n.baseUrl}`);
		const started = this.n8n.start();
		this.n8nPid = this.n8n.child.pid;
		this.pgids.add(this.n8nPid);
		await started;
		this.dbFile = path.join(this.userFolder, '.n8n', 'database.sqlite');
		this.sampler = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
		this.sample();
	}

	sample() {
		const s = sampleTree(this.n8nPid);
		for (const key of Object.keys(this.samples)) this.samples[key].push(s[key]);
	}

	async latest(workflowId) {
		for (let attempt = 0; ; attempt++) {
			try {
				return await runNode24Script(this.node24, READER, [this.dbFile, workflowId], this.n8nModules);
			} catch (error) {
				if (!/busy|locked/i.test(error.message) || attempt > 20) throw error;
				await processes.sleep(200);
			}
		}
	}

	/** When n8n's database first says the workflow's execution waits (polled every 500 ms). */
	async waitingSince(workflowId, timeoutMs) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const execution = await this.latest(workflowId);
			if (execution && execution.status === 'waiting') return { at: Date.now(), execution };
			if (execution && !['new', 'running'].includes(execution.status)) throw new Error(`execution ${execution.id} of ${workflowId} ended ${execution.status} before it waited: ${execution.error}`);
			if (Date.now() > deadline) throw new Error(`execution of ${workflowId} not waiting after ${Math.round(timeoutMs / 1000)} s (latest: ${JSON.stringify(execution)})`);
			await processes.sleep(500);
		}
	}

	async finished(workflowId, timeoutMs = 30_000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const execution = await this.latest(workflowId);
			if (execution && execution.nodeRuns) return execution;
			if (Date.now() > deadline) throw new Error(`execution of ${workflowId} not finished (latest: ${JSON.stringify(execution)})`);
			await processes.sleep(300);
		}
	}

	async trigger(kind, body) {
		const triggeredAt = Date.now();
		const { status, body: answer } = await this.n8n.trigger(HOOKS[kind], body);
		if (status !== 200) throw new Error(`taskWait ${kind}: webhook answered ${status}: ${JSON.stringify(answer).slice(0, 300)}`);
		return triggeredAt;
	}

	async measure() {
		const { taskSeconds, taskPauseAfterSeconds, idleSeconds } = this.settings;
		const phases = {};
		// n8n settles after its start (its startup garbage is collected, its first timers ran), then
		// idles (nothing running) before each phase: the baseline each phase is compared with.
		log(`taskWait: letting n8n settle for ${STARTUP_SETTLE_MS / 1000} s after its start`);
		await processes.sleep(STARTUP_SETTLE_MS);
		// Warm-up: both workflows once, short, so that neither phase pays for loading its nodes' code.
		log(`taskWait: warm-up (a ${WARM_TASK_SECONDS} s task through one pause, a ${WARM_WAIT_SECONDS} s Wait node)`);
		const warmTriggered = await this.trigger('taskWarm', { plan: JSON.stringify({ rounds: [[{ tool: 'timed_task', args: { seconds: WARM_TASK_SECONDS, label: 'warm-up' } }]] }) });
		const warmDone = await this.sink.next('/done/taskWarm', 180_000);
		const warmTaskId = warmDone.body?.toolCalls?.[0]?.task?.taskId;
		const warmWaitTriggered = await this.trigger('waitNodeWarm', { label: 'warm-up' });
		const warmWaitDone = await this.sink.next('/done/waitNodeWarm', 60_000);
		phases.warmUp = {
			task: { triggeredAt: warmTriggered, taskId: warmTaskId ?? null, endedAt: warmTaskId ? (parseCompletions(fs.readFileSync(this.tasksLog, 'utf8')).get(warmTaskId) ?? null) : null, finishedAt: warmDone.at },
			waitNode: { triggeredAt: warmWaitTriggered, finishedAt: warmWaitDone.at },
		};
		await processes.sleep(5000);
		const idle = async () => {
			const fromMs = Date.now();
			log(`taskWait: n8n idle for ${idleSeconds} s`);
			await processes.sleep(idleSeconds * 1000);
			return { fromMs, toMs: Date.now() };
		};
		phases.idleBeforeWaitNode = await idle();

		log(`taskWait: Wait node workflow, ${taskSeconds} s`);
		const waitTriggered = await this.trigger('waitNode', { label: 'wait-node' });
		const waitWaiting = await this.waitingSince(WORKFLOWS.waitNode, 60_000);
		const waitTill = parseDbTime(waitWaiting.execution.waitTill);
		const waitDone = await this.sink.next('/done/waitNode', taskSeconds * 1000 + 180_000);
		const waitExecution = await this.finished(WORKFLOWS.waitNode);
		phases.waitNode = {
			executionId: waitExecution.id,
			status: waitExecution.status,
			triggeredAt: waitTriggered,
			waitingAt: waitWaiting.at,
			waitTill,
			endedAt: waitTill,
			finishedAt: waitDone.at,
			startedAt: parseDbTime(waitExecution.startedAt),
			stoppedAt: parseDbTime(waitExecution.stoppedAt),
			nodeRuns: waitExecution.nodeRuns,
			window: { fromMs: waitWaiting.at + SETTLE_MS, toMs: waitTill },
		};
		if (waitExecution.status !== 'success') throw new Error(`taskWait: the Wait node execution ended ${waitExecution.status}: ${waitExecution.error}`);
		log(`taskWait: Wait node execution ${waitExecution.id} finished ${waitDone.at - waitTill} ms after its waitTill`);
		await processes.sleep(5000);
		phases.idleBeforeTask = await idle();

		log(`taskWait: MCP Agent calling timed_task {seconds: ${taskSeconds}}, Task Wait Before Pausing ${taskPauseAfterSeconds} s`);
		const label = `bench-${this.runId}`;
		const plan = JSON.stringify({ rounds: [[{ tool: 'timed_task', args: { seconds: taskSeconds, label } }]] });
		const taskTriggered = await this.trigger('task', { plan });
		const taskWaiting = await this.waitingSince(WORKFLOWS.task, (taskPauseAfterSeconds + 120) * 1000);
		log(`taskWait: the task execution waits in n8n (${Math.round((taskWaiting.at - taskTriggered) / 1000)} s after the webhook)`);
		const taskDone = await this.sink.next('/done/task', (taskSeconds + 300) * 1000);
		const taskExecution = await this.finished(WORKFLOWS.task);
		const logText = fs.readFileSync(this.tasksLog, 'utf8');
		const done = taskDone.body;
		const call = done && Array.isArray(done.toolCalls) ? done.toolCalls[0] : undefined;
		const taskId = call && call.task ? call.task.taskId : undefined;
		const completedAt = taskId ? parseCompletions(logText).get(taskId) : undefined;
		phases.task = {
			executionId: taskExecution.id,
			status: taskExecution.status,
			taskId,
			answerHasResult: typeof done?.text === 'string' && done.text.includes(`report: ${label}`),
			deliveries: taskId ? countDeliveries(logText, taskId) : 0,
			// Each tasks/get the server answered for the task (the in-place waits, the watch and the checks).
			polls: taskId ? pollTimes(logText, taskId) : [],
			triggeredAt: taskTriggered,
			waitingAt: taskWaiting.at,
			endedAt: completedAt ?? null,
			finishedAt: taskDone.at,
			startedAt: parseDbTime(taskExecution.startedAt),
			stoppedAt: parseDbTime(taskExecution.stoppedAt),
			nodeRuns: taskExecution.nodeRuns,
			inPlaceWindow: { fromMs: taskTriggered, toMs: taskWaiting.at },
			window: { fromMs: taskWaiting.at + SETTLE_MS, toMs: completedAt ?? taskDone.at },
		};
		if (taskExecution.status !== 'success') throw new Error(`taskWait: the task execution ended ${taskExecution.status}: ${taskExecution.error}`);
		if (!taskId || completedAt === undefined) throw new Error(`taskWait: no task id or no "completed" line in ${this.tasksLog} (Done item: ${JSON.stringify(done).slice(0, 400)})`);
		if (!phases.task.answerHasResult) throw new Error(`taskWait: the model's answer lacks the task's result: ${JSON.stringify(done).slice(0, 400)}`);
		log(`taskWait: task ${taskId} completed; the execution's Report reached the sink ${taskDone.at - completedAt} ms later (Agent ran ${taskExecution.nodeRuns['MCP Agent']} times)`);
		await processes.sleep(2000);
		clearInterval(this.sampler);
		this.sample();
		return {
			...this.settings,
			fixturePollIntervalMs: FIXTURE_POLL_INTERVAL_MS,
			sampleIntervalMs: SAMPLE_INTERVAL_MS,
			settleMs: SETTLE_MS,
			order: ['warmUp', 'idleBeforeWaitNode', 'waitNode', 'idleBeforeTask', 'task'],
			startupSettleMs: STARTUP_SETTLE_MS,
			taskWatchInBuild: fs.existsSync(path.join(REPO, 'dist', 'lib', 'agent', 'taskWatch.js')),
			phases,
			samples: this.samples,
		};
	}

	async stop() {
		if (this.sampler) clearInterval(this.sampler);
		if (this.n8n) await this.n8n.stop();
		if (this.tasks) await this.tasks.stop();
		if (this.llm) await this.llm.close();
		if (this.sink) await this.sink.close();
	}
}

/** Sets up n8n, runs the phases; the result holds every sample, and `derived` what the report shows. */
async function runTaskWaitSuite(options) {
	const bench = new TaskWaitBench(options);
	try {
		await bench.setup();
		const raw = await bench.measure();
		return { result: { ...raw, derived: analyseTaskWait(raw) }, bench };
	} catch (error) {
		if (bench.n8n) process.stderr.write(`\n[bench] n8n log tail (${bench.n8n.logFile}):\n${bench.n8n.logTail(60)}\n`);
		throw Object.assign(error, { bench });
	} finally {
		await bench.stop();
	}
}

module.exports = { runTaskWaitSuite, taskWorkflow, waitNodeWorkflow };
