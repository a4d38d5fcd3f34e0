import { createHash } from 'node:crypto';
import { callCode, type ApprovalRequest, type ContextToolResult, type PendingCallView } from './approvalRequest';
import { hiddenCharacterFlag, showName, showText } from './html';
import { renderCallInput } from './inputForm';
import { MAX_CALLS_PER_PAGE } from './reviewerAccess';
import { REVIEW_TOKEN_PARAM } from './reviewToken';

/**
 * The built-in review page: plain server-rendered HTML with one form, working without JavaScript.
 * Every value from a server or the model is escaped, invisible characters are made visible and
 * flagged. Before the calls, the reviewer sees what led to them: the user's request, the tool
 * results since then (where injected instructions usually come from) and what the model said.
 */
export interface ReviewPageOptions {
	errors?: string[];
	/** Values the reviewer already entered, to show again after an error. */
	previous?: Record<string, string>;
	/** The reviewer signs in with their n8n account instead of typing a name. */
	requireSignIn?: boolean;
	/** Sent back in a hidden field, so the POST carries it even if the form's URL does not. */
	reviewToken?: string;
	/** Requests of this link that can no longer be decided, shown as such. */
	expired?: ApprovalRequest[];
	refused?: Array<{ approvalId: string; reason: string }>;
	/** Requests left off for the page's call limit. */
	hidden?: ApprovalRequest[];
	/** Errors in the answers to input requests, shown next to each request (by its action field name). */
	inputErrors?: Record<string, string[]>;
}

export const MAX_REASON_CHARS = 2000;
const MAX_PREFILLED_ARGUMENT_CHARS = 16 * 1024;

/** A page with just a heading and a sentence (decision recorded, link not valid, nothing pending). */
export function renderMessagePage(title: string, text: string): string {
	return page(title, `<h1>${showText(title)}</h1><p>${showText(text)}</p>`);
}

/**
 * Form field names hold no raw ids: a call id comes from the model and may contain line breaks or
 * invisible characters that a browser would normalize, and the form could then never match again.
 * A short hash of the pair is stable, and the server maps it back through the pending calls.
 */
export function fieldName(kind: 'decision' | 'reason' | 'args' | 'hash' | 'inputHash', approvalId: string, callId: string): string {
	const key = createHash('sha256').update(JSON.stringify([approvalId, callId])).digest('hex').slice(0, 20);
	return `${kind}__${key}`;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2937}
.call,.context{border:1px solid #d1d5db;border-radius:8px;padding:1rem;margin:1rem 0}
.context{background:#f9fafb}
pre{background:#f3f4f6;padding:.75rem;border-radius:6px;white-space:pre-wrap;word-break:break-word;max-height:30rem;overflow:auto}
.warn{background:#fef3c7;border-left:4px solid #d97706;padding:.5rem .75rem;margin:.5rem 0}
.error{background:#fee2e2;border-left:4px solid #dc2626;padding:.5rem .75rem;margin:.5rem 0}
.notice{background:#dbeafe;border-left:4px solid #2563eb;padding:.5rem .75rem;margin:.5rem 0}
.hidden-flag{background:#fee2e2;color:#991b1b;font-size:.85rem;padding:0 .3rem;border-radius:4px;white-space:nowrap}
.tag{font-size:.8rem;padding:0 .4rem;border-radius:4px;background:#e5e7eb}.tag.bad{background:#fee2e2;color:#991b1b}
details{margin:.25rem 0}summary{cursor:pointer}
textarea{width:100%;font-family:monospace;box-sizing:border-box}input[type=text],input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.35rem;font-size:1rem}
fieldset{border:1px solid #d1d5db;border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
label{display:block;margin:.35rem 0}.choice{display:inline-block;margin-right:1.25rem}
.meta{color:#6b7280;font-size:.9rem}button{font-size:1rem;padding:.5rem 1.25rem}h3{margin:.75rem 0 .25rem}
.input-request{background:#f0fdf4;border-color:#86efac}.input-request legend{font-weight:600}
.input-message{font-size:1.05rem;white-space:pre-wrap;word-break:break-word}
.field{display:block;margin:.6rem 0}.field-label{font-weight:600}.field-description{display:block;color:#4b5563;font-size:.9rem}
.required{font-size:.75rem;padding:0 .35rem;border-radius:4px;background:#fee2e2;color:#991b1b}
input[type=url],input[type=number],input[type=date],input[type=datetime-local],select{width:100%;box-sizing:border-box;padding:.35rem;font-size:1rem}
.host{font-size:1.15rem;background:#fef3c7;padding:0 .3rem;border-radius:4px}a{word-break:break-all}
.input-actions{margin-top:.75rem;padding-top:.5rem;border-top:1px solid #bbf7d0}`;

function page(title: string, body: string): string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${showText(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** A multi-line value in a <pre>, flagged above it when it held invisible characters. */
function block(value: unknown): string {
	const text = String(value ?? '');
	return `${hiddenCharacterFlag(text)}<pre>${showText(text)}</pre>`;
}

/** A one-line value in <code>, with line breaks revealed and a flag when something was hidden. */
function name(value: unknown): string {
	return `<code>${showName(value)}</code>${hiddenCharacterFlag(value, { oneLine: true })}`;
}

function renderResult(result: ContextToolResult): string {
	const warnings = (Array.isArray(result.warnings) ? result.warnings : []).map((w) => `<div class="warn">Warning: ${showText(w)}</div>`).join('');
	const text = String(result.text ?? '');
	return `<div class="result"><p>${name(result.tool)} on server ${name(result.server)} ${result.isError ? '<span class="tag bad">error result</span>' : ''}</p>
${warnings}<details><summary>Result text (${text.length} characters)${hiddenCharacterFlag(text)}</summary><pre>${showText(text)}</pre></details></div>`;
}

/** What led to the calls, in the order it happened. */
function renderContext(request: ApprovalRequest): string {
	const parts: string[] = [];
	if (request.notice) parts.push(`<div class="notice">${showText(request.notice)}</div>`);
	if (request.userMessage) parts.push(`<h3>The user asked</h3>${block(request.userMessage)}`);
	const results = Array.isArray(request.recentResults) ? request.recentResults : [];
	if (results.length) {
		const omitted = typeof request.omittedResults === 'number' && request.omittedResults > 0
			? ` ${request.omittedResults} earlier result${request.omittedResults === 1 ? ' is' : 's are'} not shown.`
			: '';
		parts.push(`<h3>Tool results the model read since then (${results.length})</h3><p class="meta">Instructions hidden in tool results are a common way to make a model misbehave; check the flagged ones.${omitted}</p>${results.map(renderResult).join('\n')}`);
	}
	if (request.assistantText) parts.push(`<h3>The model said</h3>${block(request.assistantText)}`);
	return parts.length ? `<div class="context"><h2>What led to ${request.calls.length === 1 ? 'this call' : 'these calls'}</h2>${parts.join('\n')}</div>` : '';
}

function renderCall(request: ApprovalRequest, call: PendingCallView, previous: Record<string, string>, inputErrors: Record<string, string[]>): string {
	const field = (kind: 'decision' | 'reason' | 'args' | 'hash' | 'inputHash') => fieldName(kind, request.approvalId, call.callId);
	const chosen = previous[field('decision')] ?? '';
	const radio = (value: string, label: string) =>
		`<label class="choice"><input type="radio" name="${field('decision')}" value="${value}"${chosen === value ? ' checked' : ''} required> ${label}</label>`;
	const annotations = call.annotations
		? `<p class="meta">Annotations (${call.annotationsTrusted ? 'trusted' : 'NOT trusted: the server is not marked as trusted'}): ${showText(JSON.stringify(call.annotations))}</p>`
		: '<p class="meta">No annotations: treated as possibly destructive.</p>';
	const args = JSON.stringify(call.arguments, null, 2) ?? 'undefined';
	// Every textarea is posted with the form; large arguments are not copied into it, so the form stays small.
	const prefill = args.length <= MAX_PREFILLED_ARGUMENT_CHARS ? args : '';
	const editHint = prefill ? '' : `<p class="meta">The arguments are ${Math.ceil(args.length / 1024)} KB: copy them from above to edit them here.</p>`;
	// Items of earlier versions carry no needsReview: every call in them waits for review.
	const review = call.needsReview !== false
		? `<div>${radio('approve', 'Approve')}${radio('deny', 'Deny')}${radio('edit', 'Approve with edited arguments (below)')}</div>
<label>Reason (sent to the model when denying)<input type="text" name="${field('reason')}" maxlength="${MAX_REASON_CHARS}" value="${showText(previous[field('reason')] ?? '')}"></label>
<details${chosen === 'edit' ? ' open' : ''}><summary>Edit the arguments (JSON, used only with "edited arguments")</summary>${editHint}<textarea name="${field('args')}" rows="8">${showText(previous[field('args')] ?? prefill)}</textarea></details>`
		: '';
	const input = call.input
		? `<input type="hidden" name="${field('inputHash')}" value="${showText(call.input.inputHash)}">\n${renderCallInput(request.approvalId, call, { previous, errors: inputErrors })}`
		: '';
	return `<div class="call">
<h2>${showName(call.title ?? call.tool)}${hiddenCharacterFlag(call.title ?? call.tool, { oneLine: true })} <span class="meta">tool ${name(call.tool)} on server ${name(call.server)}</span></h2>
${call.warnings.map((w) => `<div class="warn">Warning: ${showText(w)}</div>`).join('\n')}
<p><strong>Description</strong></p>${block(call.description ?? '(none)')}
${annotations}
<p><strong>Arguments</strong></p>${block(args)}
<p class="meta">Code <strong><code>${showText(callCode(call.argsHash))}</code></strong> (the same code as in the message you were sent) · call ${name(call.callId)} · definition ${showText(String(call.fingerprint).slice(0, 19))}…</p>
<input type="hidden" name="${field('hash')}" value="${showText(call.argsHash)}">
${review}
${input}
</div>`;
}

function callList(requests: ApprovalRequest[]): string {
	return requests.flatMap((r) => r.calls.map((c) => `${name(c.tool)} on ${name(c.server)}`)).join(', ');
}

/** Requests of this link that cannot be decided here, each with the reason. */
function renderUndecidable(options: ReviewPageOptions): string {
	const parts: string[] = [];
	for (const request of options.expired ?? []) {
		parts.push(`<div class="error">This review expired at ${showText(request.expiresAt)}: its calls (${callList([request])}) are denied as expired and can no longer be decided.</div>`);
	}
	for (const refused of options.refused ?? []) parts.push(`<div class="error">Refused: ${showText(refused.reason)}</div>`);
	const hidden = options.hidden ?? [];
	if (hidden.length) {
		const count = hidden.reduce((n, r) => n + r.calls.length, 0);
		parts.push(`<div class="error">${count} more call${count === 1 ? '' : 's'} (in ${hidden.length} approval${hidden.length === 1 ? '' : 's'}) are not shown: one page holds at most ${MAX_CALLS_PER_PAGE} calls. They cannot be decided on this page and stay pending until they expire (they are not approved, and nothing is denied for you).</div>`);
	}
	return parts.join('\n');
}

export function renderReviewPage(requests: ApprovalRequest[], options: ReviewPageOptions = {}): string {
	const previous = options.previous ?? {};
	const count = requests.reduce((n, r) => n + r.calls.length, 0);
	const errors = options.errors?.length ? `<div class="error"><p>Nothing was decided:</p><ul>${options.errors.map((e) => `<li>${showText(e)}</li>`).join('')}</ul></div>` : '';
	const reviewer = options.requireSignIn
		? `<fieldset><legend>Sign in with your n8n account to decide</legend>
<label>E-mail<input type="email" name="email" value="${showText(previous.email ?? '')}" required autocomplete="username"></label>
<label>Password<input type="password" name="password" required autocomplete="current-password"></label>
<label>Two-factor code (if your account uses one)<input type="text" name="mfaCode" autocomplete="one-time-code" inputmode="numeric"></label></fieldset>`
		: `<label>Your name<input type="text" name="reviewer" value="${showText(previous.reviewer ?? '')}" required></label>`;
	const token = options.reviewToken ? `<input type="hidden" name="${REVIEW_TOKEN_PARAM}" value="${showText(options.reviewToken)}">` : '';
	const expires = requests.map((r) => r.expiresAt).sort()[0];
	const form = count
		? `<form method="post">
${token}
${requests.map((request) => `${renderContext(request)}\n${request.calls.map((call) => renderCall(request, call, previous, options.inputErrors ?? {})).join('\n')}`).join('\n')}
${reviewer}
<p><button type="submit">Submit decisions</button></p>
</form>`
		: '';
	const asking = requests.reduce((n, r) => n + r.calls.filter((c) => c.input).length, 0);
	const inputNote = asking ? ` ${asking === 1 ? 'One call waits' : `${asking} calls wait`} for input a tool server asked for: answer it in the call's green box.` : '';
	return page(
		'Review tool calls',
		`<h1>${count ? `Review ${count} tool call${count === 1 ? '' : 's'}` : 'Nothing to decide on this page'}</h1>
${count ? `<p class="meta">An AI agent in an n8n workflow wants to run the calls below. Nothing runs until you decide.${inputNote} ${expires ? `Unanswered calls are denied at ${showText(expires)}.` : ''}</p>` : ''}
${errors}
${renderUndecidable(options)}
${form}`,
	);
}
