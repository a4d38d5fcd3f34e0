import { hashArguments } from '../../lib/agent/argumentHash';
import { APPROVAL_REQUEST_KIND, callCode, type ApprovalRequest, type PendingCallView } from '../../lib/approvals/approvalRequest';
import { hashReviewToken } from '../../lib/approvals/reviewToken';
import { decisionKeyFor, withDecisionProof } from '../../lib/approvals/decisionProof';

/** Approval request items as the Agent emits them, for the review page and MCP Approval tests. */
export const TOKEN = 'tok-for-ap1-0123456789abcdefghij';

export function pendingCall(callId: string, args: unknown, extra: Partial<PendingCallView> = {}): PendingCallView {
	return {
		callId,
		argsHash: hashArguments(args),
		code: callCode(hashArguments(args)),
		server: 'fs',
		tool: 'delete_file',
		description: 'Deletes a file',
		annotationsTrusted: false,
		arguments: args,
		inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
		fingerprint: 'sha256:aaaaaaaaaaaaaaaaaaaaaaaa',
		warnings: [],
		...extra,
	};
}

export function approvalRequest(extra: Partial<ApprovalRequest> = {}, token: string | null = TOKEN): ApprovalRequest {
	return {
		kind: APPROVAL_REQUEST_KIND,
		approvalId: 'ap1',
		requestedAt: '2030-01-01T00:00:00.000Z',
		expiresAt: '2030-01-02T00:00:00.000Z',
		assistantText: 'I will clean up.',
		calls: [pendingCall('c2', { path: '/data/b' })],
		summaryText: '',
		summaryMarkdown: '',
		summaryTelegram: '',
		...(token === null ? {} : { reviewTokenHash: hashReviewToken(token) }),
		...extra,
	};
}

/**
 * A decision item as MCP Approval makes it after its checks: with the proof under the decision key
 * of the approval whose review secret is `token` (decisionProof.ts).
 */
export function signedDecision<T extends object>(item: T, token: string = TOKEN): T & { proof: string } {
	return withDecisionProof(item as never, decisionKeyFor(token)) as unknown as T & { proof: string };
}

/** Decodes the five HTML escapes the page uses. */
export function unescapeHtml(text: string): string {
	return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * What a browser would post for this page's form with the given choice per decision field: hidden
 * inputs and textareas as they are, the chosen radio value. Names are normalized as browsers do
 * (HTML form submission turns a lone LF or CR in a name into CRLF).
 */
export function submitForm(html: string, choose: (decisionField: string) => string, extra: Record<string, string> = {}): Record<string, string> {
	const browserName = (name: string) => unescapeHtml(name).replace(/\r\n|\r|\n/g, '\r\n');
	const body: Record<string, string> = {};
	for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) body[browserName(m[1])] = unescapeHtml(m[2]);
	for (const m of html.matchAll(/<textarea name="([^"]*)"[^>]*>([^<]*)<\/textarea>/g)) body[browserName(m[1])] = unescapeHtml(m[2]);
	const radios = new Set([...html.matchAll(/<input type="radio" name="([^"]*)"/g)].map((m) => m[1]));
	for (const name of radios) body[browserName(name)] = choose(unescapeHtml(name));
	return { ...body, ...extra };
}

/** A call waiting only for input the server asked for, as the Agent puts it on a Needs Approval item. */
export function inputCall(callId: string, args: unknown, requests: Record<string, { method: string; params?: Record<string, unknown> }>, round = 1): PendingCallView {
	const items = Object.keys(requests).map((key) => ({ key, method: requests[key].method, ...(requests[key].params ? { params: requests[key].params } : {}), warnings: [] as string[] }));
	return pendingCall(callId, args, { tool: 'book_trip', needsReview: false, input: { round, inputHash: hashArguments(requests), requests: items } });
}

/**
 * What a browser posts for a form (the first <form> of the page), as application/x-www-form-urlencoded
 * fields: hidden and text-like inputs with their value, checked radios and checkboxes, the selected
 * option of each select, textareas. `set` overrides or adds values by field name, as a person typing
 * or choosing would (a radio's value, a select's option value); `unset` unchecks boxes and radios.
 */
export function browserPost(html: string, set: Record<string, string> = {}, unset: string[] = []): Record<string, string> {
	const form = /<form[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1] ?? '';
	const body: Record<string, string> = {};
	const attr = (tag: string, name: string) => {
		const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
		return m ? unescapeHtml(m[1]) : undefined;
	};
	for (const m of form.matchAll(/<input\b[^>]*>/g)) {
		const tag = m[0];
		const name = attr(tag, 'name');
		if (name === undefined) continue;
		const type = attr(tag, 'type') ?? 'text';
		if (type === 'radio' || type === 'checkbox') {
			if (/\schecked\b/.test(tag)) body[name] = attr(tag, 'value') ?? 'on';
		} else if (type !== 'password' || set[name] !== undefined) body[name] = attr(tag, 'value') ?? '';
	}
	for (const m of form.matchAll(/<textarea\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) body[unescapeHtml(m[1])] = unescapeHtml(m[2]);
	for (const m of form.matchAll(/<select\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
		const selected = /<option value="([^"]*)" selected>/.exec(m[2]) ?? /<option value="([^"]*)"/.exec(m[2]);
		body[unescapeHtml(m[1])] = selected ? unescapeHtml(selected[1]) : '';
	}
	for (const name of unset) delete body[name];
	return { ...body, ...set };
}
