import { MAX_TOOL_CALLS_PER_TURN } from '../agent/step';
import { hashArguments, hashReviewedCall } from '../agent/argumentHash';
import { inputRequestsOf, type ApprovalRequest, type PendingCallView } from './approvalRequest';
import { inputRequestsHash } from '../agent/callInput';
import { providedTokenHash, REVIEW_TOKEN_PARAM, reviewTokenHashMatches } from './reviewToken';

/**
 * What a visitor of the review URL may see and decide. Execution ids are sequential and n8n 1.x
 * does not sign the resume URL, so the page trusts only the per-approval secret in the link: a
 * request is visible only to someone holding its token. Visible requests are then checked before
 * anything is shown: the arguments must still hash to the value the decision will be bound to
 * (a node between the Agent and MCP Approval could have changed them), and the approval must not
 * have expired.
 */
// The Agent asks for at most this many calls per turn, so one approval always fits on a page.
export const MAX_CALLS_PER_PAGE = MAX_TOOL_CALLS_PER_TURN;

/**
 * The review secret the visitor presented: from the URL's query or, for a POST, from the form's
 * hidden field of the same name. The one place that knows where the token travels.
 */
export function providedReviewToken(request: { query?: unknown; body?: unknown }): string | undefined {
	for (const source of [request.query, request.body]) {
		const value = source && typeof source === 'object' ? (source as Record<string, unknown>)[REVIEW_TOKEN_PARAM] : undefined;
		if (typeof value === 'string' && value) return value;
	}
	return undefined;
}

export type ReviewAccess =
	| { granted: false; status: 401 | 403; title: string; message: string }
	| { granted: true; scope: ReviewScope };

export interface ReviewScope {
	/** Requests that can be decided on this page now. */
	open: ApprovalRequest[];
	expired: ApprovalRequest[];
	refused: Array<{ approvalId: string; reason: string }>;
	/** Requests left off because the page already holds MAX_CALLS_PER_PAGE calls; they stay pending. */
	hidden: ApprovalRequest[];
}

export function checkReviewAccess(requests: ApprovalRequest[], token: string | undefined, now: Date): ReviewAccess {
	// Fail closed on items from versions without a review secret: nobody can prove they were sent them.
	const secured = requests.filter((request) => typeof request.reviewTokenHash === 'string' && request.reviewTokenHash);
	if (secured.length === 0) {
		return {
			granted: false,
			status: 403,
			title: 'Review not available',
			message: 'This review was created by an older version of n8n-nodes-mcp-agent and has no review secret, so it cannot be decided here. Re-run the workflow to get a new review link.',
		};
	}
	if (!token) {
		return { granted: false, status: 401, title: 'Review link incomplete', message: 'This link lacks its review secret. Open the full review link from the message you were sent.' };
	}
	// Hashed once, whatever the number of pending approvals.
	const tokenHash = providedTokenHash(token);
	const mine = secured.filter((request) => reviewTokenHashMatches(tokenHash, request.reviewTokenHash));
	if (mine.length === 0) {
		return { granted: false, status: 403, title: 'Review link not valid', message: 'The review secret in this link is not valid. Open the full review link from the message you were sent.' };
	}
	return { granted: true, scope: scopeRequests(mine, now) };
}

function scopeRequests(requests: ApprovalRequest[], now: Date): ReviewScope {
	const scope: ReviewScope = { open: [], expired: [], refused: [], hidden: [] };
	let shownCalls = 0;
	for (const request of requests) {
		const problem = integrityProblem(request);
		if (problem) scope.refused.push({ approvalId: request.approvalId, reason: problem });
		else if (isExpired(request, now)) scope.expired.push(request);
		// All calls of an approval are decided together, so an approval is shown whole or not at all.
		else if (shownCalls + request.calls.length > MAX_CALLS_PER_PAGE) scope.hidden.push(request);
		else {
			scope.open.push(request);
			shownCalls += request.calls.length;
		}
	}
	return scope;
}

/** Fail closed: an expiry that cannot be read counts as passed. */
export function isExpired(request: Pick<ApprovalRequest, 'expiresAt'>, now: Date): boolean {
	const expiresAt = Date.parse(String(request.expiresAt));
	return Number.isNaN(expiresAt) || now.getTime() >= expiresAt;
}

/** Why a request cannot be shown as it is, or undefined when its calls are intact. */
export function integrityProblem(request: ApprovalRequest): string | undefined {
	if (!Array.isArray(request.calls) || request.calls.length === 0) return 'The request holds no calls in the expected form; re-run the workflow.';
	for (const [index, call] of request.calls.entries()) {
		const shaped = call && typeof call === 'object' && typeof call.callId === 'string' && typeof call.argsHash === 'string'
			&& typeof call.tool === 'string' && typeof call.server === 'string' && Array.isArray(call.warnings);
		if (!shaped) return `Call ${index + 1} of this request is not in the expected form; re-run the workflow.`;
		if (!boundAsShown(call)) {
			return `Call ${index + 1} is not shown as this review was opened for it (a node between the MCP Agent and MCP Approval changed its arguments, tool or description), so it is not shown and cannot be decided. Connect the Agent's "Needs Approval" output straight to MCP Approval and re-run.`;
		}
		// The server's input requests (a message, a link) are bound the same way: a node in between must not swap the link.
		if (call.input !== undefined && !inputIntact(call.input)) {
			return `The input requests of call ${index + 1} are not the ones the server sent (a node between the MCP Agent and MCP Approval changed them), so they are not shown and cannot be answered. Connect the Agent's "Needs Approval" output straight to MCP Approval and re-run.`;
		}
	}
	return undefined;
}

/**
 * The call's hash covers what the page shows: its arguments and its identity (tool, server,
 * description, annotations, warnings) for a call under review, its arguments alone for one that
 * waits only for input (and in items of earlier versions). A forged hash that matches a forged view
 * still fails where it counts: the run refuses a decision on any other hash than its own.
 */
function boundAsShown(call: PendingCallView): boolean {
	try {
		const shown = { server: call.server, tool: call.tool, title: call.title, description: call.description, annotations: call.annotations, annotationsTrusted: call.annotationsTrusted === true, fingerprint: call.fingerprint, warnings: call.warnings, source: call.source };
		return call.argsHash === hashReviewedCall(call.arguments, shown) || call.argsHash === hashArguments(call.arguments);
	} catch {
		return false;
	}
}

function inputIntact(input: unknown): boolean {
	const view = input as { inputHash?: unknown; requests?: unknown } | null;
	if (!view || typeof view !== 'object' || typeof view.inputHash !== 'string' || !Array.isArray(view.requests)) return false;
	const shaped = view.requests.every((item) => item && typeof item === 'object' && typeof item.key === 'string' && typeof item.method === 'string' && Array.isArray(item.warnings));
	if (!shaped) return false;
	try {
		return inputRequestsHash(inputRequestsOf(input as Parameters<typeof inputRequestsOf>[0])) === view.inputHash;
	} catch {
		return false;
	}
}
