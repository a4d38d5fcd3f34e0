'use strict';
// Stored size of a paused agent run whose tools returned large results. With approval mode 'all'
// every call pauses the run (request_approval); each is approved, the tool returns 1,000,000
// characters, and after five such results the run pauses again at a sixth call (delete_record).
// That paused state is what the Agent node keeps in n8n's node context while the execution waits:
// its size is measured as JSON.stringify(state).length, as the node's paused-run store, and in
// n8n's own storage format (flatted), for several Max Tool Result Characters caps.
//
// Input (argv[2], JSON): { flatted?: path to the flatted package (n8n's) }
// Output (last stdout line, JSON): { bigResultChars, bigResults, rows: [{ provider, cap, stateChars, ... }] }

const path = require('node:path');
const { REPO, emitResult } = require('../lib/common');
const fake = require('../lib/fakeModel');
const { connectOurConnection } = require('../lib/inProcess');

const DIST = path.join(REPO, 'dist', 'lib');
const { createRun, nextEffect, step } = require(path.join(DIST, 'agent', 'step.js'));
const { runAgent } = require(path.join(DIST, 'agent', 'runAgent.js'));
const { runToolCalls } = require(path.join(DIST, 'agent', 'toolRunner.js'));
const { DEFAULT_OUTCOME_LIMITS } = require(path.join(DIST, 'agent', 'toolOutcome.js'));
const { buildCatalog } = require(path.join(DIST, 'agent', 'catalog.js'));
const { buildRunSettings } = require(path.join(DIST, 'agent', 'settings.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { openStore, savePausedRun } = require(path.join(DIST, 'approvals', 'pausedRuns.js'));

const input = JSON.parse(process.argv[2] || '{}');
const BIG_RESULT_CHARS = 1_000_000;
const BIG_RESULTS = 5;
const CAPS = [2_000, 20_000, 200_000, 2_000_000];

let flatted = null;
try {
	flatted = input.flatted ? require(input.flatted) : null;
} catch {
	flatted = null;
}

async function pausedRun(provider, cap, connection, catalog) {
	const settings = {
		...buildRunSettings(`bench:fetch_page*${BIG_RESULTS},delete_record*1`, undefined, { maxIterations: 20, maxToolResultChars: cap }),
		approval: { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [] },
	};
	const connections = new Map([['bench', connection]]);
	const drivers = {
		model: { send: async (body) => fake[provider](body), listModels: async () => [] },
		runTools: (calls) => runToolCalls(calls, { connections, concurrency: 4, timeoutMs: 60_000, limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: settings.maxToolResultChars } }),
	};
	let state = createRun({ provider, settings, tools: catalog, userMessage: 'Read the five pages, then delete the record.' });
	let firstPauseChars;
	for (let round = 0; round < 20; round++) {
		state = await runAgent(state, drivers);
		const effect = nextEffect(state);
		if (effect.type !== 'request_approval') throw new Error(`run ended (${effect.type}) before pausing at delete_record`);
		const approval = { id: `approval-${round}`, requestedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-02T00:00:00.000Z' };
		state = step(state, { type: 'approval_opened', approval });
		firstPauseChars ??= JSON.stringify(state).length;
		if (effect.calls.some((call) => call.tool?.mcpName === 'delete_record')) {
			const t0 = performance.now();
			const json = JSON.stringify(state);
			const stringifyMs = performance.now() - t0;
			const t1 = performance.now();
			JSON.parse(json);
			const parseMs = performance.now() - t1;
			const store = openStore({});
			savePausedRun(store, approval.id, state, approval.requestedAt);
			return {
				provider,
				cap,
				bigResultsInState: state.toolLog.length,
				stateChars: json.length,
				storeChars: JSON.stringify(store).length,
				storeFlattedChars: flatted ? flatted.stringify(store).length : null,
				transcriptChars: JSON.stringify(state.transcript).length,
				toolLogChars: JSON.stringify(state.toolLog).length,
				toolsChars: JSON.stringify(state.tools).length,
				firstPauseChars,
				stringifyMs,
				parseMs,
			};
		}
		const decisions = effect.calls.map((call) => ({ callId: call.id, argsHash: call.review.argsHash, decision: 'approve' }));
		state = step(state, { type: 'approval_decided', approvalId: approval.id, decisions, reviewer: 'bench', decidedAt: '2026-01-01T00:01:00.000Z' });
	}
	throw new Error('the run never paused at delete_record');
}

(async () => {
	const { connection, close } = await connectOurConnection({ bigResultChars: BIG_RESULT_CHARS });
	const rows = [];
	try {
		const tools = await listAllTools(connection);
		const { tools: catalog } = buildCatalog([{ id: 'bench', name: 'bench', tools, trustAnnotations: false }]);
		for (const provider of ['anthropic', 'openaiChat']) {
			for (const cap of CAPS) rows.push(await pausedRun(provider, cap, connection, catalog));
		}
	} finally {
		await close();
	}
	emitResult({ node: process.version, bigResultChars: BIG_RESULT_CHARS, bigResults: BIG_RESULTS, defaultCap: DEFAULT_OUTCOME_LIMITS.maxChars, rows });
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
