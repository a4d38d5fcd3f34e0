'use strict';
// Watchdog for one e2e run, started detached by the harness:
//   node reaper.js <harnessPid> <pgidFile> <runDir> <envMarker>
// If the harness dies without cleaning up (a crash, SIGKILL, a closed stdout under node:test, which
// skips 'exit' handlers), it stops every process group listed in <pgidFile> and any process that
// belongs to the run (see findLeftovers), then exits. The harness kills it after a normal cleanup.

const fs = require('node:fs');
const { findLeftovers, signalGroup } = require('./processes');

const [harnessPid, pgidFile, runDir, envMarker] = process.argv.slice(2);

function alive(pid) {
	try {
		process.kill(Number(pid), 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function recordedGroups() {
	try {
		return new Set(
			fs
				.readFileSync(pgidFile, 'utf8')
				.split('\n')
				.filter(Boolean)
				.map(Number),
		);
	} catch {
		return new Set();
	}
}

function reap() {
	const pgids = recordedGroups();
	for (const pgid of pgids) signalGroup(pgid, 'SIGTERM');
	setTimeout(() => {
		for (const pgid of pgids) signalGroup(pgid, 'SIGKILL');
		for (const p of findLeftovers({ pgids, runDir, envMarker, excludePids: [process.pid] })) {
			try {
				process.kill(p.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}
		process.exit(0);
	}, 5000);
}

const timer = setInterval(() => {
	if (!alive(harnessPid)) {
		clearInterval(timer);
		reap();
	}
}, 500);
