'use strict';
// The zero-latency fake model (bench/lib/fakeModel.js) on a loopback port, in its own process so
// that its request parsing does not count as the host's CPU time. Prints {"port":N} when listening;
// exits when its stdin closes (the parent ended) or on SIGTERM.

const { startFakeModelServer } = require('../lib/fakeModel');

(async () => {
	const server = await startFakeModelServer();
	const port = Number(new URL(server.anthropicBaseUrl).port);
	process.stdout.write(`${JSON.stringify({ port })}\n`);
	const stop = async () => {
		await server.close();
		process.exit(0);
	};
	process.stdin.on('end', stop);
	process.stdin.resume();
	process.once('SIGTERM', stop);
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
