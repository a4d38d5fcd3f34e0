'use strict';
// Part 'taskWait' (issue 29): the figures derived from the stored samples and time stamps
// (bench/suites/taskWait.js), and the report section printed from them. Nothing here holds a
// number of its own beyond the issue's targets.

const { addedLatencyMs, sampleRows, windowStats } = require('./taskWaitStats');

/** Issue 29: a waiting execution's memory at most 1 MiB above the Wait node's (median RSS of the tree). */
const RSS_TARGET_BYTES = 1024 * 1024;

function windowOf(samples, window) {
	const stats = windowStats(samples, window.fromMs, window.toMs);
	const { intervalCpuMs: _intervals, ...rest } = stats;
	return rest;
}

/** Everything the report shows, from `raw` (the suite's result without `derived`). */
function analyseTaskWait(raw) {
	const { phases } = raw;
	const samples = sampleRows(raw.samples);
	const idleBeforeWaitNode = windowOf(samples, phases.idleBeforeWaitNode);
	const waitNode = windowOf(samples, phases.waitNode.window);
	const idleBeforeTask = windowOf(samples, phases.idleBeforeTask);
	const task = windowOf(samples, phases.task.window);
	const taskInPlace = windowOf(samples, phases.task.inPlaceWindow);
	// Each waiting execution's RSS over the idle n8n just before it: what it holds, with the
	// process's slow drift (heap growth, collections) between the two phases taken out.
	const waitNodeOverIdle = waitNode.rssMedian - idleBeforeWaitNode.rssMedian;
	const taskOverIdle = task.rssMedian - idleBeforeTask.rssMedian;
	const rssDiff = taskOverIdle - waitNodeOverIdle;
	const latency = (phase) => ({ toSinkMs: addedLatencyMs(phase.endedAt, phase.finishedAt), toStoppedAtMs: addedLatencyMs(phase.endedAt, phase.stoppedAt) });
	const taskLatency = latency(phases.task);
	const agentRuns = phases.task.nodeRuns?.['MCP Agent'] ?? null;
	const polls = Array.isArray(phases.task.polls) ? phases.task.polls.filter((t) => t >= phases.task.window.fromMs && t <= phases.task.window.toMs).length : null;
	const minutes = task.spanMs / 60_000;
	const extraCpuMs = (task.cpuMsPerMinute - waitNode.cpuMsPerMinute) * minutes;
	return {
		windows: { idleBeforeWaitNode, waitNode, idleBeforeTask, task, taskInPlace },
		cpuMsPerMinute: {
			idleBeforeWaitNode: idleBeforeWaitNode.cpuMsPerMinute,
			waitNode: waitNode.cpuMsPerMinute,
			idleBeforeTask: idleBeforeTask.cpuMsPerMinute,
			task: task.cpuMsPerMinute,
			taskMinusWaitNode: task.cpuMsPerMinute - waitNode.cpuMsPerMinute,
		},
		rss: {
			waitNodeMedian: waitNode.rssMedian,
			taskMedian: task.rssMedian,
			rawTaskMinusWaitNode: task.rssMedian - waitNode.rssMedian,
			waitNodeOverIdle,
			taskOverIdle,
			taskMinusWaitNode: rssDiff,
			targetBytes: RSS_TARGET_BYTES,
			// A cost: at most 1 MiB more than the Wait node's; a lighter wait is no miss (both figures are shown).
			met: Number.isFinite(rssDiff) ? rssDiff <= RSS_TARGET_BYTES : null,
		},
		latency: {
			task: { ...taskLatency, targetMs: raw.fixturePollIntervalMs, met: Number.isFinite(taskLatency.toSinkMs) ? taskLatency.toSinkMs <= raw.fixturePollIntervalMs : null },
			waitNode: latency(phases.waitNode),
			// The warm-up's 3 s task (Task Wait Before Pausing 1 s): one more sample of the same latency.
			warmUpTask: phases.warmUp ? latency(phases.warmUp.task).toSinkMs : null,
		},
		samples: samples.length,
		// The first run, then one per check of the task after a wake (MCP Approval's output back into the Agent).
		agentRuns,
		taskChecksAfterWake: agentRuns === null ? null : agentRuns - 1,
		// tasks/get answered for the task within its waiting window, and the CPU above the Wait node's per poll.
		pollsInWindow: polls,
		extraCpuMsPerPoll: polls ? extraCpuMs / polls : null,
		deliveries: phases.task.deliveries,
	};
}

const mb = (bytes) => (Number.isFinite(bytes) ? (bytes / (1024 * 1024)).toFixed(2) : 'n/a');
const num = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const verdict = (met) => (met === null || met === undefined ? 'n/a' : met ? 'met' : 'missed');
const seconds = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'n/a');

/** The report section (Markdown), or '' when the run had no taskWait part. */
function renderTaskWait(results) {
	const raw = results.taskWait;
	if (!raw || !raw.samples) return '';
	const d = analyseTaskWait(raw);
	const w = d.windows;
	const lines = [
		'## Task wait (issue 29): a webhook-triggered execution calling a long MCP task',
		'',
		`Task length ${raw.taskSeconds} s${raw.taskSeconds === 600 ? '' : ' (shortened with BENCH_TASK_SECONDS; the issue\'s case is 600 s)'}, Task Wait Before Pausing ${raw.taskPauseAfterSeconds} s, the fixture's poll interval ${raw.fixturePollIntervalMs} ms; in-memory task watch (lib/agent/taskWatch.ts) in the build: ${raw.taskWatchInBuild ? 'yes' : 'no'}. n8n process tree sampled every ${raw.sampleIntervalMs} ms (${d.samples} samples); phases one after the other: ${raw.order.join(', ')}.`,
		'',
		'| Window | Span | Samples | CPU ms per minute | Intervals without CPU | Median RSS (MiB) |',
		'|---|---|---|---|---|---|',
		...[
			['n8n idle, before the Wait node', w.idleBeforeWaitNode],
			['Wait node execution waiting', w.waitNode],
			['n8n idle, before the task', w.idleBeforeTask],
			['Task execution waiting (paused)', w.task],
			['Task execution, Agent waiting in place (before the pause)', w.taskInPlace],
		].map(([name, s]) => `| ${name} | ${seconds(s.spanMs)} | ${s.samples} | ${num(s.cpuMsPerMinute)} | ${Number.isFinite(s.idleIntervalShare) ? `${Math.round(s.idleIntervalShare * 100)}%` : 'n/a'} | ${mb(s.rssMedian)} |`),
		'',
		'| Target (issue 29) | Measured | Verdict |',
		'|---|---|---|',
		`| CPU between polls: CPU ms per minute of waiting, task vs Wait node | ${num(d.cpuMsPerMinute.task)} vs ${num(d.cpuMsPerMinute.waitNode)} (difference ${num(d.cpuMsPerMinute.taskMinusWaitNode)}; ${d.pollsInWindow ?? 'n/a'} tasks/get in the window, ${num(d.extraCpuMsPerPoll)} ms above the Wait node per poll; the Agent checked ${d.taskChecksAfterWake ?? 'n/a'} times after a wake) | compare (no threshold) |`,
		`| Memory of the waiting execution at most 1 MiB above the Wait node's (median RSS over the idle phase before it, task − Wait node) | ${mb(d.rss.taskOverIdle)} − ${mb(d.rss.waitNodeOverIdle)} = ${mb(d.rss.taskMinusWaitNode)} MiB (medians without the idle baselines: ${mb(d.rss.rawTaskMinusWaitNode)} MiB) | ${verdict(d.rss.met)} |`,
		`| Added latency, task completed → the execution's last node posted, ≤ 1 poll interval (${raw.fixturePollIntervalMs} ms) | ${num(d.latency.task.toSinkMs, 0)} ms (to n8n's stoppedAt: ${num(d.latency.task.toStoppedAtMs, 0)} ms) | ${verdict(d.latency.task.met)} |`,
		`| Supplementary: the same latency for the warm-up's 3 s task (paused after 1 s) | ${num(d.latency.warmUpTask, 0)} ms | – |`,
		`| Reference: the Wait node's own lateness, waitTill → last node posted | ${num(d.latency.waitNode.toSinkMs, 0)} ms (to stoppedAt: ${num(d.latency.waitNode.toStoppedAtMs, 0)} ms) | – |`,
		'',
		`The task's result was handed out ${d.deliveries} time(s). Every sample and time stamp is in the JSON (\`taskWait.samples\`, \`taskWait.phases\`).`,
		'',
	];
	return `${lines.join('\n')}\n`;
}

module.exports = { analyseTaskWait, renderTaskWait, RSS_TARGET_BYTES };
