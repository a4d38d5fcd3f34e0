'use strict';
// Private Redis and PostgreSQL instances for the queue-mode end-to-end test: Debian's redis-server
// and postgresql binaries, started on free 127.0.0.1 ports with all their files in the run folder,
// checked for readiness (no fixed sleeps), and stopped again. Nothing is persisted or shared with a
// system-wide instance.
//
// PostgreSQL refuses to run as root, so as root its programs run as the `postgres` system user
// (runuser); as any other user they run as that user.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const processes = require('./processes');
const { waitFor } = require('./net');

/** Run a program to completion; resolves with its output, rejects with it on failure. */
function run(command, args, { env = process.env, timeoutMs = 120000, cwd } = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', (d) => (output += d));
		child.stderr.on('data', (d) => (output += d));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.once('error', (error) => (clearTimeout(timer), reject(new Error(`${command} could not start: ${error.message}`))));
		child.once('close', (code, signal) => {
			clearTimeout(timer);
			if (code === 0) resolve(output);
			else reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}${signal ? `, ${signal}` : ''}):\n${output.trim().split('\n').slice(-30).join('\n')}`));
		});
	});
}

function tail(file, lines = 40) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '(no log)';
	}
}

// ---------------------------------------------------------------------------------------------
// Redis

/** One RESP command over a fresh connection; resolves with the raw reply. */
function redisCommand(port, ...words) {
	return new Promise((resolve, reject) => {
		const socket = net.connect({ port, host: '127.0.0.1' });
		let reply = '';
		socket.setTimeout(2000, () => socket.destroy(new Error('timeout')));
		socket.once('connect', () => socket.write(`*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join('')}`));
		socket.on('data', (d) => {
			reply += d;
			if (reply.endsWith('\r\n')) {
				socket.end();
				resolve(reply);
			}
		});
		socket.once('error', reject);
		socket.once('close', () => resolve(reply));
	});
}

/**
 * redis-server on 127.0.0.1:<port>, no persistence (no RDB, no AOF), working dir <dir>.
 * Ready when it answers PING with PONG.
 */
async function startRedis({ dir, port, env = {}, redisServer = process.env.MCP_AGENT_REDIS_SERVER || 'redis-server' }) {
	fs.mkdirSync(dir, { recursive: true });
	const logFile = path.join(dir, 'redis.log');
	const fd = fs.openSync(logFile, 'a');
	const child = processes.spawnGroup(
		redisServer,
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--logfile', ''],
		{ cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] },
	);
	fs.closeSync(fd);
	let exited = null;
	child.exited.then((result) => (exited = result));
	await waitFor(`redis-server on 127.0.0.1:${port}`, async () => (await redisCommand(port, 'PING')).startsWith('+PONG'), {
		timeoutMs: 30000,
		intervalMs: 100,
		failIf: () => exited && `redis-server exited (code ${exited.code}${exited.error ? `, ${exited.error.message}` : ''}):\n${tail(logFile)}`,
	});
	return {
		port,
		pid: child.pid,
		logFile,
		logTail: (lines) => tail(logFile, lines),
		async stop() {
			if (exited) return;
			// No data to keep: SHUTDOWN NOSAVE, then make sure the group is gone.
			await redisCommand(port, 'SHUTDOWN', 'NOSAVE').catch(() => {});
			await waitFor('redis-server to exit', () => exited, { timeoutMs: 10000, intervalMs: 100 }).catch(() => {});
			await processes.stopGroup(child.pid, { graceMs: 5000 });
		},
	};
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** Pids whose parent is <pid> (Linux /proc). */
function childrenOf(pid) {
	const result = [];
	for (const name of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid === pid) result.push(Number(name));
		} catch {
			/* gone */
		}
	}
	return result;
}

/** The newest installed Debian PostgreSQL bin folder (/usr/lib/postgresql/<major>/bin). */
function postgresBinDir() {
	if (process.env.MCP_AGENT_PG_BIN) return process.env.MCP_AGENT_PG_BIN;
	const root = '/usr/lib/postgresql';
	const versions = fs.existsSync(root)
		? fs
				.readdirSync(root)
				.filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(root, v, 'bin', 'initdb')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (!versions.length) throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb): run scripts/ensure-services.sh');
	return path.join(root, versions[0], 'bin');
}

/**
 * A throw-away PostgreSQL cluster in <dir>: initdb (trust authentication, no fsync), pg_ctl start on
 * 127.0.0.1:<port> with its unix socket in <dir>, then CREATE DATABASE <database>. `pg_ctl -w`
 * waits until the server accepts connections; `pg_isready` confirms it over TCP.
 *
 * onProcessGroup(pgid) is called with the postmaster's process group (pg_ctl starts it in a new
 * session), so the caller can track and, as a last resort, kill it.
 */
async function startPostgres({ dir, port, database = 'n8n', user = 'postgres', env = {}, onProcessGroup = () => {} }) {
	const bin = postgresBinDir();
	const asRoot = process.getuid && process.getuid() === 0;
	const osUser = asRoot ? 'postgres' : null;
	const dataDir = path.join(dir, 'data');
	const socketDir = path.join(dir, 'socket');
	const logFile = path.join(dir, 'postgres.log');
	const pgEnv = { ...process.env, ...env, LC_ALL: 'C', LANG: 'C' };
	fs.mkdirSync(socketDir, { recursive: true });
	fs.writeFileSync(logFile, '');
	if (asRoot) {
		const uid = Number((await run('id', ['-u', osUser])).trim());
		const gid = Number((await run('id', ['-g', osUser])).trim());
		for (const p of [dir, socketDir, logFile]) fs.chownSync(p, uid, gid);
		// The postgres user must be able to pass through the (run) folder holding <dir>; a mkdtemp
		// folder is 0700. Only that folder is changed: the ones above it (the temp folder) must
		// already be traversable.
		const parent = path.dirname(dir);
		const mode = fs.statSync(parent).mode;
		if ((mode & 0o001) === 0) fs.chmodSync(parent, (mode & 0o7777) | 0o011);
	}
	const pg = (program, args, options = {}) =>
		asRoot
			? run('runuser', ['-u', osUser, '--', path.join(bin, program), ...args], { env: pgEnv, cwd: dir, ...options })
			: run(path.join(bin, program), args, { env: pgEnv, cwd: dir, ...options });

	await pg('initdb', ['-D', dataDir, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions']);
	const serverOptions = [
		`-p ${port}`,
		`-k ${socketDir}`,
		"-c listen_addresses='127.0.0.1'",
		'-c fsync=off',
		'-c synchronous_commit=off',
		'-c full_page_writes=off',
		'-c max_connections=50',
	].join(' ');
	let postmasterPgid = null;
	const readPostmasterPid = () => {
		try {
			return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
		} catch {
			return null;
		}
	};
	const instance = {
		port,
		database,
		user,
		dataDir,
		socketDir,
		logFile,
		get pid() {
			return postmasterPgid;
		},
		logTail: (lines) => tail(logFile, lines),
		/** The postmaster and its children right now (each child runs in a session of its own). */
		processIds() {
			if (!postmasterPgid) return [];
			return [postmasterPgid, ...childrenOf(postmasterPgid)];
		},
		/** psql -At -c <sql> against the database; resolves with the trimmed output. */
		async query(sql) {
			return (await run(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { env: pgEnv, timeoutMs: 30000 })).trim();
		},
		async stop() {
			if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
			try {
				await pg('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop'], { timeoutMs: 90000 });
			} catch (error) {
				process.stderr.write(`[services] pg_ctl stop failed, killing the postmaster's group: ${error.message}\n`);
			}
			if (postmasterPgid) await processes.stopGroup(postmasterPgid, { graceMs: 5000 });
		},
	};
	try {
		await pg('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start'], { timeoutMs: 90000 });
	} finally {
		// Track the postmaster even if pg_ctl gave up waiting, so it is stopped with the run.
		const pid = readPostmasterPid();
		if (pid) {
			postmasterPgid = pid;
			onProcessGroup(pid);
		}
	}
	await waitFor(
		`PostgreSQL on 127.0.0.1:${port}`,
		async () => {
			await run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'postgres', '-t', '2'], { env: pgEnv, timeoutMs: 5000 });
			return true;
		},
		{ timeoutMs: 30000, intervalMs: 200 },
	);
	await run(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, database], { env: pgEnv, timeoutMs: 30000 });
	return instance;
}

module.exports = { startRedis, startPostgres, postgresBinDir, redisCommand };
