import { McpAgentError } from '../errors';
import type { Grant, GrantScope, GrantStore, WorkflowScope } from '../agent/grants';

/**
 * The grant store over SQL (SQLite or PostgreSQL), given only a way to run a statement: the n8n
 * adapter (nodes/shared/grantStore.ts) passes n8n's own database connection, tests a private one.
 *
 * One table, `<prefix>mcp_agent_grant`. A row is inserted once (`ON CONFLICT DO NOTHING`); the only
 * later writes are the one-way revocation (`revoked_at` set where it is null, never cleared) and
 * the usage counter (`uses = uses + 1` in the statement, never a value read earlier). No statement
 * rewrites a grant from a copy, so a stale or concurrent writer can at worst fail to add one: the
 * Agent then asks again. Rows are deleted only a week after they expired.
 */
export interface SqlConnection {
	dialect: 'sqlite' | 'postgres';
	/** Rows for a SELECT; anything for other statements. Parameters are `?` placeholders (converted for PostgreSQL). */
	query(sql: string, params: unknown[]): Promise<unknown>;
	/** n8n's table prefix (DB_TABLE_PREFIX); letters, digits and _ only. */
	tablePrefix?: string;
}

/** A statement slower than this fails (closed): the Agent asks a person instead of waiting on the database. */
export const STATEMENT_TIMEOUT_MS = 10_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new McpAgentError(`the grant store did not answer within ${ms / 1000} s`, { code: 'state' })), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Expired rows are kept this long (the grants page still lists them), then deleted. */
export const EXPIRED_KEPT_MS = 7 * 86_400_000;

export function grantTableName(prefix = ''): string {
	if (!/^[A-Za-z0-9_]{0,40}$/.test(prefix)) throw new McpAgentError(`the table prefix ${JSON.stringify(prefix)} is not usable in a table name`, { code: 'state' });
	return `${prefix}mcp_agent_grant`;
}

function numbered(sql: string, dialect: SqlConnection['dialect']): string {
	if (dialect === 'sqlite') return sql;
	let n = 0;
	return sql.replace(/\?/g, () => `$${++n}`);
}

/** bigint columns come back as strings from PostgreSQL. */
function toNumber(value: unknown): number | undefined {
	if (value === null || value === undefined) return undefined;
	const number = typeof value === 'string' ? Number(value) : value;
	return typeof number === 'number' && Number.isFinite(number) ? number : Number.NaN;
}

interface GrantRow {
	id: unknown;
	workflow_id: unknown;
	node_id: unknown;
	grant_json: unknown;
	expires_at: unknown;
	revoked_at: unknown;
	revoked_by: unknown;
	uses: unknown;
	last_used_at: unknown;
}

const COLUMNS = 'id, workflow_id, node_id, grant_json, expires_at, revoked_at, revoked_by, uses, last_used_at';

/**
 * A row as the grant it holds. The columns the queries filter on must agree with the JSON (a row
 * edited by hand that disagrees is unusable), and the revocation and usage columns are the truth.
 * Anything that does not line up yields an object that parseGrant refuses.
 */
export function rowToGrant(row: GrantRow): unknown {
	let stored: unknown;
	try {
		stored = typeof row.grant_json === 'string' ? JSON.parse(row.grant_json) : undefined;
	} catch {
		return undefined;
	}
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return undefined;
	const grant = stored as Record<string, unknown>;
	if (grant.id !== row.id || grant.workflowId !== row.workflow_id || grant.nodeId !== row.node_id || grant.expiresAt !== toNumber(row.expires_at)) return undefined;
	const revokedAt = toNumber(row.revoked_at);
	const uses = toNumber(row.uses);
	const lastUsedAt = toNumber(row.last_used_at);
	const { revokedAt: _r, revokedBy: _b, uses: _u, lastUsedAt: _l, ...rest } = grant;
	return {
		...rest,
		...(revokedAt !== undefined ? { revokedAt, ...(typeof row.revoked_by === 'string' ? { revokedBy: row.revoked_by } : {}) } : {}),
		...(uses !== undefined ? { uses } : {}),
		...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
	};
}

export function sqlGrantStore(connection: SqlConnection, timeoutMs = STATEMENT_TIMEOUT_MS): GrantStore {
	const table = grantTableName(connection.tablePrefix);
	const run = (sql: string, params: unknown[] = []) => withTimeout(Promise.resolve().then(() => connection.query(numbered(sql, connection.dialect), params)), timeoutMs);
	let ready: Promise<void> | undefined;
	const ensureTable = () => {
		ready ??= createTable().catch((error: unknown) => {
			ready = undefined;
			throw error;
		});
		return ready;
	};
	async function createTable(): Promise<void> {
		try {
			await run(
				`CREATE TABLE IF NOT EXISTS ${table} (id varchar(64) PRIMARY KEY, workflow_id varchar(64) NOT NULL, node_id varchar(64) NOT NULL, grant_json text NOT NULL, created_at bigint NOT NULL, expires_at bigint NOT NULL, revoked_at bigint, revoked_by text, uses integer NOT NULL DEFAULT 0, last_used_at bigint)`,
			);
			await run(`CREATE INDEX IF NOT EXISTS ${table}_scope ON ${table} (workflow_id, node_id)`);
		} catch (error) {
			// Two processes creating the table at once on PostgreSQL: one gets a unique violation. The table is there if this works.
			await run(`SELECT id FROM ${table} WHERE 1 = 0`).catch(() => {
				throw error;
			});
		}
	}
	const rows = (result: unknown): GrantRow[] => {
		if (!Array.isArray(result)) throw new McpAgentError('the database answered a SELECT with something other than rows', { code: 'state' });
		return result as GrantRow[];
	};
	return {
		async insert(grant: Grant) {
			await ensureTable();
			await run(`INSERT INTO ${table} (id, workflow_id, node_id, grant_json, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, [
				grant.id,
				grant.workflowId,
				grant.nodeId,
				JSON.stringify({ ...grant, revokedAt: undefined, revokedBy: undefined, uses: undefined, lastUsedAt: undefined }),
				grant.grantedAt,
				grant.expiresAt,
			]);
			// Housekeeping only: rows that expired a week ago.
			await run(`DELETE FROM ${table} WHERE expires_at < ?`, [grant.grantedAt - EXPIRED_KEPT_MS]).catch(() => undefined);
		},
		async revoke(scope: GrantScope, id: string, by: string, at: number) {
			await ensureTable();
			await run(`UPDATE ${table} SET revoked_at = ?, revoked_by = ? WHERE id = ? AND workflow_id = ? AND node_id = ? AND revoked_at IS NULL`, [at, by, id, scope.workflowId, scope.nodeId]);
			const found = rows(await run(`SELECT revoked_at FROM ${table} WHERE id = ? AND workflow_id = ? AND node_id = ?`, [id, scope.workflowId, scope.nodeId]));
			return found.length === 1 && toNumber(found[0].revoked_at) !== undefined;
		},
		async listActive(scope: GrantScope, now: number) {
			await ensureTable();
			return rows(await run(`SELECT ${COLUMNS} FROM ${table} WHERE workflow_id = ? AND node_id = ? AND revoked_at IS NULL AND expires_at > ?`, [scope.workflowId, scope.nodeId, now])).map(rowToGrant);
		},
		async listAll(scope: GrantScope | WorkflowScope) {
			await ensureTable();
			if (scope.nodeId === undefined) return rows(await run(`SELECT ${COLUMNS} FROM ${table} WHERE workflow_id = ? ORDER BY created_at DESC`, [scope.workflowId])).map(rowToGrant);
			return rows(await run(`SELECT ${COLUMNS} FROM ${table} WHERE workflow_id = ? AND node_id = ? ORDER BY created_at DESC`, [scope.workflowId, scope.nodeId])).map(rowToGrant);
		},
		async markUsed(id: string, at: number) {
			await ensureTable();
			await run(`UPDATE ${table} SET uses = uses + 1, last_used_at = ? WHERE id = ? AND revoked_at IS NULL`, [at, id]);
		},
	};
}
