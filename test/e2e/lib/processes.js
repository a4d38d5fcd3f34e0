'use strict';
// Every process the e2e run starts gets its own process group (spawned detached), so stopping it
// also stops what it spawned (n8n's task runner, stdio MCP servers). Groups are remembered here and
// killed on exit, failure or Ctrl-C. `findLeftovers` looks for anything still alive afterwards.

const { spawn } = require('node:child_process');
const fs = require('node:fs');

const groups = new Set();
let pgidFile = null;

/** Also append every new process group to this file (read by the reaper if the harness dies). */
function recordGroupsIn(file) {
	pgidFile = file;
}

function spawnGroup(command, args, options = {}) {
	const child = spawn(command, args, { ...options, detached: true });
	if (child.pid) {
		groups.add(child.pid);
		if (pgidFile) fs.appendFileSync(pgidFile, `${child.pid}\n`);
	}
	child.exited = new Promise((resolve) => {
		child.once('exit', (code, signal) => resolve({ code, signal }));
		child.once('error', (error) => resolve({ code: null, signal: null, error }));
	});
	return child;
}

function signalGroup(pgid, signal) {
	try {
		process.kill(-pgid, signal);
		return true;
	} catch (error) {
		if (error.code === 'ESRCH') return false;
		throw error;
	}
}

function groupAlive(pgid) {
	return listProcesses().some((p) => p.pgid === pgid);
}

/** SIGTERM the group, wait for it to empty, then SIGKILL whatever is left. */
async function stopGroup(pgid, { graceMs = 15000 } = {}) {
	if (!signalGroup(pgid, 'SIGTERM')) {
		groups.delete(pgid);
		return;
	}
	const deadline = Date.now() + graceMs;
	while (Date.now() < deadline && groupAlive(pgid)) await sleep(200);
	signalGroup(pgid, 'SIGKILL');
	const killDeadline = Date.now() + 5000;
	while (Date.now() < killDeadline && groupAlive(pgid)) await sleep(100);
	groups.delete(pgid);
}

/** Synchronous last resort for 'exit' and signal handlers. */
function killAllGroupsNow() {
	for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
	groups.clear();
}

function readProc(pid, file) {
	try {
		return fs.readFileSync(`/proc/${pid}/${file}`);
	} catch {
		return null;
	}
}

/** Live processes as { pid, pgid, state, cmdline, environ } (Linux /proc). */
function listProcesses() {
	const result = [];
	for (const name of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		const pid = Number(name);
		const stat = readProc(pid, 'stat');
		if (!stat) continue;
		// Fields after the command name, which is in parentheses and may hold spaces.
		const rest = stat.toString().slice(stat.toString().lastIndexOf(')') + 2).split(' ');
		const state = rest[0];
		const pgid = Number(rest[2]);
		const cmdline = (readProc(pid, 'cmdline') || Buffer.alloc(0)).toString().split('\0').join(' ').trim();
		const environ = (readProc(pid, 'environ') || Buffer.alloc(0)).toString();
		result.push({ pid, pgid, state, cmdline, environ });
	}
	return result;
}

/**
 * Processes that belong to this run: in one of the run's process groups (now or ever), or whose
 * command line mentions the run folder, or whose environment carries the run's marker variable.
 */
function findLeftovers({ pgids, runDir, envMarker, excludePids = [] }) {
	return listProcesses().filter(
		(p) =>
			p.pid !== process.pid &&
			!excludePids.includes(p.pid) &&
			p.state !== 'Z' &&
			(pgids.has(p.pgid) ||
				(runDir && p.cmdline.includes(runDir)) ||
				(envMarker && p.environ.split('\0').includes(envMarker))),
	);
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

module.exports = {
	recordGroupsIn,
	spawnGroup,
	stopGroup,
	signalGroup,
	killAllGroupsNow,
	findLeftovers,
	listProcesses,
	sleep,
	groups,
};
