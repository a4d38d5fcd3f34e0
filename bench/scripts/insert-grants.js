'use strict';
// Bench part 'approvals': puts the workload's standing approvals (bench/lib/approvalWorkload.js
// GRANTS) into n8n's own SQLite database before n8n starts, through the package's own code: each
// grant is made by makeGrant (lib/agent/grants.ts, as the review page's decision makes one) and
// stored by sqlGrantStore (lib/approvals/grantStoreSql.ts, the store the Agent reads in n8n: same
// table, same statements), here over node:sqlite instead of n8n's TypeORM connection. Revoked
// grants are revoked through the store. The tools' fingerprints come from listing the fixture server
// through the package's McpConnection, as the Agent's catalog fingerprints them.
//
// Input (argv[2], JSON): { dbFile, workflowId, nodeId, now, serverScript }
// Output: { grants: [{ key, id, tool, exact?, fields?, scope, fingerprintCurrent, expiresAt, active }], fingerprints, rows }

const path = require('node:path');
const { DatabaseSync } = require('node:sqlite');
const { REPO, emitResult } = require('../lib/common');
const { GRANTS, SERVER } = require('../lib/approvalWorkload');

const DIST = path.join(REPO, 'dist', 'lib');
const { makeGrant } = require(path.join(DIST, 'agent', 'grants.js'));
const { hashArguments } = require(path.join(DIST, 'agent', 'argumentHash.js'));
const { sqlGrantStore } = require(path.join(DIST, 'approvals', 'grantStoreSql.js'));
const { McpConnection } = require(path.join(DIST, 'mcp', 'connection.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { fingerprintTool } = require(path.join(DIST, 'tools', 'fingerprint.js'));

const REVIEWER = 'Bench Reviewer';
const STALE_FINGERPRINT = `sha256:${'0'.repeat(64)}`;

async function fingerprints(serverScript) {
	const connection = await McpConnection.open({
		kind: 'stdio',
		command: process.execPath,
		args: [serverScript],
		env: { APPROVAL_CALLS_FILE: '/dev/null' },
		trustAnnotations: false,
		connectTimeoutMs: 30_000,
		requestTimeoutMs: 30_000,
	});
	try {
		return Object.fromEntries((await listAllTools(connection)).map((tool) => [tool.name, fingerprintTool(tool)]));
	} finally {
		await connection.close();
	}
}

(async () => {
	const input = JSON.parse(process.argv[2]);
	const fps = await fingerprints(input.serverScript);
	const db = new DatabaseSync(input.dbFile, { timeout: 10_000 });
	const connection = {
		dialect: 'sqlite',
		query: async (sql, params) => {
			const statement = db.prepare(sql);
			return /^\s*SELECT/i.test(sql) ? statement.all(...params) : statement.run(...params);
		},
	};
	const store = sqlGrantStore(connection);
	const out = [];
	try {
		for (const spec of GRANTS) {
			const scope = {
				workflowId: spec.scope === 'other-workflow' ? 'benchOtherWorkflow' : input.workflowId,
				nodeId: spec.scope === 'other-node' ? 'bench-other-agent-node' : input.nodeId,
			};
			const grant = makeGrant({
				...scope,
				approvalId: `bench-approval-${spec.key}`,
				callId: `bench-call-${spec.key}`,
				server: SERVER,
				tool: spec.tool,
				fingerprint: spec.fingerprint === 'stale' ? STALE_FINGERPRINT : fps[spec.tool],
				arguments: spec.exact ?? spec.from,
				constraint: spec.exact ? { kind: 'exact', argumentsHash: hashArguments(spec.exact) } : { kind: 'fields', fields: spec.fields },
				duration: spec.duration,
				grantedBy: REVIEWER,
				now: input.now - (spec.agoMs ?? 0),
			});
			if (grant instanceof Error) throw new Error(`grant ${spec.key}: ${grant.message}`);
			await store.insert(grant);
			if (spec.revoked && !(await store.revoke(scope, grant.id, REVIEWER, input.now))) throw new Error(`grant ${spec.key}: not revoked`);
			out.push({
				key: spec.key,
				id: grant.id,
				tool: spec.tool,
				...(spec.exact ? { exact: spec.exact } : { fields: spec.fields }),
				scope: spec.scope ?? 'this',
				fingerprintCurrent: spec.fingerprint !== 'stale',
				expiresAt: grant.expiresAt,
				// A grant that expires within the run would make the expected outcome depend on timing.
				active: !spec.revoked && grant.expiresAt > input.now + 30 * 60_000,
				expiredAtStart: grant.expiresAt <= input.now,
			});
		}
		const rows = db.prepare('SELECT COUNT(*) AS n FROM mcp_agent_grant').get().n;
		emitResult({ grants: out, fingerprints: fps, rows });
	} finally {
		db.close();
	}
})().catch((error) => {
	process.stderr.write(`${error.stack}\n`);
	process.exit(1);
});
