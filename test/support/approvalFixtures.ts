import { hashArguments } from '../../lib/approvals/argumentHash';
import { APPROVAL_REQUEST_KIND, callCode, type ApprovalRequest, type PendingCallView } from '../../lib/approvals/approvalRequest';
import { hashReviewToken } from '../../lib/approvals/reviewToken';

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
		...(token === null ? {} : { reviewTokenHash: hashReviewToken(token) }),
		...extra,
	};
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
