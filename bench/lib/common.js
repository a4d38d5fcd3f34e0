'use strict';
// Shared by the benchmark orchestrator (bench/run.js) and its child scripts: paths, the Node 24 /
// n8n install, statistics and a JSON-on-the-last-line protocol for child scripts.

const os = require('node:os');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');
const BENCH = path.join(REPO, 'bench');
const CACHE = process.env.MCP_AGENT_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-mcp-agent');
const EVERYTHING_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** Environment variable every process of a benchmark run carries, so leftovers can be found. */
const RUN_MARKER_NAME = 'MCP_AGENT_BENCH_RUN';

function log(message) {
	process.stderr.write(`[bench ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
}

/** Node 24 and n8n 2.41.1 from scripts/ensure-n8n.sh, resolved as the end-to-end harness does. */
function resolveN8n() {
	const { node24Bin, n8nBin } = require('../../test/e2e/lib/environment').resolveN8n();
	if (!node24Bin || !n8nBin) throw new Error('scripts/ensure-n8n.sh printed no paths');
	return { node24Bin, node24: path.join(node24Bin, 'node'), n8nBin, n8nModules: path.resolve(path.dirname(n8nBin), '..', '..') };
}

function sorted(values) {
	return [...values].sort((a, b) => a - b);
}

function quantile(values, q) {
	if (values.length === 0) return NaN;
	const s = sorted(values);
	const pos = (s.length - 1) * q;
	const lo = Math.floor(pos);
	const hi = Math.ceil(pos);
	return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

const median = (values) => quantile(values, 0.5);

/** Median with the interquartile range, for "x (IQR a-b)" reporting. */
function summary(values) {
	return { median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

function round(value, digits = 3) {
	if (!Number.isFinite(value)) return value;
	const f = 10 ** digits;
	return Math.round(value * f) / f;
}

/** A child script prints one JSON document as its last stdout line. */
function emitResult(result) {
	process.stdout.write(`${JSON.stringify(result)}\n`);
}

function machine() {
	const cpus = os.cpus();
	return {
		cpu: cpus[0] ? cpus[0].model.replace(/\s+/g, ' ').trim() : 'unknown',
		cores: cpus.length,
		memoryGb: round(os.totalmem() / 1024 ** 3, 1),
		os: `${os.type()} ${os.release()} ${os.arch()}`,
	};
}

/** Runs `start()`, adding every process group it spawns to `pgids` (for the leftover check). */
function trackGroups(pgids, start) {
	const processes = require('../../test/e2e/lib/processes');
	const before = new Set(processes.groups);
	const promise = start();
	for (const pgid of processes.groups) if (!before.has(pgid)) pgids.add(pgid);
	return promise;
}

module.exports = { REPO, BENCH, CACHE, EVERYTHING_ENTRY, RUN_MARKER_NAME, log, resolveN8n, median, quantile, summary, round, emitResult, machine, trackGroups };
