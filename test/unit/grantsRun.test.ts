/**
 * Standing approvals in the Agent's loop (runAgent): the driver reads the grants fresh before the
 * run stops for a person; a covered call runs without review and its use is counted; a revoked
 * grant or a store that cannot be read stops nothing from being asked, and nothing runs then.
 */
import { PAYMENT_TOOLS, paymentModel, paymentRun, ranAll } from '../support/paymentsRun';
import { nextEffect } from '../../lib/agent/step';
import { grantToolKey, runAgent } from '../../lib/agent/runAgent';
import { hashArguments } from '../../lib/agent/argumentHash';
import { makeGrant, type Grant, type GrantStore } from '../../lib/agent/grants';
import type { PlannedCall } from '../../lib/agent/types';

const TOOLS = PAYMENT_TOOLS;
const SCOPE = { workflowId: 'wf', nodeId: 'agent' };
const NOW = Date.parse('2026-06-01T12:00:00Z');

const model = paymentModel;

const run = paymentRun;

function grantFor(args: Record<string, unknown>, fields?: boolean): Grant {
	const made = makeGrant({
		...SCOPE,
		approvalId: 'ap0',
		callId: 'c0',
		server: 'payments',
		tool: 'send_money',
		fingerprint: TOOLS[0].fingerprint,
		arguments: args,
		constraint: fields ? { kind: 'fields', fields: [{ path: ['to'], equals: args.to }, { path: ['amount'], atMost: args.amount as number }] } : { kind: 'exact', argumentsHash: hashArguments(args) },
		duration: '1d',
		grantedBy: 'ana@example.com',
		now: NOW - 1000,
	});
	if (made instanceof Error) throw made;
	return made;
}

function memoryStore(grants: Grant[]): GrantStore & { used: string[]; reads: number } {
	const store = {
		used: [] as string[],
		reads: 0,
		insert: async (grant: Grant) => void grants.push(grant),
		revoke: async (_scope: unknown, id: string, by: string, at: number) => {
			const found = grants.find((g) => g.id === id);
			if (found && found.revokedAt === undefined) Object.assign(found, { revokedAt: at, revokedBy: by });
			return Boolean(found);
		},
		listActive: async () => {
			store.reads += 1;
			return grants.map((g) => ({ ...g }));
		},
		listAll: async () => grants,
		markUsed: async (id: string) => void store.used.push(id),
	};
	return store;
}

const ran = ranAll;

test('a covered call runs without a person; the use is counted and the tool log names the grant', async () => {
	const grant = grantFor({ amount: 20, to: 'bob' }, true);
	const store = memoryStore([grant]);
	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const final = await runAgent(run(), { model: model([{ amount: 15, to: 'bob' }]), runTools, grants: { store, scope: SCOPE, now: () => NOW } });
	expect(nextEffect(final)).toEqual({ type: 'finish', status: 'completed' });
	expect(runTools).toHaveBeenCalledTimes(1);
	expect(store.used).toEqual([grant.id]);
	expect(final.toolLog[0]).toMatchObject({ tool: 'send_money', allowedBy: { grant: grant.id, grantedBy: 'ana@example.com' } });
});

test('a call outside the grant, and a revoked grant: the run stops for a person and nothing runs', async () => {
	const grant = grantFor({ amount: 20, to: 'bob' }, true);
	const store = memoryStore([grant]);
	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const outside = await runAgent(run(), { model: model([{ amount: 25, to: 'bob' }]), runTools, grants: { store, scope: SCOPE, now: () => NOW } });
	expect(nextEffect(outside).type).toBe('request_approval');
	await store.revoke(SCOPE, grant.id, 'ops', NOW - 1);
	const revoked = await runAgent(run(), { model: model([{ amount: 15, to: 'bob' }]), runTools, grants: { store, scope: SCOPE, now: () => NOW } });
	expect(nextEffect(revoked).type).toBe('request_approval');
	expect(runTools).not.toHaveBeenCalled();
	expect(store.used).toEqual([]);
});

test('the grants are read fresh at every stop: a revocation between two turns stops the second call', async () => {
	const grant = grantFor({ amount: 20, to: 'bob' }, true);
	const store = memoryStore([grant]);
	const runTools = jest.fn(async (calls: PlannedCall[]) => {
		// Revoked (on another process, say) while the first call runs.
		await store.revoke(SCOPE, grant.id, 'ops', NOW);
		return ran(calls);
	});
	const final = await runAgent(run(), { model: model([{ amount: 15, to: 'bob' }], [{ amount: 16, to: 'bob' }]), runTools, grants: { store, scope: SCOPE, now: () => NOW + 1 } });
	expect(runTools).toHaveBeenCalledTimes(1);
	expect(store.reads).toBe(2);
	const effect = nextEffect(final);
	expect(effect.type).toBe('request_approval');
	expect(effect.type === 'request_approval' && effect.calls.map((c) => c.arguments)).toEqual([{ amount: 16, to: 'bob' }]);
});

test('a store that cannot be read: the call is asked, never run, and the driver hears why', async () => {
	const failing: GrantStore = { ...memoryStore([]), listActive: async () => Promise.reject(new Error('database is locked')) };
	const onUnavailable = jest.fn();
	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const final = await runAgent(run(), { model: model([{ amount: 1, to: 'bob' }]), runTools, grants: { store: failing, scope: SCOPE, now: () => NOW, onUnavailable } });
	expect(nextEffect(final).type).toBe('request_approval');
	expect(runTools).not.toHaveBeenCalled();
	expect(onUnavailable).toHaveBeenCalledWith('database is locked');
});

test('a lost usage count changes nothing about what runs', async () => {
	const grant = grantFor({ amount: 5, to: 'bob' });
	const store = { ...memoryStore([grant]), markUsed: async () => Promise.reject(new Error('write failed')) };
	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const final = await runAgent(run(), { model: model([{ amount: 5, to: 'bob' }]), runTools, grants: { store, scope: SCOPE, now: () => NOW } });
	expect(runTools).toHaveBeenCalledTimes(1);
	expect(nextEffect(final).type).toBe('finish');
});

test('grants of another Agent node or workflow cover nothing', async () => {
	const grant = { ...grantFor({ amount: 5, to: 'bob' }), nodeId: 'other-agent' };
	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const final = await runAgent(run(), { model: model([{ amount: 5, to: 'bob' }]), runTools, grants: { store: memoryStore([grant]), scope: SCOPE, now: () => NOW } });
	expect(nextEffect(final).type).toBe('request_approval');
	expect(runTools).not.toHaveBeenCalled();
});

describe('the definition a grant covers is checked against a listing made when the grant would apply', () => {
	const listed = (fingerprint: string) => jest.fn(async () => new Map([[grantToolKey('payments', 'send_money'), fingerprint]]));

	test('unchanged: the covered call runs; the servers were listed once', async () => {
		const grant = grantFor({ amount: 20, to: 'bob' }, true);
		const currentFingerprints = listed(TOOLS[0].fingerprint);
		const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
		const final = await runAgent(run(), { model: model([{ amount: 15, to: 'bob' }]), runTools, grants: { store: memoryStore([grant]), scope: SCOPE, now: () => NOW, currentFingerprints } });
		expect(nextEffect(final).type).toBe('finish');
		expect(runTools).toHaveBeenCalledTimes(1);
		expect(currentFingerprints).toHaveBeenCalledTimes(1);
	});

	test('changed since the run listed it (a rug pull inside a kept connection\'s cached listing): no grant applies, the call is asked, nothing runs, no use is counted', async () => {
		const grant = grantFor({ amount: 20, to: 'bob' }, true);
		const store = memoryStore([grant]);
		const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
		const final = await runAgent(run(), { model: model([{ amount: 15, to: 'bob' }]), runTools, grants: { store, scope: SCOPE, now: () => NOW, currentFingerprints: listed(`sha256:${'0'.repeat(64)}`) } });
		expect(nextEffect(final).type).toBe('request_approval');
		expect(runTools).not.toHaveBeenCalled();
		expect(store.used).toEqual([]);
	});

	test('the tool is gone, or the listing fails: asked, and the driver hears why', async () => {
		const grant = grantFor({ amount: 20, to: 'bob' }, true);
		const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
		const gone = await runAgent(run(), { model: model([{ amount: 15, to: 'bob' }]), runTools, grants: { store: memoryStore([grant]), scope: SCOPE, now: () => NOW, currentFingerprints: async () => new Map() } });
		expect(nextEffect(gone).type).toBe('request_approval');
		const onUnavailable = jest.fn();
		const failed = await runAgent(run(), {
			model: model([{ amount: 15, to: 'bob' }]),
			runTools,
			grants: { store: memoryStore([grant]), scope: SCOPE, now: () => NOW, onUnavailable, currentFingerprints: async () => Promise.reject(new Error('connection closed')) },
		});
		expect(nextEffect(failed).type).toBe('request_approval');
		expect(onUnavailable).toHaveBeenCalledWith(expect.stringContaining('connection closed'));
		expect(runTools).not.toHaveBeenCalled();
	});

	test('not listed again when no grant covers the call', async () => {
		const grant = grantFor({ amount: 20, to: 'bob' }, true);
		const currentFingerprints = listed(TOOLS[0].fingerprint);
		const final = await runAgent(run(), { model: model([{ amount: 25, to: 'bob' }]), runTools: jest.fn(), grants: { store: memoryStore([grant]), scope: SCOPE, now: () => NOW, currentFingerprints } });
		expect(nextEffect(final).type).toBe('request_approval');
		expect(currentFingerprints).not.toHaveBeenCalled();
	});
});
