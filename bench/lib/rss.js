'use strict';
// Resident memory of a process while something runs: VmRSS sampled from /proc every few ms, and the
// kernel's own peak (VmHWM) after resetting it through /proc/<pid>/clear_refs where permitted.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * CPU time (ms) a process used itself, and what its exited, reaped children used (an n8n node's
 * stdio servers once closed). Less sensitive than wall-clock to other load on the machine.
 */
function cpuTimes(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		const tick = (i) => (Number(fields[i]) * 1000) / TICKS_PER_SECOND;
		// Fields 14-17 of /proc/<pid>/stat (utime, stime, cutime, cstime), counted from field 3 here.
		return { selfMs: tick(11) + tick(12), childrenMs: tick(13) + tick(14) };
	} catch {
		return { selfMs: NaN, childrenMs: NaN };
	}
}

function status(pid) {
	try {
		const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const kb = (field) => {
			const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
			return match ? Number(match[1]) * 1024 : NaN;
		};
		return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
	} catch {
		return { rss: NaN, hwm: NaN };
	}
}

function resetPeak(pid) {
	try {
		fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

/** Starts sampling; `stop()` returns { before, peakSampled, peakKernel, samples } in bytes. */
function sampleRss(pid, intervalMs = 5) {
	const before = status(pid).rss;
	const kernelReset = resetPeak(pid);
	let peak = before;
	let samples = 0;
	const timer = setInterval(() => {
		const { rss } = status(pid);
		samples++;
		if (rss > peak) peak = rss;
	}, intervalMs);
	return {
		stop() {
			clearInterval(timer);
			const end = status(pid);
			if (end.rss > peak) peak = end.rss;
			return { before, after: end.rss, peakSampled: peak, peakKernel: kernelReset ? end.hwm : null, samples };
		},
	};
}

module.exports = { sampleRss, status, cpuTimes };
