import { AttemptLimiter } from '../../lib/approvals/attemptLimiter';
import crypto from 'node:crypto';
import { checkReviewAccess, providedReviewToken } from '../../lib/approvals/reviewerAccess';
import { newReviewToken, providedTokenHash, reviewTokenMatches } from '../../lib/approvals/reviewToken';

describe('providedReviewToken', () => {
	it('reads the query first, then the form field of the same name, and only plain strings', () => {
		expect(providedReviewToken({ query: { reviewToken: 'q' }, body: { reviewToken: 'b' } })).toBe('q');
		expect(providedReviewToken({ query: {}, body: { reviewToken: 'b' } })).toBe('b');
		expect(providedReviewToken({ query: { reviewToken: ['a', 'b'] } })).toBeUndefined();
		expect(providedReviewToken({ query: { reviewToken: '' } })).toBeUndefined();
		expect(providedReviewToken({})).toBeUndefined();
	});
});

describe('AttemptLimiter', () => {
	it('blocks a key after the allowed failures until its window ends, and keeps keys apart', () => {
		const limiter = new AttemptLimiter({ maxFailures: 3, windowMs: 1000 });
		for (let i = 0; i < 3; i++) {
			expect(limiter.retryAfterMs('a', 100)).toBe(0);
			limiter.recordFailure('a', 100);
		}
		expect(limiter.retryAfterMs('a', 600)).toBe(500);
		expect(limiter.retryAfterMs('b', 600)).toBe(0);
		expect(limiter.retryAfterMs('a', 1100)).toBe(0);
		limiter.recordFailure('a', 1100);
		expect(limiter.retryAfterMs('a', 1100)).toBe(0);
	});

	it('remembers a bounded number of keys', () => {
		const limiter = new AttemptLimiter({ maxFailures: 1, windowMs: 1000, maxKeys: 2 });
		for (const key of ['a', 'b', 'c']) limiter.recordFailure(key, 0);
		expect(limiter.retryAfterMs('a', 1)).toBe(0);
		expect(limiter.retryAfterMs('c', 1)).toBe(999);
	});
});

describe('a provided review secret', () => {
	it('is checked only when it can be one: a megabyte-long "secret" is refused without being hashed once per pending approval', () => {
		const { token, hash } = newReviewToken();
		expect(reviewTokenMatches(token, hash)).toBe(true);
		expect(reviewTokenMatches(`${token}x`, hash)).toBe(false);
		expect(providedTokenHash('x'.repeat(4 * 1024 * 1024))).toBeUndefined();
		expect(providedTokenHash('not a token!')).toBeUndefined();
		const requests = Array.from({ length: 200 }, (_, i) => ({ approvalId: `ap${i}`, reviewTokenHash: hash, calls: [] })) as never;
		const hashing = jest.spyOn(crypto, 'createHash');
		try {
			expect(checkReviewAccess(requests, 'x'.repeat(4 * 1024 * 1024), new Date())).toMatchObject({ granted: false, status: 403 });
			expect(hashing).not.toHaveBeenCalled();
			checkReviewAccess(requests, token, new Date());
			expect(hashing).toHaveBeenCalledTimes(1);
		} finally {
			hashing.mockRestore();
		}
	});
});
