'use strict';
// Reads the statuses of a workflow's executions straight from n8n's SQLite file (on n8n's Node 24,
// for node:sqlite), waiting for SQLite's write lock while n8n runs.

const path = require('node:path');
const { runNode24Script } = require('./node24Script');

const READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1], { readOnly: true, timeout: 10000 });
const rows = db.prepare('SELECT id, status FROM execution_entity WHERE workflowId = ? ORDER BY id').all(process.argv[2]);
db.close();
process.stdout.write(JSON.stringify(rows.map((r) => ({ id: String(r.id), status: r.status }))));`;

/** A workflow's stored executions ({ id, status }), oldest first. */
function executions(n8n, workflowId) {
	return runNode24Script(path.join(n8n.node24Bin, 'node'), READER, [path.join(n8n.userFolder, '.n8n', 'database.sqlite'), workflowId], '');
}

/** The statuses of a workflow's stored executions, oldest first. */
async function executionStatuses(n8n, workflowId) {
	return (await executions(n8n, workflowId)).map((execution) => execution.status);
}

/** The status of a workflow's latest stored execution, or 'none'. */
async function latestExecutionStatus(n8n, workflowId) {
	return (await executionStatuses(n8n, workflowId)).at(-1) ?? 'none';
}

/** A workflow's latest stored execution ({ id, status }), or undefined. */
async function latestExecution(n8n, workflowId) {
	return (await executions(n8n, workflowId)).at(-1);
}

module.exports = { executionStatuses, latestExecutionStatus, latestExecution };
