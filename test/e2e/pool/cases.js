'use strict';
// Issue 13, shown in a real n8n: one warm server process for 100 executions, a killed server
// replaced, an edited credential starting a new server, idle shutdown, Keep Server Running off, and
// nothing left behind when n8n stops (also with a call in flight). Ready checks, never fixed sleeps.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const processes = require('../lib/processes');
const { waitFor } = require('../lib/net');
const { executionStatuses } = require('../lib/executionStatuses');
const { assertNoLeftoverProcesses } = require('../lib/suiteRun');

/** Alive and not a zombie (a killed child of n8n stays a zombie until n8n reaps it). */
function alive(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
	} catch {
		return false;
	}
}

/** Running processes of this run's pool-server (found by the run marker in their environment). */
function poolServers(ctx) {
	return processes.listProcesses().filter((p) => p.state !== 'Z' && p.cmdline.includes('pool-server.js') && p.environ.split('\0').includes(ctx.runMarker));
}

module.exports = function poolCases(e2e, ctx) {
	const startedPids = (name) => (fs.existsSync(ctx.pidFile(name)) ? fs.readFileSync(ctx.pidFile(name), 'utf8').split('\n').filter(Boolean).map(Number) : []);

	/** One webhook execution calling echo; returns the pid the server named in its answer. */
	async function echoPid(name, message) {
		const { status, body } = await ctx.n8n.trigger(`pool-${name}`, { tool: 'echo', args: { message } });
		assert.equal(status, 200, `execution ${message} of ${name} failed: ${JSON.stringify(body).slice(0, 500)}`);
		const items = Array.isArray(body) ? body : [body];
		assert.equal(items.length, 1);
		assert.equal(items[0].isError, false, JSON.stringify(items[0]));
		const match = new RegExp(`^echo: ${message} \\(pid (\\d+)\\)$`).exec(items[0].text);
		assert.ok(match, `unexpected answer: ${JSON.stringify(items[0].text)}`);
		return Number(match[1]);
	}

	const gone = (pid, what, timeoutMs = 10000) => waitFor(`${what} (pid ${pid}) to end`, () => !alive(pid), { timeoutMs, intervalMs: 100 });

	e2e('100 webhook executions share one warm stdio server process', async () => {
		// The first execution alone starts the server; the other 99 come four at a time, so
		// executions also share the connection while others use it.
		const first = await echoPid('warm', 'm0');
		const pids = [first];
		for (let i = 1; i < 100; i += 4) {
			const batch = [];
			for (let j = i; j < Math.min(i + 4, 100); j++) batch.push(echoPid('warm', `m${j}`));
			pids.push(...(await Promise.all(batch)));
		}
		assert.equal(pids.length, 100);
		assert.deepEqual([...new Set(pids)], [first], 'every execution was answered by the same process');
		assert.deepEqual(startedPids('warm'), [first], 'exactly one server process was started');
		assert.ok(alive(first), 'the warm server is still running after the executions');
		ctx.warmPid = first;
	});

	e2e('a killed server is replaced: the next execution succeeds on a new process', async () => {
		const old = ctx.warmPid;
		assert.ok(old, 'needs the warm server of the previous case');
		process.kill(old, 'SIGKILL');
		await gone(old, 'the killed server');
		const next = await echoPid('warm', 'after-kill');
		assert.notEqual(next, old);
		assert.deepEqual(startedPids('warm'), [old, next]);
		assert.ok(!alive(old));
		assert.equal(await echoPid('warm', 'again'), next, 'the new process is kept warm in turn');
		ctx.warmPid = next;
	});

	e2e('editing the credential (PATCH as the editor saves it) starts a new server and ends the old one', async () => {
		const old = ctx.warmPid ?? (await echoPid('warm', 'before-edit'));
		const id = ctx.credentials.warm.id;
		// The editor opens the credential (secrets come back redacted), changes a field, and saves.
		const opened = await ctx.editor.call('GET', `/rest/credentials/${encodeURIComponent(id)}?includeData=true`);
		const data = { ...opened.data, environment: `${opened.data.environment}\nPOOL_EDITED=1` };
		await ctx.editor.call('PATCH', `/rest/credentials/${encodeURIComponent(id)}`, { id, name: opened.name, type: opened.type, data });
		const next = await echoPid('warm', 'after-edit');
		assert.notEqual(next, old, 'the edited credential got a new connection');
		await gone(old, 'the server of the credential before the edit');
		assert.deepEqual(startedPids('warm').slice(-2), [old, next]);
		assert.equal(await echoPid('warm', 'edited-again'), next, 'the edited credential is kept warm');
		assert.ok(alive(next));
	});

	e2e('Idle Shutdown (Minutes) 0.1: the server ends after ~6 s unused while n8n keeps running', async () => {
		const started = Date.now();
		const pid = await echoPid('idle', 'once');
		await gone(pid, 'the idle server', 20000);
		const idleMs = Date.now() - started;
		assert.ok(idleMs >= 5000, `the server ended after only ${idleMs} ms, before its idle time`);
		assert.deepEqual(startedPids('idle'), [pid]);
		assert.ok((await fetch(`${ctx.n8n.baseUrl}/healthz/readiness`)).ok, 'n8n still runs');
		const next = await echoPid('idle', 'later');
		assert.notEqual(next, pid, 'the next execution starts a new server');
	});

	e2e('Keep Server Running off: 5 executions, 5 processes, none left running', async () => {
		const pids = [];
		for (let i = 0; i < 5; i++) pids.push(await echoPid('cold', `c${i}`));
		assert.equal(new Set(pids).size, 5, `pids: ${pids}`);
		assert.deepEqual(startedPids('cold'), pids);
		for (const pid of pids) await gone(pid, 'a per-execution server', 5000);
	});

	require('./agentCases')(e2e, ctx);

	e2e('stopping n8n (SIGTERM) with a warm server and a slow call in flight leaves no pool-server behind', async () => {
		const warmPid = await echoPid('shutdown', 'warm');
		assert.ok(alive(warmPid));
		// A 3 s call, and SIGTERM once the server runs it: no pool-server writes a call log, so wait
		// until n8n has the execution running (its webhook has not answered yet).
		let settled = null;
		const slow = ctx.n8n
			.trigger('pool-shutdown', { tool: 'slow', args: { ms: 3000, message: 'in flight' } }, { notFoundRetryMs: 0 })
			.then((response) => (settled = { response }), (error) => (settled = { error }));
		await waitFor('the slow execution to be running', async () => (await runningExecutions(ctx)) > 0, { timeoutMs: 20000, intervalMs: 100 });
		assert.equal(settled, null, 'the slow call answered before n8n was stopped');
		await ctx.n8n.stop();
		await slow;
		const stored = await executionStatuses(ctx.n8n, ctx.workflows.shutdown.id);
		process.stderr.write(`[e2e pool] the call in flight at SIGTERM: ${settled.response ? `answered ${settled.response.status} ${JSON.stringify(settled.response.body).slice(0, 200)}` : `request failed: ${settled.error.message}`}; stored executions: ${JSON.stringify(stored)}\n`);
		// Nothing left behind, whatever happened to the call.
		assert.deepEqual(poolServers(ctx).map((p) => `${p.pid} ${p.cmdline}`), [], 'pool-server processes left running');
		assert.ok(!alive(warmPid));
		await assertNoLeftoverProcesses(ctx);
		// And the call ended cleanly: n8n's graceful shutdown (N8N_GRACEFUL_SHUTDOWN_TIMEOUT, 10 s
		// here) lets the 3 s call finish, or the execution fails with an answer. Never an n8n killed
		// mid-shutdown: a reset connection and an execution stored as still running.
		assert.ok(settled.response, `the webhook got no answer (${settled.error && settled.error.message}): n8n ended before its graceful shutdown finished`);
		const { status, body } = settled.response;
		if (status === 200) assert.match(JSON.stringify(body), /slow: in flight \(pid \d+\)/);
		else assert.ok(status >= 500, `unexpected answer ${status}: ${JSON.stringify(body).slice(0, 300)}`);
		assert.ok(['success', 'error', 'canceled'].includes(stored.at(-1)), `the execution in flight was stored as ${stored.at(-1)}`);
	});
};

/** How many executions n8n's editor API lists as running. */
async function runningExecutions(ctx) {
	const list = await ctx.editor.call('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ status: ['running'] }))}`);
	return (list.results ?? list).length ?? 0;
}
