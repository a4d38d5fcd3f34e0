/**
 * The recipes in docs/human-review.md ("Policies") are real: each JSON block is read as the node
 * reads Approval Rules (JSON) and judged on the calls the text says it handles.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readApprovalRules } from '../../lib/agent/approvalRulesInput';
import { judgeCall } from '../../lib/agent/approvalRules';
import type { ApprovalPolicy } from '../../lib/agent/policy';

const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'human-review.md'), 'utf8');
const recipes = doc.slice(doc.indexOf('### Recipes'), doc.indexOf('## Wiring'));
const blocks = [...recipes.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);

function effects(json: string, server: string, tool: string, calls: unknown[]): string[] {
	const policy: ApprovalPolicy = { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [], rules: readApprovalRules(undefined, json) };
	return calls.map((args) => judgeCall(policy, { serverName: server, mcpName: tool, annotationsTrusted: false }, args).effect);
}

test('the recipes section has its three JSON blocks and one inline rule', () => {
	expect(blocks).toHaveLength(3);
	expect(recipes).toMatch(/`(\{ "label": "Never drop".*\})`/);
});

test('payments under a limit run, large ones ask, unknown recipients are refused', () => {
	const known = 'DE89370400440532013000';
	expect(
		effects(blocks[0], 'Payments', 'send_money', [
			{ amount: 20, currency: 'EUR', to: known },
			{ amount: 21, currency: 'EUR', to: known },
			{ amount: 5000, currency: 'EUR', to: known },
			{ amount: 5, currency: 'EUR', to: 'GB33BUKB20201555555555' },
		]),
	).toEqual(['run', 'ask', 'ask', 'refuse']);
});

test('writes inside one folder run, others ask', () => {
	expect(effects(blocks[1], 'Files', 'write_file', [{ path: '/data/reports/q3.csv' }, { path: '/data/reports/../secrets' }, { path: '/etc/passwd' }])).toEqual(['run', 'ask', 'ask']);
});

test('queries without DELETE or UPDATE run', () => {
	expect(effects(blocks[2], 'DB', 'run_query', [{ sql: 'SELECT * FROM t' }, { sql: ' select 1' }, { sql: 'SELECT 1; DELETE FROM t' }, { sql: 'UPDATE t SET a = 1' }])).toEqual(['run', 'run', 'ask', 'ask']);
});

test('a tool that is always refused', () => {
	const inline = /`(\{ "label": "Never drop".*\})`/.exec(recipes)![1];
	expect(effects(`[${inline}]`, 'DB', 'drop_table', [{ table: 'users' }])).toEqual(['refuse']);
});
