/** The n8n adapter of the grant store fails closed when n8n's database is not there as expected. */
import { connectionOf, n8nGrantStore } from '../../nodes/shared/grantStore';
import { readGrants } from '../../lib/agent/grants';

const SCOPE = { workflowId: 'w', nodeId: 'n' };

test('outside n8n (no registered DataSource) the store throws, and reading it gives no grant', async () => {
	await expect(readGrants(n8nGrantStore(), SCOPE, Date.now())).resolves.toMatchObject({ ok: false });
});

test('an uninitialized connection, another database or a hostile prefix is refused', async () => {
	const query = async () => [];
	expect(() => connectionOf({ isInitialized: false, options: { type: 'postgres' }, query })).toThrow(/not initialized/);
	expect(() => connectionOf({ isInitialized: true, options: { type: 'mysql' }, query })).toThrow(/SQLite or PostgreSQL/);
	expect(connectionOf({ isInitialized: true, options: { type: 'sqlite-pooled' }, query }).dialect).toBe('sqlite');
	const hostile = n8nGrantStore(() => ({ isInitialized: true, options: { type: 'postgres', entityPrefix: 'x; DROP TABLE y; --' }, query }));
	await expect(readGrants(hostile, SCOPE, Date.now())).resolves.toMatchObject({ ok: false, error: expect.stringMatching(/prefix/) });
});

test('PostgreSQL statements get numbered placeholders', async () => {
	const seen: string[] = [];
	const store = n8nGrantStore(() => ({ isInitialized: true, options: { type: 'postgres', entityPrefix: 'px_' }, query: async (sql: string) => (seen.push(sql), []) }));
	await store.listActive(SCOPE, 1);
	expect(seen.at(-1)).toMatch(/FROM px_mcp_agent_grant WHERE workflow_id = \$1 AND node_id = \$2 AND revoked_at IS NULL AND expires_at > \$3$/);
});
