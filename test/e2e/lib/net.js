'use strict';
const net = require('node:net');
const { sleep } = require('./processes');

/** A loopback port that was free a moment ago (never 5678/5679, n8n's defaults). */
async function freePort() {
	for (;;) {
		const port = await new Promise((resolve, reject) => {
			const server = net.createServer();
			server.unref();
			server.on('error', reject);
			server.listen(0, '127.0.0.1', () => {
				const { port } = server.address();
				server.close(() => resolve(port));
			});
		});
		if (port !== 5678 && port !== 5679) return port;
	}
}

/** Distinct free ports. */
async function freePorts(count) {
	const ports = new Set();
	while (ports.size < count) ports.add(await freePort());
	return [...ports];
}

function canConnect(port, host = '127.0.0.1') {
	return new Promise((resolve) => {
		const socket = net.connect({ port, host });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** Poll until `check()` resolves truthy; fail early when `failIf()` returns a message. */
async function waitFor(what, check, { timeoutMs = 60000, intervalMs = 250, failIf } = {}) {
	const deadline = Date.now() + timeoutMs;
	let lastError;
	while (Date.now() < deadline) {
		const reason = failIf && failIf();
		if (reason) throw new Error(`${what}: ${reason}`);
		try {
			const value = await check();
			if (value) return value;
		} catch (error) {
			lastError = error;
		}
		await sleep(intervalMs);
	}
	throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ''}`);
}

module.exports = { freePort, freePorts, canConnect, waitFor };
