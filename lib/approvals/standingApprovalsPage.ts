import type { Grant, GrantStore } from '../agent/grants';
import { grantActive } from '../agent/grants';
import { AttemptLimiter } from './attemptLimiter';
import {
	listGrants,
	renderGrantList,
	renderGrantNotice,
	renderGrantsUnreadable,
	revokeGrant,
	REVOKE_EFFECT,
	REVOKE_FIELD,
	type GrantListing,
	type GrantNotice,
} from './grantsSection';
import { showName, showText } from './html';
import { verifyN8nSignIn, type SignInOptions, type SignInResult, type WorkflowFacts } from './n8nSignIn';
import { page, renderMessagePage } from './reviewPage';
import { REVIEW_PAGE_HEADERS } from './reviewWebhook';

/**
 * The standing approvals page (MCP Standing Approvals' webhook), as a plain function of the
 * request: every standing approval of the workflow's MCP Agent nodes, active and recently revoked or
 * expired, with who granted it, when, until when, how often it was used and who revoked it, and a
 * Revoke button on each active one. It works while nothing waits for review.
 *
 * Its URL is a production webhook anyone may reach, so nothing about the workflow is shown before
 * a sign-in: a GET answers only the sign-in form. Every view and every revoke is a POST that signs
 * the person in with their n8n account (n8nSignIn.ts: this n8n's own login, then whether the account
 * may run or edit this workflow, optionally only listed e-mails). No session is kept between
 * requests, so a page cannot be driven by another site: a forged cross-site POST would need the
 * person's password (and browsers that say a POST is cross-site are refused before anything else).
 */
export interface StandingPageRequest {
	method: string;
	headers: Record<string, unknown>;
	body: unknown;
	workflowId: string | undefined;
	/** Lower-case e-mails; empty means any account that may run or edit the workflow. */
	allowedReviewers: string[];
	grantStore: GrantStore;
	now?: Date;
	signIn?: (credentials: Record<string, unknown>, options: SignInOptions) => Promise<SignInResult>;
	limiters?: StandingSignInLimiters;
}

export interface StandingPageResponse {
	status: number;
	headers: Record<string, string>;
	html: string;
}

export interface StandingSignInLimiters {
	/** Failed sign-ins per account on one workflow's page. */
	account: AttemptLimiter;
	/** Failed sign-ins on one workflow's page, whatever the account (e-mails can be made up). */
	page: AttemptLimiter;
}

export const STANDING_SIGN_IN_LIMITS = { account: { maxFailures: 5, windowMs: 15 * 60_000 }, page: { maxFailures: 20, windowMs: 15 * 60_000 } };

/** Shared by every standing approvals page of this process (in memory, as the review page's). */
export const standingSignInLimiters: StandingSignInLimiters = {
	account: new AttemptLimiter(STANDING_SIGN_IN_LIMITS.account),
	page: new AttemptLimiter(STANDING_SIGN_IN_LIMITS.page),
};

/** Revoked and expired grants shown per Agent node, newest first (the store keeps them a week after they expire). */
export const MAX_INACTIVE_SHOWN = 20;

export const STANDING_SIGN_IN_FAILED =
	'Sign-in failed: check the e-mail, the password and, if your account uses two-factor authentication, the code. Only accounts that may run or edit this workflow can see its standing approvals.';

const TITLE = 'Standing approvals';
const MAX_ID_CHARS = 100;
const MAX_EMAIL_CHARS = 320;

export async function handleStandingApprovalsPage(input: StandingPageRequest): Promise<StandingPageResponse> {
	const now = input.now ?? new Date();
	const answer = (status: number, html: string): StandingPageResponse => ({ status, headers: { ...REVIEW_PAGE_HEADERS }, html });
	const method = input.method.toUpperCase();
	if (method === 'GET') return answer(200, renderSignInPage());
	if (method !== 'POST') return answer(405, renderMessagePage('Not allowed', 'This page answers GET and POST only.', 'stop'));
	if (crossSite(input.headers)) {
		return answer(403, renderMessagePage('Refused', 'This form can only be sent from its own page. Open the standing approvals page and sign in there.', 'stop'));
	}
	if (!input.workflowId) return answer(503, renderMessagePage('Not available', 'The workflow of this page is not known; save the workflow and open the page again.', 'stop'));

	const body = input.body && typeof input.body === 'object' && !Array.isArray(input.body) ? (input.body as Record<string, unknown>) : {};
	const email = typeof body.email === 'string' ? body.email.trim().slice(0, MAX_EMAIL_CHARS) : '';
	const signInPage = (status: number, error: string) => answer(status, renderSignInPage({ email, error }));

	const limiters = input.limiters ?? standingSignInLimiters;
	const pageKey = `standing:${input.workflowId}`;
	const accountKey = `${pageKey}:${email.toLowerCase()}`;
	const at = now.getTime();
	const waitMs = Math.max(limiters.page.retryAfterMs(pageKey, at), limiters.account.retryAfterMs(accountKey, at));
	if (waitMs > 0) {
		const minutes = Math.ceil(waitMs / 60_000);
		return signInPage(429, `Too many failed sign-in attempts on this page. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
	}
	// Counted before the sign-in is tried and given back unless it is refused, so sign-ins sent all at once cannot all pass the check above.
	limiters.page.recordFailure(pageKey, at);
	limiters.account.recordFailure(accountKey, at);
	const signIn = await (input.signIn ?? verifyN8nSignIn)(
		{ email: body.email, password: body.password, mfaCode: body.mfaCode },
		{ workflowId: input.workflowId, allowedReviewers: input.allowedReviewers },
	);
	if (signIn.ok || signIn.kind !== 'rejected') {
		limiters.page.refund(pageKey, at);
		limiters.account.refund(accountKey, at);
	}
	if (!signIn.ok) {
		if (signIn.kind === 'rejected') return signInPage(401, STANDING_SIGN_IN_FAILED);
		return signInPage(signIn.kind === 'rateLimited' ? 429 : 503, signIn.error.replace('nothing was decided', 'nothing was shown or changed'));
	}

	const scope = { workflowId: input.workflowId };
	let listing = await listGrants(input.grantStore, scope);
	let notice: GrantNotice | undefined;
	let status = 200;
	const revoke = body[REVOKE_FIELD];
	if (revoke !== undefined) {
		const id = typeof revoke === 'string' ? revoke : '';
		const found = listing.ok ? listing.grants.find((grant) => grant.id === id) : undefined;
		if (!id || id.length > MAX_ID_CHARS) notice = { ok: false, text: 'The Revoke button sent no usable standing approval id; nothing was revoked.' };
		else if (!listing.ok) notice = { ok: false, text: `Standing approval ${id} could not be revoked: the standing approvals cannot be read (${listing.error}); try again.` };
		else if (!found) notice = { ok: false, text: `There is no standing approval ${id} in this workflow; nothing was revoked.` };
		else {
			notice = await revokeGrant(input.grantStore, { workflowId: input.workflowId, nodeId: found.nodeId }, id, signIn.reviewer, at);
			listing = await listGrants(input.grantStore, scope);
		}
		status = notice.ok ? 200 : listing.ok ? 409 : 503;
	} else if (!listing.ok) status = 503;
	return answer(status, renderStandingPage({ listing, workflow: signIn.workflow, reviewer: signIn.reviewer, email, notice, now }));
}

/** Browsers say where a request comes from (Fetch Metadata); a POST another site made is refused. Without the header (older browsers, scripts) the sign-in alone decides. */
function crossSite(headers: Record<string, unknown>): boolean {
	const site = headers['sec-fetch-site'];
	return site === 'cross-site' || site === 'same-site';
}

function signInFields(email: string, legend: string): string {
	return `<fieldset><legend>${legend}</legend>
<label>E-mail<input type="email" name="email" value="${showText(email)}" required autocomplete="username"></label>
<label>Password<input type="password" name="password" required autocomplete="current-password"></label>
<label>Two-factor code (if your account uses one)<input type="text" name="mfaCode" autocomplete="one-time-code" inputmode="numeric"></label></fieldset>`;
}

const errorBox = (error: string | undefined) => (error ? `<div class="error" role="alert"><p>${showText(error)}</p></div>` : '');

/** What anyone who has the URL sees: a sign-in form, and nothing about the workflow or its grants. */
export function renderSignInPage(options: { email?: string; error?: string } = {}): string {
	return page(
		TITLE,
		`<h1>${TITLE}</h1>
<p class="lead">Sign in with your account on this n8n to see the standing approvals of this workflow's MCP Agents and revoke them. Only accounts that may run or edit the workflow can.</p>
${errorBox(options.error)}
<form method="post"><div class="card">${signInFields(options.email ?? '', 'Sign in with your n8n account')}
<div class="buttons"><button type="submit" class="primary">Show standing approvals</button></div></div></form>`,
	);
}

interface AgentGroup {
	nodeId: string;
	name?: string;
	/** The node is not among the workflow's nodes as n8n showed them. */
	gone: boolean;
	grants: Grant[];
}

const AGENT_TYPE = /(^|\.)mcpAgent$/;

/** One group per MCP Agent node of the workflow (in the workflow's order), then nodes that hold grants but are not in the workflow any more. */
export function groupByAgent(grants: Grant[], workflow: WorkflowFacts | undefined): AgentGroup[] {
	const groups = new Map<string, AgentGroup>();
	for (const node of workflow?.nodes ?? []) if (AGENT_TYPE.test(node.type)) groups.set(node.id, { nodeId: node.id, name: node.name, gone: false, grants: [] });
	for (const grant of grants) {
		let group = groups.get(grant.nodeId);
		if (!group) {
			const node = workflow?.nodes.find((candidate) => candidate.id === grant.nodeId);
			group = { nodeId: grant.nodeId, ...(node ? { name: node.name } : {}), gone: workflow !== undefined && !node, grants: [] };
			groups.set(grant.nodeId, group);
		}
		group.grants.push(grant);
	}
	return [...groups.values()];
}

/** Active grants first (newest first), then revoked and expired ones by when they stopped, newest first, at most MAX_INACTIVE_SHOWN. */
function ordered(grants: Grant[], now: number): { shown: Grant[]; left: number } {
	const active = grants.filter((grant) => grantActive(grant, now)).sort((a, b) => b.grantedAt - a.grantedAt);
	const ended = (grant: Grant) => Math.min(grant.revokedAt ?? grant.expiresAt, grant.expiresAt);
	const inactive = grants.filter((grant) => !grantActive(grant, now)).sort((a, b) => ended(b) - ended(a));
	return { shown: [...active, ...inactive.slice(0, MAX_INACTIVE_SHOWN)], left: Math.max(0, inactive.length - MAX_INACTIVE_SHOWN) };
}

function renderGroup(group: AgentGroup, index: number, now: Date): string {
	const id = `agent-${index}`;
	const title = group.name !== undefined ? `Agent node “${showName(group.name)}”` : `Agent node <code>${showName(group.nodeId)}</code>`;
	const note = group.gone ? ` <span class="tag">not in this workflow any more</span>` : '';
	const { shown, left } = ordered(group.grants, now.getTime());
	const list = shown.length
		? `${renderGrantList(shown, now, { validate: true })}${left ? `<p class="meta">And ${left} older revoked or expired one${left === 1 ? '' : 's'}, not shown.</p>` : ''}`
		: '<p class="meta">None. A reviewer makes one on this Agent\'s review page (MCP Approval) by approving a call with "Also allow similar calls".</p>';
	return `<section class="card grants" aria-labelledby="${id}"><h2 id="${id}">${title}${note}</h2>${list}</section>`;
}

export function renderStandingPage(options: { listing: GrantListing; workflow?: WorkflowFacts; reviewer: string; email: string; notice?: GrantNotice; now: Date }): string {
	const { listing, workflow, now } = options;
	const facts = [
		...(workflow?.name !== undefined ? [['Workflow', showName(workflow.name)]] : []),
		['Signed in as', showName(options.reviewer)],
		['As of', `${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`],
	];
	const groups = listing.ok ? groupByAgent(listing.grants, workflow) : [];
	const body = !listing.ok
		? `<div class="card grants">${renderGrantsUnreadable(listing.error)}</div>`
		: groups.length
			? groups.map((group, i) => renderGroup(group, i + 1, now)).join('\n')
			: '<div class="card"><p class="meta">This workflow has no MCP Agent node and no standing approvals.</p></div>';
	return page(
		TITLE,
		`<h1>${TITLE}</h1>
<p class="lead">Calls that MCP Agents of this workflow run without asking, because a reviewer allowed similar calls. ${REVOKE_EFFECT} A revocation is final and records who made it.</p>
<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
${renderGrantNotice(options.notice)}
<form method="post">
<div class="card">${signInFields(options.email, 'Sign in again to revoke or refresh')}
<p class="meta">Nothing is kept between pages: every revoke and every refresh signs you in anew.</p>
<div class="buttons"><button type="submit" class="primary">Refresh</button></div></div>
${body}
</form>`,
	);
}
