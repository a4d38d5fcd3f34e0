'use strict';
// Node timings from n8n's own execution records: each node run's `executionTime` (ms, measured by
// n8n around the node's execute()) from execution_data, which is stored in `flatted` format.
// Read with Node 24's node:sqlite, read-only, once per finished execution (see N8N-NOTES).

const { runNode24Script } = require('../../test/e2e/lib/node24Script');
const path = require('node:path');
const { sleep } = require('../../test/e2e/lib/processes');

const READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const { parse } = require('flatted');
const [dbFile, workflowId, afterId] = process.argv.slice(1);
const db = new DatabaseSync(dbFile, { readOnly: true, timeout: 10000 });
let result = null;
try {
	const row = db
		.prepare('SELECT id, status, startedAt, stoppedAt FROM execution_entity WHERE workflowId = ? AND CAST(id AS INTEGER) > ? ORDER BY CAST(id AS INTEGER) DESC LIMIT 1')
		.get(workflowId, Number(afterId));
	if (row) {
		result = { id: String(row.id), status: row.status, startedAt: row.startedAt, stoppedAt: row.stoppedAt };
		if (!['new', 'running', 'waiting'].includes(row.status)) {
			const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(row.id);
			if (data) {
				const run = parse(data.data);
				const runData = (run.resultData && run.resultData.runData) || {};
				result.nodes = {};
				for (const [name, runs] of Object.entries(runData)) {
					result.nodes[name] = runs.map((r) => ({
						startTime: r.startTime,
						executionTime: r.executionTime,
						status: r.executionStatus,
						items: r.data && r.data.main && r.data.main[0] ? r.data.main[0].length : 0,
					}));
				}
				const error = run.resultData && run.resultData.error;
				result.error = error ? String(error.message) : null;
				result.dataChars = data.data.length;
			} else {
				result.pendingData = true;
			}
		}
	}
} finally {
	db.close();
}
process.stdout.write(JSON.stringify(result));
`;

function readOnce(ctx, workflowId, afterId) {
	return runNode24Script(ctx.node24, READER, [path.join(ctx.userFolder, '.n8n', 'database.sqlite'), workflowId, String(afterId)], ctx.n8nModules);
}

/**
 * The first execution of `workflowId` newer than `afterId`, once it has finished and its data is
 * stored. Polls lightly: the webhook has already answered when this is called.
 */
async function finishedExecutionAfter(ctx, workflowId, afterId, { timeoutMs = 60000 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		let execution = null;
		try {
			execution = await readOnce(ctx, workflowId, afterId);
		} catch (error) {
			// SQLITE_BUSY while n8n writes: try again.
			if (!/busy|locked/i.test(error.message)) throw error;
		}
		if (execution && execution.nodes) return execution;
		if (Date.now() > deadline) throw new Error(`no finished execution of ${workflowId} after id ${afterId} (latest: ${JSON.stringify(execution)})`);
		await sleep(400);
	}
}

/** Id of the newest execution of the workflow (0 when none). */
async function latestExecutionId(ctx, workflowId) {
	const execution = await readOnce(ctx, workflowId, 0);
	return execution ? Number(execution.id) : 0;
}

module.exports = { finishedExecutionAfter, latestExecutionId };
