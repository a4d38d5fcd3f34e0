/**
 * jest's node environment, plus a check when a test file is done (after its afterAll hooks): what
 * the file opened and did not close fails the file, naming it. Open servers, sockets, child
 * processes (and any process they started that is still running), ref'd timers and immediates:
 * each keeps a jest worker alive after the run, which jest then force-exits with "A worker process
 * has failed to exit gracefully". A leftover that goes away by itself shortly (a server process
 * still exiting after SIGTERM, a short grace timer) is waited for, up to LEAK_WAIT_MS.
 *
 * Counted against what was open when the file started, so a file is blamed only for its own.
 * Set MCP_AGENT_LEAK_CHECK=off to skip the check (e.g. when running one test under a debugger).
 */
const { readdirSync, readFileSync } = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');

const LEAK_WAIT_MS = 3000;
const POLL_MS = 25;
/**
 * Above this much heap in use when a file ends, the worker collects its garbage (when started with
 * --expose-gc, as `npm test` does). Without it a worker carries several hundred MB of dead test
 * modules and data to the end of the run, and a process that large takes longer than the 500 ms
 * jest gives a worker to exit: the run then ends with the force-exit warning though nothing leaked.
 */
const COLLECT_ABOVE_BYTES = 256 * 1024 * 1024;

/** Handles of this process that keep it alive: ref'd, and not its own stdio or IPC channel. */
function liveHandles() {
	return process._getActiveHandles().filter((handle) => handle !== process.stdin && handle !== process.stdout && handle !== process.stderr && !handle._isStdio);
}

/** How many ref'd timers and immediates are pending (the 'Timeout'/'Immediate' entries Node reports). */
function pendingTimers() {
	const counts = { Timeout: 0, Immediate: 0 };
	for (const kind of process.getActiveResourcesInfo()) if (kind in counts) counts[kind]++;
	return counts;
}

/** Running (not zombie) processes descended from this one, by pid, from /proc; none where there is no /proc. */
function descendants() {
	let entries;
	try {
		entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
	} catch {
		return new Map();
	}
	const parentOf = new Map();
	const info = new Map();
	for (const pid of entries) {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			parentOf.set(Number(pid), Number(fields[1]));
			info.set(Number(pid), { state: fields[0], command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
		} catch {
			// gone meanwhile
		}
	}
	const found = new Map();
	for (const [pid, { state }] of info) {
		if (state === 'Z' || state === 'X') continue;
		for (let ancestor = parentOf.get(pid); ancestor !== undefined && ancestor > 1; ancestor = parentOf.get(ancestor)) {
			if (ancestor === process.pid) {
				found.set(pid, commandLine(pid) || info.get(pid).command);
				break;
			}
		}
	}
	return found;
}

function commandLine(pid) {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
	} catch {
		return '';
	}
}

function describeHandle(handle) {
	const name = handle?.constructor?.name ?? typeof handle;
	try {
		if (name === 'ChildProcess') return `child process ${handle.pid}: ${(handle.spawnargs ?? []).join(' ')}`;
		if (name === 'Server') return `server listening on ${JSON.stringify(handle.address())}`;
		if (name === 'Socket') return handle.remotePort ? `socket to ${handle.remoteAddress}:${handle.remotePort} from port ${handle.localPort}` : `socket or pipe (fd ${handle._handle?.fd})`;
	} catch {
		// described by its type alone
	}
	return name;
}

class LeakCheckEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.testPath = context.testPath;
	}

	async setup() {
		await super.setup();
		this.handlesBefore = new Set(liveHandles());
		this.timersBefore = pendingTimers();
		this.processesBefore = new Set(descendants().keys());
		this.strays = new Set();
	}

	/** What this file left open, or an empty list. */
	leftovers() {
		const found = liveHandles()
			.filter((handle) => !this.handlesBefore.has(handle))
			.map(describeHandle);
		const timers = pendingTimers();
		for (const kind of Object.keys(timers)) {
			const extra = timers[kind] - this.timersBefore[kind];
			if (extra > 0) found.push(`${extra} ref'd ${kind === 'Timeout' ? 'timer(s) (setTimeout/setInterval without clear or unref)' : 'setImmediate(s)'}`);
		}
		for (const [pid, command] of descendants()) {
			if (this.processesBefore.has(pid)) continue;
			found.push(`process ${pid} still running: ${command}`);
			this.strays.add(pid);
		}
		return found;
	}

	async teardown() {
		let found = [];
		if (process.env.MCP_AGENT_LEAK_CHECK !== 'off') {
			const deadline = Date.now() + LEAK_WAIT_MS;
			found = this.leftovers();
			while (found.length > 0 && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, POLL_MS));
				found = this.leftovers();
			}
		}
		await super.teardown();
		if (typeof globalThis.gc === 'function' && process.memoryUsage().heapUsed > COLLECT_ABOVE_BYTES) globalThis.gc();
		if (found.length > 0) {
			// Reported, then ended: a stray server must not outlive the run or be blamed on the next file.
			for (const pid of this.strays) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					// already gone
				}
			}
			throw new Error(
				`${this.testPath} left open after its last test and afterAll hooks (close them in afterAll/afterEach; ` +
					`run it with --detectOpenHandles for where they were opened):\n  - ${found.join('\n  - ')}`,
			);
		}
	}
}

module.exports = LeakCheckEnvironment;
