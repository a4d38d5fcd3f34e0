'use strict';
// Read finished executions straight from n8n's SQLite file, read-only and lightly (see N8N-NOTES).
// Node 24's built-in node:sqlite does the reading (Node 20 has none), and n8n's own `flatted`
// decodes execution_data.data, so this adds no dependency to the repo. The busy timeout waits out
// n8n's own writes ("database is locked" otherwise, right after a trigger).

const path = require('node:path');
const { sleep } = require('./processes');
const { runNode24Script } = require('./node24Script');

const READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const { parse } = require('flatted');
const [dbFile, workflowId, withData] = process.argv.slice(1);
const db = new DatabaseSync(dbFile, { readOnly: true, timeout: 10000 });
const row = db.prepare('SELECT id, status, finished FROM execution_entity WHERE workflowId = ? ORDER BY id DESC LIMIT 1').get(workflowId);
let result = row ? { id: String(row.id), status: row.status, finished: !!row.finished } : null;
if (row && withData === '1') {
	const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(row.id);
	const run = data ? parse(data.data) : null;
	const error = run && run.resultData && run.resultData.error;
	result.error = error ? { message: error.message, description: error.description, node: error.node && error.node.name } : null;
	result.lastNodeExecuted = run && run.resultData && run.resultData.lastNodeExecuted;
	// How often each node ran (a node run again after a wait has more than one run).
	result.runs = Object.fromEntries(Object.entries((run && run.resultData && run.resultData.runData) || {}).map(([node, runs]) => [node, runs.length]));
}
db.close();
process.stdout.write(JSON.stringify(result));
`;

function readLatest(n8n, workflowId, withData) {
	// `flatted` resolves from n8n's install.
	const nodePath = path.resolve(path.dirname(n8n.n8nBin), '..', '..');
	return runNode24Script(path.join(n8n.node24Bin, 'node'), READER, [path.join(n8n.userFolder, '.n8n', 'database.sqlite'), workflowId, withData ? '1' : '0'], nodePath);
}

/** The latest execution of a workflow once it has finished (any status but running/new/waiting). */
async function latestFinishedExecution(n8n, workflowId, { timeoutMs = 30000 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await readLatest(n8n, workflowId, false);
		if (execution && !['new', 'running', 'waiting'].includes(execution.status)) {
			return readLatest(n8n, workflowId, true);
		}
		if (Date.now() > deadline) throw new Error(`no finished execution of ${workflowId} (latest: ${JSON.stringify(execution)})`);
		await sleep(1500);
	}
}

// The newest execution of a workflow with an id above afterId, with its whole stored data as text
// (n8n's flatted serialization, searched as is: a secret that is anywhere in it shows up verbatim).
const RAW_READER = String.raw`
const { DatabaseSync } = require('node:sqlite');
const [dbFile, workflowId, afterId] = process.argv.slice(1);
const db = new DatabaseSync(dbFile, { readOnly: true, timeout: 10000 });
const row = db.prepare('SELECT id, status FROM execution_entity WHERE workflowId = ? AND id > ? ORDER BY id DESC LIMIT 1').get(workflowId, Number(afterId));
let result = null;
if (row) {
	const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(row.id);
	result = { id: Number(row.id), status: row.status, data: data ? data.data : '' };
}
db.close();
process.stdout.write(JSON.stringify(result));
`;

/**
 * The first finished execution of a workflow newer than afterId (an execution id), as
 * { id, status, data } where data is the raw stored execution data text.
 */
async function nextFinishedExecutionRaw(n8n, workflowId, { afterId = 0, timeoutMs = 30000 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await runNode24Script(path.join(n8n.node24Bin, 'node'), RAW_READER, [path.join(n8n.userFolder, '.n8n', 'database.sqlite'), workflowId, String(afterId)], '');
		if (execution && !['new', 'running', 'waiting'].includes(execution.status)) return execution;
		if (Date.now() > deadline) throw new Error(`no finished execution of ${workflowId} after id ${afterId} (latest: ${JSON.stringify(execution && { id: execution.id, status: execution.status })})`);
		await sleep(500);
	}
}

module.exports = { latestFinishedExecution, nextFinishedExecutionRaw };
