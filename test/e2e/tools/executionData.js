'use strict';
// The runs of chosen nodes in a workflow's latest execution (the newest one its trigger ran in), read from n8n's SQLite file with
// n8n's own `flatted` (as ../lib/executions.js does): what the editor's execution view shows for
// sub-nodes (inputOverride, data, executionTime, error).

const path = require('node:path');
const { runNode24Script } = require('../lib/node24Script');

const READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const { parse } = require('flatted');
const [dbFile, workflowId, names, trigger] = process.argv.slice(1);
// timeout: wait for n8n's write lock instead of failing at once with "database is locked" (seen on
// n8n 1.123, whose SQLite runs without a read pool).
const db = new DatabaseSync(dbFile, { readOnly: true, timeout: 10000 });
// The newest run of the workflow itself: a Call n8n Workflow Tool's inline sub-workflow is stored
// under the same workflow id, without the trigger node.
let row = null;
let runData = {};
for (const candidate of db.prepare('SELECT id, status FROM execution_entity WHERE workflowId = ? ORDER BY id DESC').all(workflowId)) {
	const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(candidate.id);
	const candidateRuns = data ? parse(data.data).resultData.runData : {};
	if (candidateRuns[trigger]) {
		row = candidate;
		runData = candidateRuns;
		break;
	}
}
db.close();
const runs = {};
for (const name of JSON.parse(names)) {
	runs[name] = (runData[name] || []).map((run) => ({
		executionTime: run.executionTime,
		executionStatus: run.executionStatus,
		inputOverride: run.inputOverride,
		data: run.data,
		error: run.error ? { message: run.error.message, description: run.error.description } : undefined,
	}));
}
process.stdout.write(JSON.stringify({ id: row && String(row.id), status: row && row.status, runs }));
`;

/** { id, status, runs: { [node]: [{ executionTime, executionStatus, inputOverride, data, error }] } } */
function latestRuns(n8n, workflowId, nodeNames, { trigger = 'Webhook' } = {}) {
	const nodePath = path.resolve(path.dirname(n8n.n8nBin), '..', '..');
	return runNode24Script(path.join(n8n.node24Bin, 'node'), READER, [path.join(n8n.userFolder, '.n8n', 'database.sqlite'), workflowId, JSON.stringify(nodeNames), trigger], nodePath);
}

module.exports = { latestRuns };
