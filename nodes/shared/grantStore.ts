import type { GrantStore } from '../../lib/agent/grants';
import { sqlGrantStore, type SqlConnection } from '../../lib/approvals/grantStoreSql';

/**
 * The grant store in n8n's own database, through the TypeORM DataSource n8n registers in its DI
 * container at start-up (main, queue-mode workers and webhook processes alike). Both modules
 * resolve to n8n's own copies: n8n puts its module paths on NODE_PATH for community packages, and
 * this package declares neither as a dependency. Internal API, so every step is guarded: no
 * container, no registered or initialized DataSource, a database other than SQLite or PostgreSQL,
 * a statement error or a slow statement all make the store throw, which the Agent reads as "no
 * grant" (the call is asked) and the review page as "standing approvals are unavailable".
 */
interface DataSourceLike {
	isInitialized?: boolean;
	options?: { type?: unknown; entityPrefix?: unknown };
	query(sql: string, params?: unknown[]): Promise<unknown>;
}

function n8nDataSource(): DataSourceLike {
	const { Container } = require('@n8n/di') as { Container: { has(token: unknown): boolean; get(token: unknown): unknown } };
	const { DataSource } = require('@n8n/typeorm') as { DataSource: unknown };
	if (!Container.has(DataSource)) throw new Error("n8n's database connection is not registered in this process");
	return Container.get(DataSource) as DataSourceLike;
}

export function connectionOf(ds: DataSourceLike): SqlConnection {
	if (!ds || typeof ds.query !== 'function' || ds.isInitialized !== true) throw new Error("n8n's database connection is not initialized");
	const type = ds.options?.type;
	const dialect = type === 'postgres' ? 'postgres' : type === 'sqlite' || type === 'sqlite-pooled' || type === 'better-sqlite3' ? 'sqlite' : undefined;
	if (!dialect) throw new Error(`standing approvals need SQLite or PostgreSQL; this n8n uses ${String(type)}`);
	const prefix = typeof ds.options?.entityPrefix === 'string' ? ds.options.entityPrefix : '';
	return { dialect, tablePrefix: prefix, query: (sql, params) => ds.query(sql, params) };
}

const stores = new WeakMap<object, GrantStore>();

/** The store, resolved on every call (so a connection n8n replaces is followed); each method throws when it is unavailable. */
export function n8nGrantStore(resolve: () => DataSourceLike = n8nDataSource): GrantStore {
	const current = (): GrantStore => {
		const ds = resolve();
		let store = stores.get(ds);
		if (!store) {
			store = sqlGrantStore(connectionOf(ds));
			stores.set(ds, store);
		}
		return store;
	};
	return {
		insert: async (grant) => current().insert(grant),
		revoke: async (scope, id, by, at) => current().revoke(scope, id, by, at),
		listActive: async (scope, now) => current().listActive(scope, now),
		listAll: async (scope) => current().listAll(scope),
		markUsed: async (id, at) => current().markUsed(id, at),
	};
}
