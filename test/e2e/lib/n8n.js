'use strict';
// A real n8n (Node 24) in a throw-away user folder: CLI imports, start, readiness, webhook triggers.
// 2.41.1 or 1.123.81 (lib/n8nVersion.js): the version is read from the install n8nBin belongs to, and
// CLI commands and environment are adapted to it, so suites written for 2.x run on both.

const fs = require('node:fs');
const path = require('node:path');
const { spawnGroup, stopGroup, sleep } = require('./processes');
const { waitFor } = require('./net');
const { installedN8nVersion, n8nMajor, cliArgsFor } = require('./n8nVersion');

/** Connection failures before n8n read the request (a refused connect, a kept-alive socket it had closed). */
const CONNECTION_NOT_USED = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']);

class N8n {
	constructor({ node24Bin, n8nBin, userFolder, port, brokerPort, logFile, runMarker, extraEnv = {} }) {
		Object.assign(this, { node24Bin, n8nBin, userFolder, port, brokerPort, logFile, runMarker, extraEnv });
		this.version = installedN8nVersion(n8nBin);
		this.major = n8nMajor(this.version);
		this.baseUrl = `http://127.0.0.1:${port}`;
		this.child = null;
		// What start() runs and waits for; a worker (test/e2e/agent/queue.js) changes these three.
		this.command = 'start';
		this.label = 'n8n';
		this.readinessUrl = `${this.baseUrl}/healthz/readiness`;
	}

	env() {
		const [markerName, markerValue] = this.runMarker.split('=');
		return {
			...process.env,
			PATH: `${this.node24Bin}${path.delimiter}${process.env.PATH}`,
			[markerName]: markerValue,
			N8N_USER_FOLDER: this.userFolder,
			N8N_PORT: String(this.port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			N8N_WEBHOOK_URL: `${this.baseUrl}/`,
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			N8N_ENCRYPTION_KEY: 'mcp-agent-e2e-not-a-secret',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_SECURE_COOKIE: 'false',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
			N8N_LOG_LEVEL: process.env.MCP_AGENT_E2E_LOG_LEVEL || 'info',
			N8N_LOG_OUTPUT: 'console',
			N8N_MCP_AGENT_ALLOW_STDIO: 'true',
			DB_TYPE: 'sqlite',
			...this.extraEnv,
		};
	}

	log(line) {
		fs.appendFileSync(this.logFile, `\n===== [e2e ${new Date().toISOString()}] ${line}\n`);
	}

	/** Run an n8n CLI command to completion; throws with its output when it fails. */
	async cli(givenArgs, { timeoutMs = 180000, stdoutOnly = false } = {}) {
		const args = cliArgsFor(this.version, givenArgs);
		this.log(`n8n ${args.join(' ')}`);
		const child = spawnGroup(path.join(this.node24Bin, 'node'), [this.n8nBin, ...args], {
			cwd: this.userFolder,
			env: this.env(),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		// stdout alone too: `execute --rawOutput` prints JSON there, and stderr chunks would land inside it.
		let stdout = '';
		child.stdout.on('data', (d) => ((output += d), (stdout += d)));
		child.stderr.on('data', (d) => (output += d));
		const timer = setTimeout(() => stopGroup(child.pid, { graceMs: 2000 }), timeoutMs);
		const { code, signal, error } = await child.exited;
		clearTimeout(timer);
		await stopGroup(child.pid, { graceMs: 2000 });
		fs.appendFileSync(this.logFile, output);
		if (error || code !== 0) {
			throw new Error(
				`n8n ${args.join(' ')} failed (exit ${code}${signal ? `, ${signal}` : ''}${error ? `, ${error.message}` : ''}):\n${output.trim().split('\n').slice(-30).join('\n')}`,
			);
		}
		return stdoutOnly ? stdout : output;
	}

	async start() {
		this.log(`n8n ${this.command}`);
		const fd = fs.openSync(this.logFile, 'a');
		this.child = spawnGroup(path.join(this.node24Bin, 'node'), [this.n8nBin, this.command], {
			cwd: this.userFolder,
			env: this.env(),
			stdio: ['ignore', fd, fd],
		});
		fs.closeSync(fd);
		let exited = null;
		this.child.exited.then((result) => (exited = result));
		await waitFor(`${this.label} readiness at ${this.readinessUrl}`, async () => (await fetch(this.readinessUrl, { signal: AbortSignal.timeout(2000) })).ok, {
			timeoutMs: 180000,
			intervalMs: 500,
			failIf: () => exited && `${this.label} exited early (code ${exited.code}, signal ${exited.signal})`,
		});
		// n8n 1.x answers readiness as soon as its database is migrated, before its REST routes exist
		// (2.x waits for them): the public settings route answering is the same point on 1.x.
		if (this.major < 2 && this.command === 'start') {
			const settingsUrl = `${this.baseUrl}/rest/settings`;
			await waitFor(`${this.label} REST routes at ${settingsUrl}`, async () => (await fetch(settingsUrl, { signal: AbortSignal.timeout(2000) })).ok, {
				timeoutMs: 180000,
				intervalMs: 500,
				failIf: () => exited && `${this.label} exited early (code ${exited.code}, signal ${exited.signal})`,
			});
		}
	}

	async stop() {
		if (!this.child) return;
		const pid = this.child.pid;
		this.child = null;
		await stopGroup(pid, { graceMs: 20000 });
	}

	/**
	 * POST to a production webhook and return { status, body }. Published workflows register
	 * their webhooks shortly after readiness, so a 404 is retried for a while; so is a connection
	 * n8n refused or closed before it read the request (n8n 1.x, while it activates workflows,
	 * closes kept-alive sockets: the request never reached a workflow).
	 */
	async trigger(webhookPath, payload = {}, { timeoutMs = 120000, notFoundRetryMs = 20000 } = {}) {
		const url = `${this.baseUrl}/webhook/${webhookPath}`;
		const deadline = Date.now() + notFoundRetryMs;
		for (;;) {
			let response;
			try {
				response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(payload),
					signal: AbortSignal.timeout(timeoutMs),
				});
			} catch (error) {
				if (!CONNECTION_NOT_USED.has(error?.cause?.code) || Date.now() >= deadline) throw error;
				await sleep(500);
				continue;
			}
			const text = await response.text();
			if (response.status === 404 && Date.now() < deadline) {
				await sleep(500);
				continue;
			}
			let body;
			try {
				body = JSON.parse(text);
			} catch {
				body = text;
			}
			return { status: response.status, body };
		}
	}

	logTail(lines = 80) {
		try {
			return fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
		} catch {
			return '(no log)';
		}
	}
}

module.exports = { N8n };
