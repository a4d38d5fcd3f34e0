'use strict';
// Polls n8n's GET /healthz every intervalMs while something runs, and records how long each request
// took to answer. A blocked event loop in n8n (e.g. a regular expression backtracking for minutes)
// shows up as one request that answers late or not at all; a busy but responsive n8n keeps
// answering in milliseconds. This is an acceptance check (issue 10: every poll within a second),
// not a benchmark.

const { sleep } = require('./processes');

/**
 * Starts polling at once; stop() ends it and resolves with
 * { polls: [{ at, ms, status | error }], slowest } where `at` is ms since the start.
 * A request that has no answer after giveUpMs counts as taking giveUpMs (and is aborted).
 */
function startHealthProbe(baseUrl, { intervalMs = 100, giveUpMs = 120000 } = {}) {
	const polls = [];
	const started = Date.now();
	let stopping = false;
	const loop = (async () => {
		while (!stopping) {
			const begin = performance.now();
			const at = Date.now() - started;
			try {
				const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(giveUpMs) });
				await response.text();
				polls.push({ at, ms: Math.round(performance.now() - begin), status: response.status });
			} catch (error) {
				polls.push({ at, ms: Math.round(performance.now() - begin), error: error.name === 'TimeoutError' ? `no answer within ${giveUpMs} ms` : error.message });
			}
			const rest = intervalMs - (performance.now() - begin);
			if (rest > 0) await sleep(rest);
		}
	})();
	return {
		async stop() {
			stopping = true;
			await loop;
			const slowest = polls.reduce((worst, p) => (!worst || p.ms > worst.ms ? p : worst), undefined);
			return { polls, slowest };
		},
	};
}

module.exports = { startHealthProbe };
