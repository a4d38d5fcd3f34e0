import { isApprovalRequest, type ApprovalDecisionItem, type ApprovalRequest } from './approvalRequest';
import { AttemptLimiter, reviewSignInLimiter } from './attemptLimiter';
import { verifyN8nSignIn, type SignInOptions, type SignInResult } from './n8nSignIn';
import { renderDecisionPage } from './decisionPage';
import { fieldName, renderMessagePage, renderReviewPage, type ReviewPageOptions } from './reviewPage';
import { checkReviewAccess, MAX_CALLS_PER_PAGE, providedReviewToken, type ReviewScope } from './reviewerAccess';
import { parseReviewSubmission, valuesToShowAgain } from './reviewSubmission';
import { mentionsInput } from './inputForm';
import type { RecentDecisions } from './recentDecisions';
import { decisionKeyFor, withDecisionProof } from './decisionProof';
import { choiceSummary, readGrantChoices } from './grantChoice';
import { grantScopeOf, listGrants, renderGrantsSection, revokeGrant, REVOKE_FIELD, type GrantListing } from './grantsSection';
import type { GrantStore } from '../agent/grants';
import { TASK_WAKE_FIELD, wakesOneOf } from './taskWait';

/**
 * Everything MCP Approval's webhook does, as a plain function of the request: who may see which
 * pending requests (review secret, argument integrity, expiry), rendering the page, signing the
 * reviewer in, and turning a valid POST into decision items. The node only passes n8n's request in
 * and writes the answer out. A GET never decides.
 */
export interface ReviewWebhookRequest {
	method: string;
	headers: Record<string, unknown>;
	query: unknown;
	body: unknown;
	/** The node's input items (the Agent's approval requests), as the node parameter delivers them. */
	pending: unknown;
	requireSignIn: boolean;
	/** Lower-case e-mails; empty means any account with access to the workflow. */
	allowedReviewers: string[];
	workflowId: string | undefined;
	now?: Date;
	signIn?: (credentials: Record<string, unknown>, options: SignInOptions) => Promise<SignInResult>;
	limiter?: AttemptLimiter;
	/** Approvals decided a moment ago in this process (recentDecisions.ts); MCP Approval passes the shared one. */
	recentDecisions?: RecentDecisions;
	/**
	 * Where standing approvals are kept. With it, the page offers "allow similar calls" on calls a
	 * person may approve, and a form post that chooses it makes the grant: the only place a grant
	 * is ever made. A JSON post never makes one.
	 */
	grantStore?: GrantStore;
}

export interface ReviewWebhookResponse {
	status: number;
	headers: Record<string, string>;
	/** Send this as JSON (an API client) rather than the HTML page. */
	asJson: boolean;
	html: string;
	json: unknown;
	/** Present only when the execution should resume with these decisions. */
	decisions?: ApprovalDecisionItem[];
	/**
	 * With decisions: the other approvals of this execution (other links, expired ones), passed on
	 * unchanged so the Agent hands them out again (or expires them) instead of losing them.
	 */
	undecided?: ApprovalRequest[];
	/** A task wake (lib/agent/taskWatch.ts): resume with every pending request unchanged, as the wait timer would. */
	wake?: ApprovalRequest[];
}

/** Larger submissions are refused whole; n8n's own body limit (16 MB by default) applies before this. */
export const MAX_SUBMISSION_BYTES = 4 * 1024 * 1024;

export const REVIEW_PAGE_HEADERS: Record<string, string> = {
	'Cache-Control': 'no-store',
	'X-Frame-Options': 'DENY',
	'X-Content-Type-Options': 'nosniff',
	// The review secret is in the URL: no page this one links to may learn it.
	'Referrer-Policy': 'no-referrer',
	'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

export async function handleReviewWebhook(input: ReviewWebhookRequest): Promise<ReviewWebhookResponse> {
	const now = input.now ?? new Date();
	const asJson = /json/i.test(String(input.headers['content-type'] ?? '')) || /json/i.test(String(input.headers.accept ?? ''));
	const answer = (status: number, html: string, json: unknown, decisions?: ApprovalDecisionItem[]): ReviewWebhookResponse => ({
		status, headers: { ...REVIEW_PAGE_HEADERS }, asJson, html, json, ...(decisions ? { decisions } : {}),
	});

	const requests = (Array.isArray(input.pending) ? input.pending : []).filter(isApprovalRequest);
	if (requests.length === 0) {
		return answer(404, renderMessagePage('Nothing to review', 'There are no pending tool calls here. They may have been decided already, or have expired.'), { error: 'nothing pending' });
	}

	const isPost = input.method.toUpperCase() === 'POST';
	const body = isPost && input.body && typeof input.body === 'object' ? (input.body as Record<string, unknown>) : {};
	if (isPost && Object.hasOwn(body, TASK_WAKE_FIELD)) {
		// Decides nothing: the Agent only checks its tasks sooner. A secret of none of these requests is refused (a wake for an earlier pause).
		if (!wakesOneOf(body[TASK_WAKE_FIELD], requests)) return answer(403, renderMessagePage('Not a wake for this wait', 'This execution waits for something else now.', 'stop'), { error: 'unknown task wake' });
		return { ...answer(200, renderMessagePage('Woken', 'The Agent checks its tasks now.'), { woken: true }), wake: requests };
	}
	const token = providedReviewToken({ query: input.query, body: isPost ? body : undefined });
	const access = checkReviewAccess(requests, token, now);
	if (!access.granted) return answer(access.status, renderMessagePage(access.title, access.message, 'stop'), { error: access.message });

	const { scope } = access;
	const grantScope = input.grantStore ? grantScopeOf(scope.open, input.workflowId) : undefined;
	// Read fresh for every page: the list, and whether the store answers at all (else no grant is offered).
	const listing: GrantListing | undefined = input.grantStore && grantScope ? await listGrants(input.grantStore, grantScope) : undefined;
	const pageOptions: ReviewPageOptions = {
		requireSignIn: input.requireSignIn,
		reviewToken: token,
		expired: scope.expired,
		refused: scope.refused,
		hidden: scope.hidden,
		now,
		...(input.grantStore && input.workflowId ? { grants: listing && !listing.ok ? `the store cannot be read (${listing.error})` : true } : {}),
		...(listing ? { grantsSection: renderGrantsSection(listing, now) } : {}),
	};
	const page = (status: number, errors: string[], previous: Record<string, string> = {}, inputErrors?: Record<string, string[]>, editErrors?: Record<string, string[]>) =>
		answer(status, renderReviewPage(scope.open, { ...pageOptions, errors, previous, ...(inputErrors ? { inputErrors } : {}), ...(editErrors ? { editErrors } : {}) }), { errors, ...scopeSummary(scope) });

	if (!isPost) return answer(200, renderReviewPage(scope.open, pageOptions), { pending: scope.open.map(withoutSecret), ...scopeSummary(scope) });

	const previous = valuesToShowAgain(body);
	if (jsonSize(body) > MAX_SUBMISSION_BYTES) {
		return page(413, [`The submission is larger than ${MAX_SUBMISSION_BYTES / 1024 / 1024} MB; nothing was decided.`], {});
	}
	const late = scope.expired.filter((request) => mentions(body, request));
	if (late.length) {
		return page(410, late.map((r) => `This review expired at ${r.expiresAt}; its calls are denied as expired and nothing was decided.`), previous);
	}
	if (scope.open.length === 0) return page(409, ['There is nothing that can be decided on this page.'], previous);
	if (Array.isArray(body.decisions) && body.decisions.length > MAX_CALLS_PER_PAGE) {
		return page(400, [`A submission may hold at most ${MAX_CALLS_PER_PAGE} decisions; it held ${body.decisions.length}.`], previous);
	}

	let reviewer: string | undefined;
	if (input.requireSignIn) {
		const limiter = input.limiter ?? reviewSignInLimiter;
		const keys = scope.open.map((request) => request.approvalId);
		const waitMs = Math.max(...keys.map((key) => limiter.retryAfterMs(key, now.getTime())));
		if (waitMs > 0) {
			const minutes = Math.ceil(waitMs / 60_000);
			return page(429, [`Too many failed sign-in attempts for this review. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`], previous);
		}
		// Counted as failed before the sign-in is even tried, and given back unless it is refused: sign-ins
		// sent all at once cannot each pass the check above while the earlier ones are still pending.
		for (const key of keys) limiter.recordFailure(key, now.getTime());
		const signIn = await (input.signIn ?? verifyN8nSignIn)(body, { workflowId: input.workflowId, allowedReviewers: input.allowedReviewers });
		if (signIn.ok || signIn.kind !== 'rejected') for (const key of keys) limiter.refund(key, now.getTime());
		if (!signIn.ok) {
			return page(signIn.kind === 'rejected' ? 401 : signIn.kind === 'rateLimited' ? 429 : 503, [signIn.error], previous);
		}
		reviewer = signIn.reviewer;
	}
	if (typeof body[REVOKE_FIELD] === 'string' && body[REVOKE_FIELD]) {
		// A Revoke button: nothing is decided; the grant is revoked by whoever passed the page's access rules.
		const id = body[REVOKE_FIELD] as string;
		const who = reviewer ?? (typeof body.reviewer === 'string' ? body.reviewer.trim().slice(0, 200) : '');
		if (!input.grantStore || !grantScope) return page(400, ['Standing approvals are not available on this page.'], previous);
		if (!who) return page(400, ['Enter your name to revoke a standing approval.'], previous);
		const notice = await revokeGrant(input.grantStore, grantScope, id, who, now.getTime());
		const relisted = await listGrants(input.grantStore, grantScope);
		return answer(notice.ok ? 200 : 409, renderReviewPage(scope.open, { ...pageOptions, previous, grantsSection: renderGrantsSection(relisted, now, notice) }), { revoked: notice.ok ? id : undefined, message: notice.text });
	}
	const result = parseReviewSubmission(body, scope.open, { now: now.toISOString(), reviewer });
	if (!result.ok) return page(400, result.errors, result.previous, result.inputErrors, result.editErrors);
	// A person's form post only: an API client's JSON names decisions, never standing approvals.
	const formPost = !asJson && !Array.isArray(body.decisions);
	const chosen = formPost && pageOptions.grants === true ? readGrantChoices(body, scope.open, result.decisions) : { choices: [], errors: [] };
	if (chosen.errors.length) return page(400, chosen.errors, previous);
	const count = result.decisions.reduce((n, d) => n + d.decisions.length, 0);
	const decided = new Set(result.decisions.map((decision) => decision.approvalId));
	if (input.recentDecisions && !input.recentDecisions.claim([...decided], now.getTime())) {
		return page(409, ['A decision for this review arrived a moment ago and is being applied; nothing was decided twice. Reload the page in a few seconds: calls that are still open can be decided again.'], previous);
	}
	const notes = allowSimilarCalls(result.decisions, chosen.choices);
	if (typeof pageOptions.grants === 'string' && Object.keys(body).some((name) => name.startsWith('grant__') && body[name])) {
		notes.push({ ok: false, text: `No standing approval was saved: ${pageOptions.grants}. Your decision applies to this call only.` });
	}
	// Signed only now, after every check: the Agent applies no decision item without this proof.
	const key = decisionKeyFor(token as string);
	return {
		...answer(
			200,
			renderDecisionPage(scope.open, result.decisions, notes),
			{ recorded: count },
			result.decisions.map((decision) => withDecisionProof(decision, key)),
		),
		undecided: requests.filter((request) => !decided.has(request.approvalId)),
	};
}

/**
 * Puts each "allow similar calls" a person chose into their approval's decision, which MCP Approval
 * signs next: the Agent makes the grant when it applies that decision, from its own state (its
 * workflow, its node, the run's tool and arguments), so the grant exists before the next call
 * whichever worker runs it, and nothing between MCP Approval and the Agent can change it.
 */
function allowSimilarCalls(decisions: ApprovalDecisionItem[], choices: ReturnType<typeof readGrantChoices>['choices']): Array<{ ok: boolean; text: string }> {
	const notes: Array<{ ok: boolean; text: string }> = [];
	for (const choice of choices) {
		const decision = decisions.find((item) => item.approvalId === choice.approvalId)?.decisions.find((d) => d.callId === choice.call.callId);
		if (decision?.decision !== 'approve') continue;
		decision.allowSimilar = { duration: choice.duration, constraint: choice.constraint };
		notes.push({ ok: true, text: `Similar calls allowed: ${choiceSummary(choice)}. The Agent saves this standing approval as it continues; its tool log says so.` });
	}
	return notes;
}

/** What the JSON variant says about requests of this link that cannot be decided. */
function scopeSummary(scope: ReviewScope): Record<string, unknown> {
	return {
		...(scope.expired.length ? { expired: scope.expired.map((r) => ({ approvalId: r.approvalId, expiresAt: r.expiresAt })) } : {}),
		...(scope.refused.length ? { refused: scope.refused } : {}),
		...(scope.hidden.length ? { hidden: scope.hidden.map((r) => ({ approvalId: r.approvalId, calls: r.calls.length })) } : {}),
	};
}

function withoutSecret(request: ApprovalRequest): Omit<ApprovalRequest, 'reviewTokenHash'> {
	const { reviewTokenHash: _hash, ...rest } = request;
	return rest;
}

/** Whether a submission holds a decision for any call of this request (form fields or JSON). */
function mentions(body: Record<string, unknown>, request: ApprovalRequest): boolean {
	if (Array.isArray(body.decisions) && body.decisions.some((d) => d && typeof d === 'object' && (d as { approvalId?: unknown }).approvalId === request.approvalId)) return true;
	return request.calls.some((call) => body[fieldName('decision', request.approvalId, call.callId)] !== undefined || mentionsInput(body, request.approvalId, call));
}

function jsonSize(body: Record<string, unknown>): number {
	try {
		return Buffer.byteLength(JSON.stringify(body) ?? '', 'utf8');
	} catch {
		return Number.POSITIVE_INFINITY;
	}
}
