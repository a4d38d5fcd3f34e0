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

const TIMER_FUNCTIONS = ['setTimeout', 'setInterval', 'setImmediate'];

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
		this.processesBefore = new Set(descendants().keys());
		// Timers made by the file's code (tests and the modules they load use this global's functions;
		// counting the process's timers instead would mix in jest's own, which come and go).
		this.timers = new Map();
		const timers = this.timers;
		let sweepAbove = 1024;
		for (const name of TIMER_FUNCTIONS) {
			const original = this.global[name];
			const wrapped = function (...args) {
				const timer = original.apply(this, args);
				timers.set(timer, name);
				// Fired and cleared ones are dropped now and then, so a file making many holds none of them.
				if (timers.size > sweepAbove) {
					for (const [held] of timers) if (held._destroyed) timers.delete(held);
					sweepAbove = Math.max(1024, 2 * timers.size);
				}
				return timer;
			};
			Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
			this.global[name] = wrapped;
		}
	}

	/** The file's timers and immediates still pending and ref'd, by function. */
	pendingTimers() {
		const counts = {};
		for (const [timer, name] of this.timers) {
			if (timer._destroyed) this.timers.delete(timer);
			else if (typeof timer.hasRef !== 'function' || timer.hasRef()) counts[name] = (counts[name] ?? 0) + 1;
		}
		return counts;
	}

	/** What this file left open (descriptions, empty when nothing), and the pids of its processes still running. */
	leftovers() {
		const pids = [];
		const found = liveHandles()
			.filter((handle) => !this.handlesBefore.has(handle))
			.map(describeHandle);
		for (const [name, count] of Object.entries(this.pendingTimers())) found.push(`${count} ${name} still pending (clear it, or unref() it)`);
		for (const [pid, command] of descendants()) {
			if (this.processesBefore.has(pid)) continue;
			found.push(`process ${pid} still running: ${command}`);
			pids.push(pid);
		}
		return { found, pids };
	}

	async teardown() {
		// jest calls teardown again when it threw: the same report, checked once.
		if (this.tornDown) {
			if (this.leakError) throw this.leakError;
			return;
		}
		this.tornDown = true;
		let left = { found: [], pids: [] };
		if (process.env.MCP_AGENT_LEAK_CHECK !== 'off') {
			const deadline = Date.now() + LEAK_WAIT_MS;
			left = this.leftovers();
			while (left.found.length > 0 && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, POLL_MS));
				left = this.leftovers();
			}
		}
		await super.teardown();
		if (typeof globalThis.gc === 'function' && process.memoryUsage().heapUsed > COLLECT_ABOVE_BYTES) globalThis.gc();
		if (left.found.length > 0) {
			// Reported, then ended: a stray server must not outlive the run or be blamed on the next file.
			for (const pid of left.pids) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					// already gone
				}
			}
			this.leakError = new Error(
				`${this.testPath} left open after its last test and afterAll hooks (close them in afterAll/afterEach; ` +
					`run it with --detectOpenHandles for where they were opened):\n  - ${left.found.join('\n  - ')}`,
			);
			throw this.leakError;
		}
	}
}

module.exports = LeakCheckEnvironment;
