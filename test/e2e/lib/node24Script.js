'use strict';
// Runs a small script on n8n's Node 24 (for node:sqlite, which Node 20 lacks) with n8n's own
// modules resolvable (`flatted`), and returns what it printed as JSON. Used to read n8n's SQLite
// file from the e2e harness and the benchmarks.

const { spawn } = require('node:child_process');

function runNode24Script(node24, script, args, nodePath) {
	return new Promise((resolve, reject) => {
		const child = spawn(node24, ['--no-warnings', '-e', script, ...args], {
			env: { ...process.env, NODE_PATH: nodePath },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (err += d));
		child.on('error', reject);
		child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out || 'null')) : reject(new Error(`execution reader: ${err}`))));
	});
}

module.exports = { runNode24Script };
