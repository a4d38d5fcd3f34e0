import { DECISION_CLAIM_WINDOW_MS, RecentDecisions } from '../../lib/approvals/recentDecisions';

describe('RecentDecisions', () => {
	it('refuses a second claim inside the window and allows it after (an approval handed out again)', () => {
		const claims = new RecentDecisions();
		expect(claims.claim(['a'], 1_000)).toBe(true);
		expect(claims.claim(['a'], 1_000 + DECISION_CLAIM_WINDOW_MS - 1)).toBe(false);
		expect(claims.claim(['a'], 1_000 + DECISION_CLAIM_WINDOW_MS)).toBe(true);
	});

	it('claims all approvals of a submission or none', () => {
		const claims = new RecentDecisions();
		expect(claims.claim(['b'], 0)).toBe(true);
		expect(claims.claim(['a', 'b'], 10)).toBe(false);
		// 'a' was not recorded by the refused claim.
		expect(claims.claim(['a'], 20)).toBe(true);
	});

	it('forgets old claims as time passes, whatever their number', () => {
		const claims = new RecentDecisions(100);
		for (let i = 0; i < 1_000; i++) expect(claims.claim([`id${i}`], i)).toBe(true);
		expect(claims.claim(['id999'], 1_050)).toBe(false);
		expect(claims.claim(['id0'], 1_050)).toBe(true);
		expect((claims as unknown as { claimedAt: Map<string, number> }).claimedAt.size).toBeLessThan(200);
	});
});
