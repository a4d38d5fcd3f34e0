'use strict';
// A real browser's view of a page n8n serves: Debian's chromium, headless, one screenshot. The page
// is fetched by chromium itself (a plain GET, which never decides a review), so what it shows is what
// a reviewer's browser renders under the page's Content-Security-Policy.

const fs = require('node:fs');
const path = require('node:path');
const { spawnGroup, stopGroup } = require('./processes');

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser to use, or undefined when none is installed (the caller skips the check). */
function findChromium() {
	const fromEnv = process.env.MCP_AGENT_E2E_CHROMIUM;
	if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : undefined;
	return CANDIDATES.find((file) => fs.existsSync(file));
}

/**
 * Screenshot url into file (PNG). profileDir holds chromium's profile (inside the run's temp folder,
 * so it is removed with it). Resolves when chromium wrote the file; fails with its output otherwise.
 */
async function screenshot(chromium, url, file, { profileDir, width = 1000, height = 1600, timeoutMs = 60000 } = {}) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.rmSync(file, { force: true });
	// --no-sandbox: the test machines run as root, where chromium refuses its sandbox.
	const args = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run', `--user-data-dir=${profileDir}`, `--window-size=${width},${height}`, `--screenshot=${file}`, url];
	const child = spawnGroup(chromium, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	child.stdout.on('data', (d) => (output += d));
	child.stderr.on('data', (d) => (output += d));
	const timer = setTimeout(() => stopGroup(child.pid, { graceMs: 1000 }), timeoutMs);
	const { code, signal } = await child.exited;
	clearTimeout(timer);
	// Chromium's helpers (zygote, crashpad) share its group: none may outlive the screenshot.
	await stopGroup(child.pid, { graceMs: 2000 });
	const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
	if (code !== 0 || !fs.existsSync(file) || !fs.readFileSync(file).subarray(0, 4).equals(PNG)) {
		throw new Error(`chromium did not write ${file} (exit ${code}${signal ? `, ${signal}` : ''}):\n${output.split('\n').filter((l) => !/dbus|^\s*$/i.test(l)).slice(-15).join('\n')}`);
	}
	return file;
}

module.exports = { findChromium, screenshot };
