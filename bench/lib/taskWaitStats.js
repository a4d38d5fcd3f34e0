'use strict';
// Part 'taskWait' (issue 29): what the n8n process tree costs while an execution waits, and how
// late a waiting execution finishes after its MCP task ended. The pure part (parsing /proc and the
// task server's log, windows over samples, latencies) is unit-tested in
// test/unit/benchTaskWaitStats.test.ts; sampleTree reads /proc.

const fs = require('node:fs');
const { spawnSync } = require('node:child_process');

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * One /proc/<pid>/stat line: pid, command, parent and the CPU fields in clock ticks (utime and
 * stime: the process itself; cutime and cstime: its exited children it reaped). The command sits
 * in parentheses and may hold spaces and parentheses itself, so fields are counted after the last ')'.
 */
function parseProcStat(line) {
	const open = line.indexOf('(');
	const close = line.lastIndexOf(')');
	if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
	const fields = line
		.slice(close + 2)
		.trim()
		.split(/\s+/);
	// fields[0] is field 3 (state) of proc(5); utime is field 14, so fields[11].
	const n = (i) => Number(fields[i]);
	return { pid: Number(line.slice(0, open).trim()), comm: line.slice(open + 1, close), state: fields[0], ppid: n(1), utime: n(11), stime: n(12), cutime: n(13), cstime: n(14) };
}

/** The pids of `rootPid` and all its descendants among `stats` (parsed stat lines). */
function treePids(stats, rootPid) {
	const children = new Map();
	for (const s of stats) {
		if (!children.has(s.ppid)) children.set(s.ppid, []);
		children.get(s.ppid).push(s.pid);
	}
	const out = new Set();
	const stack = stats.some((s) => s.pid === rootPid) ? [rootPid] : [];
	while (stack.length) {
		const pid = stack.pop();
		if (out.has(pid)) continue;
		out.add(pid);
		stack.push(...(children.get(pid) ?? []));
	}
	return out;
}

/**
 * CPU time (ms) the tree under rootPid has used: each live member's own utime+stime plus what its
 * reaped children used (cutime+cstime). A process that exited counts in its parent's cutime once
 * reaped, so nothing is counted twice.
 */
function treeCpuMs(stats, rootPid, ticksPerSecond = TICKS_PER_SECOND) {
	const pids = treePids(stats, rootPid);
	let ticks = 0;
	for (const s of stats) if (pids.has(s.pid)) ticks += s.utime + s.stime + s.cutime + s.cstime;
	return (ticks * 1000) / ticksPerSecond;
}

/** VmRSS of a /proc/<pid>/status text, in bytes (NaN when absent: a kernel thread, a zombie). */
function parseVmRss(statusText) {
	const match = /^VmRSS:\s+(\d+) kB/m.exec(statusText);
	return match ? Number(match[1]) * 1024 : NaN;
}

/** Every readable /proc/<pid>/stat now (processes that vanish meanwhile are skipped). */
function readAllStats() {
	const stats = [];
	for (const name of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			stats.push(parseProcStat(fs.readFileSync(`/proc/${name}/stat`, 'utf8')));
		} catch {
			/* gone */
		}
	}
	return stats;
}

/** One sample of the tree under rootPid: { t (epoch ms), cpuMs (cumulative), rss (bytes, summed), pids }. */
function sampleTree(rootPid) {
	const stats = readAllStats();
	const pids = treePids(stats, rootPid);
	let rss = 0;
	for (const pid of pids) {
		try {
			const value = parseVmRss(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
			if (Number.isFinite(value)) rss += value;
		} catch {
			/* gone */
		}
	}
	return { t: Date.now(), cpuMs: treeCpuMs(stats, rootPid), rss, pids: pids.size };
}

/** Samples as rows [{ t, cpuMs, rss }], from the columns the results keep ({ t: [], cpuMs: [], rss: [] }) or rows already. */
function sampleRows(samples) {
	if (Array.isArray(samples)) return samples;
	return samples.t.map((t, i) => ({ t, cpuMs: samples.cpuMs[i], rss: samples.rss[i] }));
}

/** "completed <taskId> <epoch ms>" lines of the task server's stderr: taskId -> epoch ms. */
function parseCompletions(logText) {
	const out = new Map();
	for (const line of logText.split('\n')) {
		const match = /^completed (\S+) (\d+)\s*$/.exec(line);
		if (match && !out.has(match[1])) out.set(match[1], Number(match[2]));
	}
	return out;
}

/** The times (epoch ms) of the "polled <taskId> <epoch ms>" lines of one task: each tasks/get it answered. */
function pollTimes(logText, taskId) {
	const out = [];
	for (const line of logText.split('\n')) {
		const match = /^polled (\S+) (\d+)\s*$/.exec(line);
		if (match && match[1] === taskId) out.push(Number(match[2]));
	}
	return out;
}

/** How many "delivered <taskId> ..." lines the task server wrote for the task. */
function countDeliveries(logText, taskId) {
	return logText.split('\n').filter((line) => line.startsWith(`delivered ${taskId} `)).length;
}

/**
 * n8n's execution_entity times as epoch ms. SQLite stores them as "YYYY-MM-DD HH:MM:SS.SSS" in
 * UTC without a zone, which Date.parse would read as local time.
 */
function parseDbTime(value) {
	if (value === null || value === undefined || value === '') return NaN;
	if (typeof value === 'number') return value;
	const text = String(value).trim();
	const iso = text.includes('T') ? text : text.replace(' ', 'T');
	return Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`);
}

/** Added latency: from the moment the task ended (or the Wait node's time was up) to when the execution was seen done. */
function addedLatencyMs(endedAtMs, finishedAtMs) {
	return Number.isFinite(endedAtMs) && Number.isFinite(finishedAtMs) ? finishedAtMs - endedAtMs : NaN;
}

function median(values) {
	const s = values.filter(Number.isFinite).sort((a, b) => a - b);
	if (s.length === 0) return NaN;
	const mid = (s.length - 1) / 2;
	return (s[Math.floor(mid)] + s[Math.ceil(mid)]) / 2;
}

/**
 * A waiting window over tree samples [{ t, cpuMs, rss }] sorted by t: the samples with
 * fromMs <= t <= toMs, the CPU used between the first and the last of them, per minute of that
 * span, the median RSS, and the share of sample intervals in which the tree used no CPU at all.
 */
function windowStats(samples, fromMs, toMs) {
	const inside = samples.filter((s) => s.t >= fromMs && s.t <= toMs);
	if (inside.length < 2) return { samples: inside.length, spanMs: 0, cpuMs: NaN, cpuMsPerMinute: NaN, rssMedian: median(inside.map((s) => s.rss)), idleIntervalShare: NaN, intervalCpuMs: [] };
	const first = inside[0];
	const last = inside[inside.length - 1];
	const spanMs = last.t - first.t;
	const cpuMs = last.cpuMs - first.cpuMs;
	const intervalCpuMs = inside.slice(1).map((s, i) => s.cpuMs - inside[i].cpuMs);
	return {
		samples: inside.length,
		spanMs,
		cpuMs,
		cpuMsPerMinute: spanMs > 0 ? (cpuMs * 60_000) / spanMs : NaN,
		rssMedian: median(inside.map((s) => s.rss)),
		idleIntervalShare: intervalCpuMs.filter((ms) => ms === 0).length / intervalCpuMs.length,
		intervalCpuMs,
	};
}

module.exports = { TICKS_PER_SECOND, parseProcStat, treePids, treeCpuMs, parseVmRss, readAllStats, sampleTree, sampleRows, parseCompletions, pollTimes, countDeliveries, parseDbTime, addedLatencyMs, median, windowStats };
