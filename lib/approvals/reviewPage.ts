import type { ApprovalRequest, PendingCallView } from './approvalRequest';
import { showText } from './html';

/**
 * The built-in review page: plain server-rendered HTML with one form, working without JavaScript.
 * Every value from a server or the model is escaped (and invisible characters made visible).
 */
export interface ReviewPageOptions {
	errors?: string[];
	/** Values the reviewer already entered, to show again after an error. */
	previous?: Record<string, string>;
	/** The reviewer signs in with their n8n account instead of typing a name. */
	requireSignIn?: boolean;
}

/** A page with just a heading and a sentence (decision recorded, login required, nothing pending). */
export function renderMessagePage(title: string, text: string): string {
	return page(title, `<h1>${showText(title)}</h1><p>${showText(text)}</p>`);
}

export function fieldName(kind: 'decision' | 'reason' | 'args' | 'hash', approvalId: string, callId: string): string {
	return `${kind}__${approvalId}__${callId}`;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2937}
.call{border:1px solid #d1d5db;border-radius:8px;padding:1rem;margin:1rem 0}
pre{background:#f3f4f6;padding:.75rem;border-radius:6px;white-space:pre-wrap;word-break:break-word}
.warn{background:#fef3c7;border-left:4px solid #d97706;padding:.5rem .75rem;margin:.5rem 0}
.error{background:#fee2e2;border-left:4px solid #dc2626;padding:.5rem .75rem}
textarea{width:100%;font-family:monospace}label{display:block;margin:.25rem 0}
.meta{color:#6b7280;font-size:.9rem}button{font-size:1rem;padding:.5rem 1.25rem}`;

function page(title: string, body: string): string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${showText(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function renderCall(request: ApprovalRequest, call: PendingCallView, previous: Record<string, string>): string {
	const name = (kind: 'decision' | 'reason' | 'args' | 'hash') => fieldName(kind, request.approvalId, call.callId);
	const chosen = previous[name('decision')] ?? '';
	const radio = (value: string, label: string) =>
		`<label><input type="radio" name="${showText(name('decision'))}" value="${value}"${chosen === value ? ' checked' : ''} required> ${label}</label>`;
	const annotations = call.annotations
		? `<p class="meta">Annotations (${call.annotationsTrusted ? 'trusted' : 'NOT trusted: the server is not marked as trusted'}): ${showText(JSON.stringify(call.annotations))}</p>`
		: '<p class="meta">No annotations: treated as possibly destructive.</p>';
	return `<div class="call">
<h2>${showText(call.title ?? call.tool)} <span class="meta">tool <code>${showText(call.tool)}</code> on server <code>${showText(call.server)}</code></span></h2>
${call.warnings.map((w) => `<div class="warn">Warning: ${showText(w)}</div>`).join('\n')}
<p><strong>Description</strong></p><pre>${showText(call.description ?? '(none)')}</pre>
${annotations}
<p><strong>Arguments</strong></p><pre>${showText(JSON.stringify(call.arguments, null, 2))}</pre>
<p class="meta">Call ${showText(call.callId)} · definition ${showText(call.fingerprint.slice(0, 19))}…</p>
<input type="hidden" name="${showText(name('hash'))}" value="${showText(call.argsHash)}">
${radio('approve', 'Approve')}
${radio('deny', 'Deny')}
${radio('edit', 'Approve with edited arguments (below)')}
<label>Reason (sent to the model when denying)<input type="text" name="${showText(name('reason'))}" value="${showText(previous[name('reason')] ?? '')}" style="width:100%"></label>
<label>Edited arguments (JSON, used only with "edited arguments")<textarea name="${showText(name('args'))}" rows="6">${showText(previous[name('args')] ?? JSON.stringify(call.arguments, null, 2))}</textarea></label>
</div>`;
}

export function renderReviewPage(requests: ApprovalRequest[], options: ReviewPageOptions = {}): string {
	const previous = options.previous ?? {};
	const calls = requests.flatMap((request) => request.calls.map((call) => ({ request, call })));
	const context = requests
		.filter((r) => r.assistantText)
		.map((r) => `<p><strong>The model said:</strong></p><pre>${showText(r.assistantText)}</pre>`)
		.join('\n');
	const errors = options.errors?.length ? `<div class="error"><p>Nothing was decided:</p><ul>${options.errors.map((e) => `<li>${showText(e)}</li>`).join('')}</ul></div>` : '';
	const reviewer = options.requireSignIn
		? `<fieldset><legend>Sign in with your n8n account to decide</legend>
<label>E-mail<input type="email" name="email" value="${showText(previous.email ?? '')}" required autocomplete="username"></label>
<label>Password<input type="password" name="password" required autocomplete="current-password"></label>
<label>Two-factor code (if your account uses one)<input type="text" name="mfaCode" autocomplete="one-time-code"></label></fieldset>`
		: `<label>Your name<input type="text" name="reviewer" value="${showText(previous.reviewer ?? '')}" required></label>`;
	const expires = requests.map((r) => r.expiresAt).sort()[0];
	return page(
		'Review tool calls',
		`<h1>Review ${calls.length} tool call${calls.length === 1 ? '' : 's'}</h1>
<p class="meta">An AI agent in an n8n workflow wants to run the calls below. Nothing runs until you decide. ${expires ? `Unanswered calls are denied at ${showText(expires)}.` : ''}</p>
${errors}
${context}
<form method="post">
${calls.map(({ request, call }) => renderCall(request, call, previous)).join('\n')}
${reviewer}
<p><button type="submit">Submit decisions</button></p>
</form>`,
	);
}
