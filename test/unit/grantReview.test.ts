/**
 * Standing approvals on the review page (issue 28.3): the choice is offered on calls a person may
 * approve; a person's form post puts it (exact arguments, or conditions picked from the call) into
 * the signed decision, and the Agent stores the grant (test/unit/grantFromDecision.test.ts);
 * nothing else ever carries one: not a JSON post, not a channel answer, not an item's data.
 */
import fs from 'node:fs';
import path from 'node:path';
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import { grantFieldName } from '../../lib/approvals/grantChoice';
import { fieldName } from '../../lib/approvals/reviewPage';
import { constraintHolds, makeGrant, type Grant, type GrantConstraint, type GrantStore } from '../../lib/agent/grants';
import { hashArguments } from '../../lib/agent/argumentHash';
import { approvalRequest, browserPost, pendingCall, TOKEN } from '../support/approvalFixtures';
import type { ApprovalRequest } from '../../lib/approvals/approvalRequest';

const NOW = new Date('2030-01-01T01:00:00Z');
const ARGS = { amount: 15, to: 'bob', memo: 'rent' };
const call = pendingCall('c1', ARGS, { server: 'payments', tool: 'send_money', grantable: true, inputSchema: { type: 'object' } });
const request = (extra: Partial<ApprovalRequest> = {}) => approvalRequest({ calls: [call], origin: { workflow: 'Pay', node: 'MCP Agent', nodeId: 'agent-node' }, ...extra });

function store(): GrantStore & { inserted: Grant[] } {
	const inserted: Grant[] = [];
	return { inserted, insert: async (g) => void inserted.push(g), revoke: async () => true, listActive: async () => [], listAll: async () => inserted, markUsed: async () => undefined };
}

const hook = (grantStore: GrantStore | undefined, method: string, body: unknown, pending: unknown = [request()], headers: Record<string, unknown> = {}) =>
	handleReviewWebhook({ method, headers, query: { reviewToken: TOKEN }, body, pending, requireSignIn: false, allowedReviewers: [], workflowId: 'wf-1', now: NOW, grantStore });

const f = (kind: 'grant' | 'grantScope' | 'grantSame' | 'grantMax', index?: number) => grantFieldName(kind, 'ap1', 'c1', index);
const decision = fieldName('decision', 'ap1', 'c1');

test('the page offers the choice: durations, exact arguments, a field\'s value, a number\'s maximum', async () => {
	const page = await hook(store(), 'GET', undefined);
	expect(page.html).toContain('Also allow similar calls without asking?');
	for (const label of ['No, only this call', 'For 1 hour', 'For 1 day', 'For 30 days', 'exactly these arguments', '<code>to</code> is &quot;bob&quot;', '<code>amount</code> at most 15']) expect(page.html).toContain(label);
});

test('not offered without a store, on calls that are not grantable, or when the store cannot be read (and the page says so)', async () => {
	expect((await hook(undefined, 'GET', undefined)).html).not.toContain('<legend>Also allow similar calls');
	expect((await hook(store(), 'GET', undefined, [request({ calls: [{ ...call, grantable: undefined }] })])).html).not.toContain('<legend>Also allow similar calls');
	const broken = { ...store(), listActive: async () => Promise.reject(new Error('no such table')), listAll: async () => Promise.reject(new Error('no such table')) };
	const page = await hook(broken, 'GET', undefined);
	expect(page.html).not.toContain('<legend>Also allow similar calls');
	expect(page.html).toContain('Standing approvals are unavailable here: the store cannot be read (no such table)');
});

/** The "allow similar calls" a decision item carries for call c1, if any. */
const chosen = (answer: { decisions?: unknown[] }) => (answer.decisions?.[0] as { decisions: Array<{ allowSimilar?: { duration: string; constraint: GrantConstraint } }> } | undefined)?.decisions[0]?.allowSimilar;

test('approve + 1 day + exactly these arguments: the choice goes into the decision; the page stores nothing', async () => {
	const s = store();
	const page = await hook(s, 'GET', undefined);
	const answer = await hook(s, 'POST', browserPost(page.html, { [decision]: 'approve', [f('grant')]: '1d', reviewer: 'Ana' }));
	expect(answer.status).toBe(200);
	expect(answer.decisions).toHaveLength(1);
	expect(chosen(answer)).toEqual({ duration: '1d', constraint: { kind: 'exact', argumentsHash: hashArguments(ARGS) } });
	expect(s.inserted).toEqual([]);
	expect(answer.html).toContain('Similar calls allowed: send_money on payments with exactly the same arguments, for 1 day');
});

test('conditions picked from the call: the same recipient, at most this amount', async () => {
	const s = store();
	const page = await hook(s, 'GET', undefined);
	// fieldCandidates order: amount (0), to (1), memo (2)
	const answer = await hook(s, 'POST', browserPost(page.html, { [decision]: 'approve', [f('grant')]: '1h', [f('grantScope')]: 'fields', [f('grantSame', 1)]: '1', [f('grantMax', 0)]: '1', reviewer: 'Ana' }));
	const constraint = chosen(answer)!.constraint;
	expect(constraint).toEqual({ kind: 'fields', fields: [{ path: ['amount'], atMost: 15, atLeast: 0 }, { path: ['to'], equals: 'bob' }] });
	expect(constraintHolds(constraint, { amount: 3, to: 'bob', memo: 'other' })).toBe(true);
	expect(constraintHolds(constraint, { amount: 16, to: 'bob' })).toBe(false);
});

test('a choice without Approve, without a condition, or with an unknown duration is refused whole; nothing is decided or stored', async () => {
	const s = store();
	const page = await hook(s, 'GET', undefined);
	for (const set of [
		{ [decision]: 'deny', [f('grant')]: '1d' },
		{ [decision]: 'approve', [f('grant')]: '1d', [f('grantScope')]: 'fields' },
		{ [decision]: 'approve', [f('grant')]: '365d' },
	]) {
		const answer = await hook(s, 'POST', browserPost(page.html, { ...set, reviewer: 'Ana' }));
		expect(answer.status).toBe(400);
		expect(answer.decisions).toBeUndefined();
	}
	expect(s.inserted).toEqual([]);
});

describe('nothing but a person\'s form post on the review page makes a grant', () => {
	test('a JSON (API) post with grant fields decides, but carries no choice', async () => {
		const s = store();
		const allowSimilar = { duration: '30d', constraint: { kind: 'exact', argumentsHash: hashArguments(ARGS) } };
		const body = { reviewToken: TOKEN, reviewer: 'bot', decisions: [{ approvalId: 'ap1', callId: 'c1', argsHash: call.argsHash, decision: 'approve', allowSimilar }], [f('grant')]: '30d', grant: { duration: '30d' } };
		const answer = await hook(s, 'POST', body, [request()], { 'content-type': 'application/json' });
		expect(answer.decisions).toHaveLength(1);
		expect(chosen(answer)).toBeUndefined();
		expect(s.inserted).toEqual([]);
	});

	test('an item that claims a grant (extra fields on the request or its call) makes none by itself', async () => {
		const s = store();
		const forged = request({ calls: [{ ...call, grant: { duration: '30d', constraint: { kind: 'fields', fields: [] } } } as never], grant: '30d' } as never);
		const page = await hook(s, 'GET', undefined, [forged]);
		const answer = await hook(s, 'POST', browserPost(page.html, { [decision]: 'approve', reviewer: 'Ana' }), [forged]);
		expect(answer.decisions).toHaveLength(1);
		expect(chosen(answer)).toBeUndefined();
		expect(s.inserted).toEqual([]);
	});

	test('a call the item marks grantable without an Agent node id gets no choice', async () => {
		const s = store();
		const noNode = request({ origin: { workflow: 'Pay' } });
		const page = await hook(s, 'GET', undefined, [noNode]);
		expect(page.html).not.toContain('<legend>Also allow similar calls');
		const answer = await hook(s, 'POST', { ...browserPost(page.html, { [decision]: 'approve', reviewer: 'Ana' }), [f('grant')]: '1h' }, [noNode]);
		expect(answer.decisions).toBeUndefined();
		expect(s.inserted).toEqual([]);
	});

	test('in the source: only runAgent.ts stores a grant, and only the form path of the review page writes a choice into a decision', () => {
		const root = path.join(__dirname, '..', '..');
		const files: string[] = [];
		const walk = (dir: string) => {
			for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
				const full = path.join(dir, entry.name);
				if (entry.isDirectory()) walk(full);
				else if (full.endsWith('.ts')) files.push(full);
			}
		};
		for (const dir of ['lib', 'nodes', 'credentials']) walk(path.join(root, dir));
		const matching = (pattern: RegExp) => files.filter((file) => pattern.test(fs.readFileSync(file, 'utf8'))).map((file) => path.relative(root, file)).sort();
		// The store's n8n adapter defines insert (forwarding it); only runAgent.ts calls it, from the run's own state.
		expect(matching(/\.insert\(/)).toEqual(['lib/agent/runAgent.ts', 'nodes/shared/grantStore.ts']);
		expect(fs.readFileSync(path.join(root, 'nodes/shared/grantStore.ts'), 'utf8')).toMatch(/insert: async \(grant\) => current\(\)\.insert\(grant\)/);
		// A choice is written into a decision in one place: the review page's form path (after formPost).
		expect(matching(/\.allowSimilar = /)).toEqual(['lib/approvals/reviewWebhook.ts']);
		const webhook = fs.readFileSync(path.join(root, 'lib/approvals/reviewWebhook.ts'), 'utf8');
		expect(webhook).toMatch(/const formPost = !asJson && !Array\.isArray\(body\.decisions\);\n\tconst chosen = formPost && /);
		// Channel answers and API posts build their decisions field by field and never name a choice.
		for (const file of ['lib/approvals/channelBinding.ts', 'lib/approvals/channelAnswerRoute.ts', 'lib/approvals/channelDecision.ts', 'lib/approvals/reviewSubmission.ts']) {
			expect({ file, mentions: /allowSimilar|makeGrant|\.insert\(/.test(fs.readFileSync(path.join(root, file), 'utf8')) }).toEqual({ file, mentions: false });
		}
	});
});

describe('the Agent\'s standing approvals on the review page', () => {
	function listedStore(grants: Grant[]): GrantStore & { revoked: string[] } {
		const revoked: string[] = [];
		return {
			revoked,
			insert: async () => undefined,
			revoke: async (_scope, id, by, at) => {
				const grant = grants.find((g) => g.id === id);
				if (!grant) return false;
				grant.revokedAt ??= at;
				grant.revokedBy ??= by;
				revoked.push(id);
				return true;
			},
			listActive: async () => grants.filter((g) => g.revokedAt === undefined),
			listAll: async () => grants,
			markUsed: async () => undefined,
		};
	}

	async function made(): Promise<Grant> {
		const grant = makeGrant({ workflowId: 'wf-1', nodeId: 'agent-node', approvalId: 'ap1', callId: 'c1', server: 'payments', tool: 'send_money', fingerprint: call.fingerprint, arguments: ARGS, constraint: { kind: 'exact', argumentsHash: hashArguments(ARGS) }, duration: '30d', grantedBy: 'Ana', now: NOW.getTime() });
		if (grant instanceof Error) throw grant;
		return { ...grant, uses: 3 };
	}

	test('lists who granted what, when, until when and how often it was used, with a Revoke button (POST only)', async () => {
		const grant = await made();
		const page = await hook(listedStore([grant]), 'GET', undefined);
		expect(page.html).toContain('Standing approvals of this Agent');
		expect(page.html).toContain('Granted by Ana at 2030-01-01 01:00 UTC · used 3 times');
		expect(page.html).toContain(`<button type="submit" name="revokeGrant" value="${grant.id}" class="revoke" formnovalidate>Revoke</button>`);
	});

	test('Revoke revokes (recording who), decides nothing, and the list shows it revoked', async () => {
		const grant = await made();
		const s = listedStore([grant]);
		const page = await hook(s, 'GET', undefined);
		const answer = await hook(s, 'POST', { ...browserPost(page.html, { reviewer: 'Ops' }), revokeGrant: grant.id });
		expect(answer.status).toBe(200);
		expect(answer.decisions).toBeUndefined();
		expect(s.revoked).toEqual([grant.id]);
		expect(answer.html).toContain('Revoked by Ops at 2030-01-01 01:00 UTC');
		expect(answer.html).not.toContain(`value="${grant.id}" class="revoke"`);
	});

	test('a GET never revokes; a revoke without a name or for an unknown id changes nothing', async () => {
		const grant = await made();
		const s = listedStore([grant]);
		await handleReviewWebhook({ method: 'GET', headers: {}, query: { reviewToken: TOKEN, revokeGrant: grant.id }, body: { revokeGrant: grant.id }, pending: [request()], requireSignIn: false, allowedReviewers: [], workflowId: 'wf-1', now: NOW, grantStore: s });
		expect((await hook(s, 'POST', { reviewToken: TOKEN, revokeGrant: grant.id })).status).toBe(400);
		expect((await hook(s, 'POST', { reviewToken: TOKEN, reviewer: 'Ops', revokeGrant: 'grant_nope' })).status).toBe(409);
		expect(s.revoked).toEqual([]);
	});

	test('without the review secret there is no list and no revoking', async () => {
		const grant = await made();
		const s = listedStore([grant]);
		const answer = await handleReviewWebhook({ method: 'POST', headers: {}, query: {}, body: { reviewer: 'x', revokeGrant: grant.id }, pending: [request()], requireSignIn: false, allowedReviewers: [], workflowId: 'wf-1', now: NOW, grantStore: s });
		expect(answer.status).toBeGreaterThanOrEqual(400);
		expect(answer.html).not.toContain('Standing approvals of this Agent');
		expect(s.revoked).toEqual([]);
	});
});
