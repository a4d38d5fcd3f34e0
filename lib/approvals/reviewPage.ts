import { createHash } from 'node:crypto';
import { callCode, offeredDecisions, type ApprovalRequest, type ContextToolResult, type PendingCallView } from './approvalRequest';
import { renderArgumentsView } from './argumentsView';
import { editFieldName, renderEditFields } from './editForm';
import { escapeHtml, hiddenCharacterFlag, showName, showText } from './html';
import { visibleJson } from './summaryFormat';
import { renderCallInput } from './inputForm';
import { REVIEW_STYLE } from './reviewStyle';
import { riskBadges, riskLevel } from './riskBadges';
import { MAX_CALLS_PER_PAGE } from './reviewerAccess';
import { REVIEW_TOKEN_PARAM } from './reviewToken';
import { renderGrantChoice } from './grantChoice';

/**
 * The built-in review page: plain server-rendered HTML with one form, working without JavaScript
 * (the page's Content-Security-Policy allows no script at all). Every value from a server or the
 * model is escaped, invisible characters are made visible and flagged. First the context (where the
 * run comes from, the user's request, the tool results since then, where injected instructions
 * usually come from, and what the model said), then one card per call with its risk badges and
 * readable arguments, and large Approve / Deny / Edit buttons. Edit opens a form generated from the
 * tool's input schema (editForm.ts). "Approve all" and "Deny all" are submit buttons that decide
 * every call the reviewer did not set (see reviewSubmission.ts).
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
	/** Problems in edited arguments, shown next to each edit field (by field name). */
	editErrors?: Record<string, string[]>;
	/** For "expires in …"; defaults to the current time. */
	now?: Date;
	/** Standing approvals can be made here (true), or why not (absent: not offered). */
	grants?: boolean | string;
	/** The Agent's standing approvals, listed with Revoke buttons (grantsSection.ts), at the end of the form. */
	grantsSection?: string;
}

export const MAX_REASON_CHARS = 2000;
const MAX_PREFILLED_ARGUMENT_CHARS = 16 * 1024;

/** A page with just a heading and a sentence (link not valid, nothing pending, expired). */
export function renderMessagePage(title: string, text: string, kind: 'done' | 'stop' | 'info' = 'info'): string {
	const icon = { done: '✓', stop: '⚠', info: 'ℹ' }[kind];
	return page(title, `<div class="card"><div class="status-icon" aria-hidden="true">${icon}</div><h1>${showText(title)}</h1><p>${showText(text)}</p></div>`);
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

export function page(title: string, body: string): string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${showText(title)}</title><style>${REVIEW_STYLE}</style></head><body><main>${body}</main></body></html>`;
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
		const flagged = results.filter((r) => Array.isArray(r.warnings) && r.warnings.length > 0).length;
		const flaggedNote = flagged ? ` <span class="badge high">${flagged} flagged</span>` : '';
		parts.push(`<h3>Tool results the model read since then (${results.length})${flaggedNote}</h3><p class="meta">Instructions hidden in tool results are a common way to make a model misbehave; check the flagged ones.${omitted}</p>${results.map(renderResult).join('\n')}`);
	}
	if (request.assistantText) parts.push(`<h3>The model said</h3>${block(request.assistantText)}`);
	return parts.length ? `<section class="card context"><h2>What led to ${request.calls.length === 1 ? 'this call' : 'these calls'}</h2>${parts.join('\n')}</section>` : '';
}

const MAX_PREFILLED_JSON_NOTE = (size: number) => `<p class="meta">The arguments are ${Math.ceil(size / 1024)} KB: copy them from the full JSON above to edit them here.</p>`;

/** The Edit panel: fields generated from the schema (with JSON as an alternative), or JSON alone. */
function renderEditBox(request: ApprovalRequest, call: PendingCallView, previous: Record<string, string>, editErrors: Record<string, string[]>, argsField: string): string {
	// Invisible and control characters as \u escapes: visible to the reviewer, and JSON.parse turns
	// them back into the same characters, so submitting the box unchanged changes nothing.
	const args = call.arguments === undefined ? 'undefined' : visibleJson(call.arguments);
	// Every textarea is posted with the form; large arguments are not copied into it, so the form stays small.
	const prefill = args.length <= MAX_PREFILLED_ARGUMENT_CHARS ? args : '';
	const hint = prefill ? '' : MAX_PREFILLED_JSON_NOTE(args.length);
	// What the reviewer typed comes back exactly as typed (after an error), never rewritten.
	const textarea = `<textarea name="${argsField}" rows="8" aria-label="Edited arguments as JSON">\n${escapeHtml(previous[argsField] ?? prefill)}</textarea>`;
	const fields = renderEditFields(request.approvalId, call.callId, call.inputSchema, call.arguments, { previous, fieldErrors: editErrors });
	if (!fields) return `<div class="edit-box"><p class="meta">Edit the arguments as JSON; they are checked against the tool's schema when you submit.</p>${hint}${textarea}</div>`;
	const useJson = editFieldName('editjson', request.approvalId, call.callId);
	return `<div class="edit-box"><p class="meta">The model's values are filled in: change what you need. Changed fields are highlighted after you submit, and everything is checked against the tool's schema first.</p>
${fields}
<details${previous[useJson] !== undefined ? ' open' : ''}><summary>Edit as JSON instead</summary><label class="keep"><input type="checkbox" name="${useJson}" value="1"${previous[useJson] !== undefined ? ' checked' : ''}> Use this JSON instead of the fields above</label>${hint}${textarea}</details></div>`;
}

function renderDecision(request: ApprovalRequest, call: PendingCallView, previous: Record<string, string>, editErrors: Record<string, string[]>, grants?: boolean | string): string {
	const field = (kind: 'decision' | 'reason' | 'args') => fieldName(kind, request.approvalId, call.callId);
	const chosen = previous[field('decision')] ?? '';
	const id = field('decision');
	const radio = (value: string, label: string) =>
		`<input type="radio" name="${id}" value="${value}" class="pick ${value}" id="${id}-${value}"${chosen === value ? ' checked' : ''} required><label for="${id}-${value}">${label}</label>`;
	const offered = offeredDecisions(call);
	const radios = [offered.includes('approve') ? radio('approve', 'Approve') : '', radio('deny', 'Deny'), offered.includes('edit') ? radio('edit', 'Edit') : ''].join('');
	const limited = offered.length < 3 ? `<p class="meta">The approval rule for this call lets you ${offered.join(' or ')} only.</p>` : '';
	return `<fieldset class="decide"><legend>Your decision on ${showName(call.title ?? call.tool)}</legend>${limited}
${radios}
<div class="reason-box"><label for="${field('reason')}">Reason <span class="meta">(optional; the model is told)</span></label><textarea id="${field('reason')}" name="${field('reason')}" rows="2" maxlength="${MAX_REASON_CHARS}">\n${escapeHtml(previous[field('reason')] ?? '')}</textarea></div>
${offered.includes('edit') ? renderEditBox(request, call, previous, editErrors, field('args')) : ''}
${grants !== undefined && offered.includes('approve') ? renderGrantChoice(request, call, previous, grants) : ''}
</fieldset>`;
}

function renderCall(request: ApprovalRequest, call: PendingCallView, index: number, previous: Record<string, string>, options: ReviewPageOptions): string {
	const field = (kind: 'hash' | 'inputHash') => fieldName(kind, request.approvalId, call.callId);
	const badges = riskBadges(call);
	const annotations = call.annotations
		? `<p class="meta">Annotations (${call.annotationsTrusted ? 'trusted' : 'NOT trusted: the server is not marked as trusted'}): ${showText(JSON.stringify(call.annotations))}</p>`
		: '<p class="meta">No annotations: treated as possibly destructive.</p>';
	const args = JSON.stringify(call.arguments, null, 2) ?? 'undefined';
	const warnings = Array.isArray(call.warnings) ? call.warnings : [];
	const headingId = `call-${fieldName('hash', request.approvalId, call.callId).slice(6)}`;
	// Items of earlier versions carry no needsReview: every call in them waits for review.
	const review = call.needsReview !== false ? renderDecision(request, call, previous, options.editErrors ?? {}, options.grants) : '';
	const input = call.input
		? `<input type="hidden" name="${field('inputHash')}" value="${showText(call.input.inputHash)}">\n${renderCallInput(request.approvalId, call, { previous, errors: options.inputErrors ?? {} })}`
		: '';
	return `<section class="card call risk-${riskLevel(badges)}" aria-labelledby="${headingId}">
<div class="call-head"><h2 id="${headingId}"><span class="sr-only">Call ${index}: </span>${showName(call.title ?? call.tool)}${hiddenCharacterFlag(call.title ?? call.tool, { oneLine: true })}</h2><span class="meta">#${index} · code <strong>${showText(callCode(call.argsHash))}</strong></span></div>
<p class="where">tool ${name(call.tool)} on server ${name(call.server)}</p>${typeof call.askedBy === 'string' ? `\n<p class="meta why">Waits because ${showText(call.askedBy)}.</p>` : ''}
<div class="badges">${badges.map((b) => `<span class="badge ${b.level}" title="${showText(b.explanation)}">${showText(b.label)}<span class="sr-only">: ${showText(b.explanation)}</span></span>`).join('')}</div>
${warnings.map((w) => `<div class="warn">Warning: ${showText(w)}</div>`).join('\n')}
<h3>Arguments</h3>${renderArgumentsView(call.arguments)}
<details><summary>Full arguments as JSON</summary>${block(args)}</details>
<details${warnings.length ? ' open' : ''}><summary>What the tool does</summary>${block(call.description ?? '(none)')}${annotations}</details>
<p class="meta">Code <strong><code>${showText(callCode(call.argsHash))}</code></strong> (the same code as in the message you were sent) · call ${name(call.callId)} · definition ${showText(String(call.fingerprint).slice(0, 19))}…</p>
<input type="hidden" name="${field('hash')}" value="${showText(call.argsHash)}">
${review}
${input}
</section>`;
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

/** "2030-01-02 00:00 UTC (in 23 hours)": the exact time and how long is left. */
export function expiryText(expiresAt: string, now: Date): string {
	const ms = Date.parse(expiresAt);
	if (Number.isNaN(ms)) return expiresAt;
	const exact = `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
	const left = ms - now.getTime();
	if (left <= 0) return `${exact} (passed)`;
	const minutes = Math.round(left / 60_000);
	const rel = minutes < 90 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} hours` : `${Math.round(minutes / 1440)} days`;
	return `${exact} (in ${rel})`;
}

/** Where the run comes from, once per page (every request of one link comes from the same workflow). */
function renderOrigin(requests: ApprovalRequest[], expires: string | undefined, now: Date): string {
	const origin = requests.find((r) => r.origin)?.origin ?? {};
	const rows: Array<[string, string]> = [];
	if (origin.workflow) rows.push(['Workflow', showName(origin.workflow)]);
	if (origin.node) rows.push(['Agent node', showName(origin.node)]);
	if (origin.trigger) rows.push(['Started by', showText(origin.trigger)]);
	if (expires) rows.push(['Decide before', `${showText(expiryText(expires, now))} <span class="meta">${showText(expires)}</span>`]);
	return rows.length ? `<dl class="facts">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>` : '';
}

export function renderReviewPage(requests: ApprovalRequest[], options: ReviewPageOptions = {}): string {
	const previous = options.previous ?? {};
	const now = options.now ?? new Date();
	const count = requests.reduce((n, r) => n + r.calls.length, 0);
	const reviewable = requests.reduce((n, r) => n + r.calls.filter((c) => c.needsReview !== false).length, 0);
	const errors = options.errors?.length ? `<div class="error" role="alert"><p><strong>Nothing was decided:</strong></p><ul>${options.errors.map((e) => `<li>${showText(e)}</li>`).join('')}</ul></div>` : '';
	const reviewer = options.requireSignIn
		? `<fieldset><legend>Sign in with your n8n account to decide</legend>
<label>E-mail<input type="email" name="email" value="${showText(previous.email ?? '')}" required autocomplete="username"></label>
<label>Password<input type="password" name="password" required autocomplete="current-password"></label>
<label>Two-factor code (if your account uses one)<input type="text" name="mfaCode" autocomplete="one-time-code" inputmode="numeric"></label></fieldset>`
		: `<label>Your name <span class="meta">(recorded with the decision)</span><input type="text" name="reviewer" value="${showText(previous.reviewer ?? '')}" required autocomplete="name"></label>`;
	const token = options.reviewToken ? `<input type="hidden" name="${REVIEW_TOKEN_PARAM}" value="${showText(options.reviewToken)}">` : '';
	const expires = requests.map((r) => r.expiresAt).sort()[0];
	let index = 0;
	const cards = requests.map((request) => `${renderContext(request)}\n${request.calls.map((call) => renderCall(request, call, ++index, previous, options)).join('\n')}`).join('\n');
	// The first submit button is what Enter in a text field presses: "Submit decisions", never "Approve all".
	const bulk = reviewable
		? `<p class="meta">Or decide at once every call you have not set above (calls you set keep your choice):</p>
<label for="bulkReason">Reason for "Deny all" <span class="meta">(optional)</span></label><textarea id="bulkReason" name="bulkReason" rows="2" maxlength="${MAX_REASON_CHARS}">\n${escapeHtml(previous.bulkReason ?? '')}</textarea>
<div class="buttons"><button type="submit" name="bulk" value="approve" class="all-approve" formnovalidate>Approve all</button><button type="submit" name="bulk" value="deny" class="all-deny" formnovalidate>Deny all</button></div>`
		: '';
	const form = count
		? `<form method="post">
${token}
${cards}
<div class="card">${reviewer}</div>
<div class="actions"><div class="buttons"><button type="submit" class="primary">Submit decisions</button></div>
${bulk}</div>
${options.grantsSection ?? ''}
</form>`
		: '';
	const asking = requests.reduce((n, r) => n + r.calls.filter((c) => c.input).length, 0);
	// Calls that already ran and only wait for a server's input request: the usual "wants to run" lead would be wrong.
	const onlyInput = count > 0 && requests.every((r) => r.calls.every((c) => c.input && c.needsReview === false));
	const inputNote = asking ? ` ${asking === 1 ? 'One call waits' : `${asking} calls wait`} for input a tool server asked for: answer it in the call's green box.` : '';
	return page(
		count ? `Review ${count} tool call${count === 1 ? '' : 's'}` : 'Nothing to decide',
		`<h1>${count ? `Review ${count} tool call${count === 1 ? '' : 's'}` : 'Nothing to decide on this page'}</h1>
${count ? `<p class="lead">${onlyInput ? `A tool server needs your answer before the call${count === 1 ? '' : 's'} below can finish. Nothing is sent to it until you decide.` : 'An AI agent in an n8n workflow wants to run the calls below. Nothing runs until you decide.'}${onlyInput ? '' : inputNote}${expires ? ' Calls still undecided at the time below are denied.' : ''}</p>${renderOrigin(requests, expires, now)}` : ''}
${errors}
${renderUndecidable(options)}
${form}`,
	);
}
