import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A per-approval secret carried in the review URL. n8n 1.x does not sign `$execution.resumeUrl`
 * and execution ids are sequential, so the URL alone would be guessable; with this secret only
 * people who were sent the link can read or decide the review. The request item stores only its
 * hash, and the check runs in constant time.
 */
export const REVIEW_TOKEN_PARAM = 'reviewToken';

export function newReviewToken(): { token: string; hash: string } {
	const token = randomBytes(24).toString('base64url');
	return { token, hash: hashReviewToken(token) };
}

export function hashReviewToken(token: string): string {
	return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time: the comparison takes as long whether the first or the last character differs. */
export function reviewTokenMatches(provided: unknown, expectedHash: string | undefined): boolean {
	if (typeof provided !== 'string' || !provided || typeof expectedHash !== 'string' || !/^[0-9a-f]{64}$/.test(expectedHash)) return false;
	const actual = Buffer.from(hashReviewToken(provided), 'hex');
	return timingSafeEqual(actual, Buffer.from(expectedHash, 'hex'));
}
