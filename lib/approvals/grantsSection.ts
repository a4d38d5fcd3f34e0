import { describeConstraint, grantActive, parseGrant, type Grant, type GrantScope, type GrantStore, type WorkflowScope } from '../agent/grants';
import type { ApprovalRequest } from './approvalRequest';
import { showName, showText } from './html';

/**
 * The standing approvals of the Agent node whose calls a review page shows: listed (who granted
 * each, when, until when, how often it was used, whether it is revoked) and revocable, on the review
 * page itself, so behind exactly its access rules (the approval's secret, and n8n sign-in when the
 * node requires it). Revoking is a POST (the form's Revoke button), never a GET.
 */
export const REVOKE_FIELD = 'revokeGrant';

/** The workflow and Agent node the page's requests come from (the first request that names its node). */
export function grantScopeOf(requests: ApprovalRequest[], workflowId: string | undefined): GrantScope | undefined {
	const nodeId = requests.find((request) => request.origin?.nodeId)?.origin?.nodeId;
	return workflowId && nodeId ? { workflowId, nodeId } : undefined;
}

export type GrantListing = { ok: true; grants: Grant[] } | { ok: false; error: string };

export async function listGrants(store: GrantStore, scope: GrantScope | WorkflowScope): Promise<GrantListing> {
	try {
		const rows = await store.listAll(scope);
		if (!Array.isArray(rows)) return { ok: false, error: 'the store did not answer with a list' };
		return { ok: true, grants: rows.map(parseGrant).filter((grant): grant is Grant => grant !== undefined) };
	} catch (error) {
		return { ok: false, error: (error as Error).message };
	}
}

const time = (ms: number | undefined) => (ms === undefined ? '—' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`);

export interface GrantNotice {
	ok: boolean;
	text: string;
}

export function renderGrantNotice(notice: GrantNotice | undefined): string {
	return notice ? `<p class="${notice.ok ? 'grant-made' : 'error'}" role="status">${showText(notice.text)}</p>` : '';
}

/** Why no grant applies while the store cannot be read; the same words on every page that lists grants. */
export function renderGrantsUnreadable(error: string): string {
	return `<p class="error">Standing approvals cannot be read (${showText(error)}): none applies until they can; calls are asked.</p>`;
}

/**
 * The grants as a list: tool, server, what is allowed, who granted it and when, uses, status
 * (active until, expired, revoked by whom and when), and a Revoke button (a submit button of the
 * form around it, never a link) on each active one. The review page and the standing approvals
 * page both list grants with this. validate: the browser checks the form's required fields (the
 * sign-in) before a Revoke is sent; the review page leaves its decision fields unchecked for it.
 */
export function renderGrantList(grants: Grant[], now: Date, options: { validate?: boolean } = {}): string {
	const rows = grants
		.map((grant) => {
			const active = grantActive(grant, now.getTime());
			const status = grant.revokedAt !== undefined ? `Revoked${grant.revokedBy ? ` by ${showName(grant.revokedBy)}` : ''} at ${time(grant.revokedAt)}` : active ? `Active until ${time(grant.expiresAt)}` : `Expired at ${time(grant.expiresAt)}`;
			const button = active ? `<button type="submit" name="${REVOKE_FIELD}" value="${showText(grant.id)}" class="revoke"${options.validate ? '' : ' formnovalidate'}>Revoke</button>` : '';
			return `<li class="grant-row${active ? '' : ' inactive'}"><p><strong>${showName(grant.tool)}</strong> <span class="meta">on ${showName(grant.server)}</span> with ${showText(describeConstraint(grant.constraint))}</p>
<p class="meta">Granted by ${showName(grant.grantedBy)} at ${time(grant.grantedAt)} · used ${grant.uses ?? 0} time${grant.uses === 1 ? '' : 's'}${grant.lastUsedAt ? `, last at ${time(grant.lastUsedAt)}` : ''} · ${status} · <code>${showText(grant.id)}</code></p>${button}</li>`;
		})
		.join('\n');
	return `<ul class="summary-list">${rows}</ul>`;
}

export const REVOKE_EFFECT = 'Revoking takes effect before the next call it would cover, on every n8n process; a call already let through still runs.';

export function renderGrantsSection(listing: GrantListing | undefined, now: Date, notice?: GrantNotice): string {
	if (!listing) return '';
	const head = `<section class="card grants" aria-labelledby="grants-heading"><h2 id="grants-heading">Standing approvals of this Agent</h2>
${renderGrantNotice(notice)}`;
	if (!listing.ok) return `${head}${renderGrantsUnreadable(listing.error)}</section>`;
	if (listing.grants.length === 0) return `${head}<p class="meta">None. Approve a call above and choose "Also allow similar calls" to make one.</p></section>`;
	return `${head}<p class="meta">${REVOKE_EFFECT}</p>${renderGrantList(listing.grants, now)}</section>`;
}

/** Revokes one grant of the scope, recording who; what happened, in the words the pages show. */
export async function revokeGrant(store: GrantStore, scope: GrantScope, id: string, who: string, now: number): Promise<GrantNotice> {
	try {
		return (await store.revoke(scope, id, who, now))
			? { ok: true, text: `Standing approval ${id} is revoked: calls it covered are asked again.` }
			: { ok: false, text: `There is no standing approval ${id} of this Agent.` };
	} catch (error) {
		return { ok: false, text: `Standing approval ${id} could not be revoked (${(error as Error).message}); try again.` };
	}
}
