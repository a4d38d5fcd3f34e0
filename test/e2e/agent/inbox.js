'use strict';
// Stands in for Slack / e-mail in the end-to-end runs: workflows POST their "Needs approval" items
// to /pending/<case> and their final results to /done/<case>; tests wait for them here.

const http = require('node:http');

async function startInbox() {
	const queues = new Map();
	const waiters = new Map();
	const key = (kind, name) => `${kind}/${name}`;
	const server = http.createServer((req, res) => {
		let body = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			const [, kind, name] = req.url.split('/');
			let parsed;
			try {
				parsed = JSON.parse(body);
			} catch {
				parsed = body;
			}
			const k = key(kind, name);
			const waiting = waiters.get(k);
			if (waiting && waiting.length) waiting.shift()(parsed);
			else queues.set(k, [...(queues.get(k) ?? []), parsed]);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{}');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${server.address().port}`;
	return {
		url,
		/** The next message for kind/name, in arrival order. */
		next(kind, name, { timeoutMs = 90000 } = {}) {
			const k = key(kind, name);
			const queued = queues.get(k);
			if (queued && queued.length) return Promise.resolve(queued.shift());
			return new Promise((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error(`nothing arrived at ${k} within ${timeoutMs} ms`)), timeoutMs);
				waiters.set(k, [...(waiters.get(k) ?? []), (value) => (clearTimeout(timer), resolve(value))]);
			});
		},
		/** The oldest message for kind/name that arrived and was not taken, or undefined; never waits. */
		take(kind, name) {
			const queued = queues.get(key(kind, name));
			return queued && queued.length ? queued.shift() : undefined;
		},
		/** Messages that arrived and were not taken. */
		pending(kind, name) {
			return queues.get(key(kind, name)) ?? [];
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

module.exports = { startInbox };
