'use strict';
// The poisoning scan of a 2,000-tool listing (issue 25, point 2), benign and hostile (near-miss
// text from test/fixtures/hostile-listing-server.js, 2,000 characters per field): total time of
// the scan as the Agent's catalog runs it (buildCatalogYielding) and as MCP List Tools runs it
// (flagListedTools), and the longest stall of the event loop meanwhile (the longest gap between
// two 1 ms timer ticks, beyond the 1 ms). Without a yielding scan the stall is the whole scan.
//
// Input (argv[2], JSON): { tools, quick }
// Output (last stdout line, JSON): { tools, fieldChars, runs: { benign: {...}, hostile: {...} }, hostileToBenign }

const path = require('node:path');
const { REPO, emitResult } = require('../lib/common');
const { scanSummary } = require('../lib/derive');

const DIST = path.join(REPO, 'dist', 'lib');
const { buildCatalogYielding } = require(path.join(DIST, 'agent', 'catalog.js'));
const { flagListedTools } = require(path.join(DIST, 'tools', 'listingReport.js'));
const { hostileListing } = require(path.join(REPO, 'test', 'fixtures', 'hostile-listing-server.js'));

const input = JSON.parse(process.argv[2] || '{}');
const COUNT = input.tools ?? 2000;
const PASSES = input.quick ? 1 : 3;

/** Runs `work` while a 1 ms timer ticks; the longest gap between ticks is the longest stall. */
async function withStallMeter(work) {
	let last = performance.now();
	let maxGap = 0;
	const timer = setInterval(() => {
		const now = performance.now();
		maxGap = Math.max(maxGap, now - last);
		last = now;
	}, 1);
	const t0 = performance.now();
	await work();
	const totalMs = performance.now() - t0;
	maxGap = Math.max(maxGap, performance.now() - last);
	clearInterval(timer);
	return { totalMs, maxStallMs: maxGap };
}

(async () => {
	const runs = {};
	for (const kind of ['benign', 'hostile']) {
		const catalog = [];
		const listTools = [];
		for (let pass = 0; pass < PASSES; pass++) {
			// New objects each pass: nothing is cached by tool object across passes.
			const tools = hostileListing(COUNT, kind);
			catalog.push(await withStallMeter(() => buildCatalogYielding([{ id: 'bench', name: 'bench', tools, trustAnnotations: false }])));
			listTools.push(await withStallMeter(() => flagListedTools(hostileListing(COUNT, kind))));
		}
		// Every pass kept (scanSummary keeps them beside the medians; bench/lib/derive.js).
		runs[kind] = { catalog: scanSummary(catalog), listTools: scanSummary(listTools) };
	}
	emitResult({
		node: process.version,
		tools: COUNT,
		fieldChars: hostileListing(1)[0].description.length,
		runs,
		hostileToBenign: runs.hostile.catalog.totalMs / runs.benign.catalog.totalMs,
	});
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
