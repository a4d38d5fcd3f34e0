import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { decisionKeyFor } from './decisionProof';

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

/**
 * What a review secret looks like (newReviewToken: 32 base64url characters; some room either way).
 * Anything else is refused before it is hashed: a body may carry megabytes where the secret goes,
 * and it would be hashed once per pending approval.
 */
const REVIEW_TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

/** Constant-time: the comparison takes as long whether the first or the last character differs. */
export function reviewTokenMatches(provided: unknown, expectedHash: string | undefined): boolean {
	return reviewTokenHashMatches(providedTokenHash(provided), expectedHash);
}

/** The hash of a provided secret, or undefined when it cannot be one (see REVIEW_TOKEN_SHAPE). */
export function providedTokenHash(provided: unknown): string | undefined {
	return typeof provided === 'string' && REVIEW_TOKEN_SHAPE.test(provided) ? hashReviewToken(provided) : undefined;
}

/** A provided secret's hash (providedTokenHash) against a stored one, in constant time. */
export function reviewTokenHashMatches(providedHash: string | undefined, expectedHash: string | undefined): boolean {
	if (!providedHash || typeof expectedHash !== 'string' || !/^[0-9a-f]{64}$/.test(expectedHash)) return false;
	return timingSafeEqual(Buffer.from(providedHash, 'hex'), Buffer.from(expectedHash, 'hex'));
}

/**
 * The review URL for one approval: the execution's resume URL with the approval's secret added as
 * the query parameter `REVIEW_TOKEN_PARAM`. Every review URL is built here (and read back only by
 * `reviewTokenInUrl`), so how the secret travels can change in one place. The resume URL is kept
 * byte for byte (n8n signs it on 2.x); the parameter goes before any fragment.
 */
export function withReviewToken(resumeUrl: string, token: string): string {
	const hashAt = resumeUrl.indexOf('#');
	const base = hashAt === -1 ? resumeUrl : resumeUrl.slice(0, hashAt);
	const fragment = hashAt === -1 ? '' : resumeUrl.slice(hashAt);
	const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
	return `${base}${separator}${REVIEW_TOKEN_PARAM}=${encodeURIComponent(token)}${fragment}`;
}

/** The secret a review URL built by `withReviewToken` carries (the last one, if several), or undefined. */
export function reviewTokenInUrl(reviewUrl: unknown): string | undefined {
	if (typeof reviewUrl !== 'string') return undefined;
	const query = reviewUrl.split('#')[0].split('?').slice(1).join('?');
	let found: string | undefined;
	for (const pair of query.split('&')) {
		const at = pair.indexOf('=');
		if (at === -1 || pair.slice(0, at) !== REVIEW_TOKEN_PARAM) continue;
		try {
			found = decodeURIComponent(pair.slice(at + 1));
		} catch {
			found = undefined;
		}
	}
	return found;
}

/** A review link as the Agent hands it out: the URL (holding the secret), its hash, and the decision key. */
export interface ReviewLink {
	reviewUrl?: string;
	reviewTokenHash: string;
	/** decisionProof.ts: kept with the paused run only, never in an item. */
	decisionKey: string;
}

/**
 * The review link of a request handed out (again). A link handed out before is kept when it is
 * exactly this execution's resume URL with the secret whose hash the paused run holds, so a link a
 * person already received keeps working; otherwise a new secret is made (the old link then stops
 * working). The secret itself is returned only inside the URL.
 */
export function reviewLink(resumeUrl: string | undefined, previous?: { reviewUrl?: string; reviewTokenHash?: string }): ReviewLink {
	const oldToken = reviewTokenInUrl(previous?.reviewUrl);
	if (resumeUrl && oldToken && reviewTokenMatches(oldToken, previous?.reviewTokenHash) && previous?.reviewUrl === withReviewToken(resumeUrl, oldToken)) {
		return { reviewUrl: previous.reviewUrl, reviewTokenHash: previous.reviewTokenHash as string, decisionKey: decisionKeyFor(oldToken) };
	}
	const { token, hash } = newReviewToken();
	return { ...(resumeUrl ? { reviewUrl: withReviewToken(resumeUrl, token) } : {}), reviewTokenHash: hash, decisionKey: decisionKeyFor(token) };
}
