import { createHash } from 'node:crypto';
import { checkInputAnswers, describeInputRequest } from '../agent/callInput';
import type { ElicitationAnswer } from '../mcp/inputRequests';
import { validateArguments } from '../tools/argumentValidator';
import { inputRequestsOf, type InputRequestItem, type PendingCallView } from './approvalRequest';
import { escapeHtml, hiddenCharacterFlag, showName, showText } from './html';
import { formFields, toDateTimeLocal, valueFromForm, type FormField } from './inputSchemaFields';
import { setEntry } from '../agent/ownEntry';
import { classifyHostLiteral, type AddressClass } from '../util/addressClass';

/**
 * The review page's part for input a server asked for during a call: per request, a form generated
 * from the elicitation's requested schema (defaults filled in, required fields marked), or for a
 * URL-mode request the link with its host shown prominently, and the choice Accept / Decline /
 * Cancel. Reading a POST turns the fields back into the schema's types and validates them with the
 * package's safe validator; errors are shown next to the request and nothing is decided.
 *
 * No field carries HTML constraints such as `required` or `min`: one form holds every choice, and a
 * browser would refuse to send a Decline while a field it checks is empty or out of range.
 */
type Part = 'action' | 'shown' | 'json' | 'value';

/** Field names hold no server text (keys and property names may contain anything): a hash of where the field belongs. */
export function inputFieldName(part: Part, approvalId: string, callId: string, key: string, property?: string, option?: number): string {
	const hash = createHash('sha256').update(JSON.stringify([approvalId, callId, key, property ?? null, option ?? null])).digest('hex').slice(0, 20);
	return `in${part}__${hash}`;
}

export interface InputFormState {
	previous: Record<string, string | string[]>;
	/** Errors per request, by the request's action field name. */
	errors: Record<string, string[]>;
}

const ACTION_LABELS: Record<'form' | 'url', Record<ElicitationAnswer['action'], string>> = {
	form: { accept: 'Accept (send these values)', decline: 'Decline', cancel: 'Cancel' },
	url: { accept: 'I completed it', decline: 'Decline', cancel: 'Cancel' },
};

/**
 * A link the page may offer: http(s) only, and without a user name or password, whose
 * `https://n8n.example.com:x@pay.evil.example/` form makes another site look like the first part;
 * not to a cloud metadata service, an unspecified or a reserved address, which no sign-in or
 * payment page lives at (lib/util/addressClass.ts).
 *
 * n8n never fetches such a link: the reviewer's browser opens it, in the reviewer's network. So the
 * host is classified as written (an IP, localhost, a metadata name), not resolved on n8n's side,
 * and a link into a private network or this computer is shown with a warning, not refused (a
 * server under development links to localhost).
 */
const NEVER_LINKED = new Set<AddressClass>(['metadata', 'unspecified', 'reserved']);

const INSIDE_WORDS: Partial<Record<AddressClass, string>> = {
	loopback: 'the computer it is opened on (localhost or 127.x.x.x)',
	private: 'a private network (such as 10.x, 172.16-31.x, 192.168.x)',
	'link-local': 'a link-local address (169.254.x.x or fe80::)',
};

function hostOf(url: string): { host: string; href: string; plain: boolean; punycode: boolean; inside?: string } | 'unusual-address' | undefined {
	try {
		const parsed = new URL(url);
		if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
		if (parsed.username || parsed.password) return undefined;
		const kind = classifyHostLiteral(parsed.hostname);
		if (kind && NEVER_LINKED.has(kind)) return 'unusual-address';
		const inside = kind ? INSIDE_WORDS[kind] : undefined;
		return {
			host: parsed.host,
			href: parsed.href,
			plain: parsed.protocol === 'http:',
			punycode: parsed.hostname.split('.').some((label) => label.startsWith('xn--')),
			...(inside ? { inside } : {}),
		};
	} catch {
		return undefined;
	}
}

function hint(field: FormField): string {
	const parts: string[] = [];
	if (field.type === 'string') {
		if (field.format === 'date-time') parts.push('date and time in UTC');
		if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
		if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
	}
	if (field.type === 'number' || field.type === 'integer') {
		if (field.type === 'integer') parts.push('a whole number');
		if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`);
		if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`);
	}
	if (field.type === 'choices') {
		if (field.minItems !== undefined) parts.push(`choose at least ${field.minItems}`);
		if (field.maxItems !== undefined) parts.push(`choose at most ${field.maxItems}`);
	}
	return parts.length ? ` <span class="meta">(${showText(parts.join(', '))})</span>` : '';
}

/**
 * The input per string format, without browser-side constraints: a server's default that breaks one
 * (an e-mail type holding "n/a", seconds in a datetime-local of 60 s steps, 2.5 in an integer field)
 * would stop the browser from sending the form at all, even to Decline. The run's schema check
 * decides; the keyboard hint (inputmode) stays.
 */
const INPUT_TYPES: Record<string, { type: string; extra: string }> = {
	email: { type: 'text', extra: ' inputmode="email"' },
	uri: { type: 'text', extra: ' inputmode="url"' },
	date: { type: 'date', extra: '' },
	'date-time': { type: 'datetime-local', extra: ' step="1"' },
};

/** One field of the form; `value` is what to show (the default, or what the person entered before an error). */
function renderField(field: FormField, name: (option?: number) => string, value: string | string[] | undefined): string {
	const label = `<span class="field-label">${showName(field.label)}</span>${hiddenCharacterFlag(field.label, { oneLine: true })}${field.required ? ' <span class="required">required</span>' : ''}${hint(field)}`;
	const description = field.description ? `<span class="field-description">${showText(field.description)}</span>${hiddenCharacterFlag(field.description)}` : '';
	const single = typeof value === 'string' ? value : '';
	switch (field.type) {
		case 'string':
		case 'number':
		case 'integer': {
			const { type, extra } = field.type === 'string' ? (field.format ? INPUT_TYPES[field.format] : { type: 'text', extra: '' }) : { type: 'number', extra: ' step="any"' };
			return `<label class="field">${label}${description}<input type="${type}" name="${name()}" value="${escapeHtml(single)}"${extra}></label>`;
		}
		case 'boolean': {
			const radio = (v: string, text: string) => `<label class="choice"><input type="radio" name="${name()}" value="${v}"${single === v ? ' checked' : ''}> ${text}</label>`;
			return `<div class="field">${label}${description}<div>${radio('true', 'Yes')}${radio('false', 'No')}</div></div>`;
		}
		case 'choice': {
			const options = field.options
				.map((option, index) => `<option value="${index}"${single === String(index) ? ' selected' : ''}>${showName(option.label)}</option>`)
				.join('');
			return `<label class="field">${label}${description}<select name="${name()}"><option value="">(none)</option>${options}</select></label>`;
		}
		case 'choices': {
			const checked = new Set(Array.isArray(value) ? value : []);
			const boxes = field.options
				.map((option, index) => `<label class="choice"><input type="checkbox" name="${name(index)}" value="${index}"${checked.has(String(index)) ? ' checked' : ''}> ${showName(option.label)}</label>`)
				.join('');
			return `<div class="field">${label}${description}<div>${boxes}</div></div>`;
		}
	}
}

/** The value a field shows on first render: the schema's default (SEP-1034), in the form's text form. */
function defaultValue(field: FormField): string | string[] | undefined {
	if (field.default === undefined) return undefined;
	switch (field.type) {
		case 'string':
			return field.format === 'date-time' ? toDateTimeLocal(field.default) : field.default;
		case 'number':
		case 'integer':
			return String(field.default);
		case 'boolean':
			return String(field.default);
		case 'choice':
			return String(field.options.findIndex((o) => o.value === field.default));
		case 'choices':
			return field.options.flatMap((o, index) => ((field.default as string[]).includes(o.value) ? [String(index)] : []));
	}
}

/** What a field held when the form was posted (after an error the page shows it again). */
function postedValue(field: FormField, previous: Record<string, string | string[]>, name: (option?: number) => string): string | string[] | undefined {
	if (field.type === 'choices') return field.options.flatMap((_, index) => (previous[name(index)] !== undefined ? [String(index)] : []));
	const value = previous[name()];
	return typeof value === 'string' ? value : undefined;
}

function renderRequest(approvalId: string, call: PendingCallView, item: InputRequestItem, state: InputFormState): string {
	const field = (part: Part, property?: string, option?: number) => inputFieldName(part, approvalId, call.callId, item.key, property, option);
	const view = describeInputRequest({ method: item.method, params: item.params });
	const warnings = (Array.isArray(item.warnings) ? item.warnings : []).map((w) => `<div class="warn">Warning: ${showText(w)}</div>`).join('');
	const errors = state.errors[field('action')] ?? [];
	const errorBlock = errors.length ? `<div class="error"><p>Not sent: fix this first.</p><ul>${errors.map((e) => `<li>${showText(e)}</li>`).join('')}</ul></div>` : '';
	const shownBefore = state.previous[field('shown')] !== undefined;
	const chosen = state.previous[field('action')];
	const message = view.kind === 'unsupported' ? '' : view.message;
	const messageBlock = message ? `${hiddenCharacterFlag(message)}<p class="input-message">${showText(message)}</p>` : '<p class="meta">(The server sent no message.)</p>';
	let body: string;
	let kind: 'form' | 'url' = 'form';
	if (view.kind === 'url') {
		kind = 'url';
		const found = hostOf(view.url);
		const link = typeof found === 'object' ? found : undefined;
		const extra = link
			? [
					link.plain ? '<div class="warn">The link is not encrypted (http, not https): what you enter there can be read on the way.</div>' : '',
					link.inside ? `<div class="warn">The link points into ${link.inside}, not at a site on the internet. Open it only if you expected this server to send you there.</div>` : '',
					link.punycode ? '<div class="warn">The site\'s name is written in international characters (shown here as "xn--…"): it may imitate a site you know.</div>' : '',
				].join('')
			: '';
		body = link
			? `<div class="warn">This link leads to another site, <strong class="host">${showName(link.host)}</strong>, chosen by the tool server, not by n8n. Open it only if you trust that site, and check the address before you enter anything there.</div>${extra}
<p>Site: <strong class="host">${showName(link.host)}</strong></p>
<p>Full link: <a href="${escapeHtml(link.href)}" rel="noopener noreferrer" target="_blank">${showText(view.url)}</a>${hiddenCharacterFlag(view.url)}</p>`
			: found === 'unusual-address'
				? `<div class="warn">The server sent a link to a cloud metadata service or a reserved address, where no page for you lives (a common way to reach a computer's internal services), so it is not linked: <code>${showName(view.url)}</code></div>`
				: `<div class="warn">The server sent an address that is not a plain web link (not http or https, or with a user name or password before the site, a common disguise), so it is not linked: <code>${showName(view.url)}</code></div>`;
	} else {
		const fields = view.kind === 'form' ? formFields(view.requestedSchema) : undefined;
		if (fields) {
			body = fields.length
				? fields
						.map((f) => {
							const name = (option?: number) => field('value', f.name, option);
							return renderField(f, name, shownBefore ? postedValue(f, state.previous, name) : defaultValue(f));
						})
						.join('\n')
				: '<p class="meta">The server asks for no values: accept, decline or cancel.</p>';
		} else {
			const schema = view.kind === 'form' ? JSON.stringify(view.requestedSchema, null, 2) : '';
			const typed = state.previous[field('json')];
			body = `<p class="meta">The requested values do not fit a simple form; enter them as a JSON object matching this schema:</p><pre>${showText(schema)}</pre>
<textarea name="${field('json')}" rows="6">\n${escapeHtml(typeof typed === 'string' ? typed : '{}')}</textarea>`;
		}
	}
	const labels = ACTION_LABELS[kind];
	const radio = (value: ElicitationAnswer['action']) =>
		`<label class="choice"><input type="radio" name="${field('action')}" value="${value}"${chosen === value ? ' checked' : ''} required> ${labels[value]}</label>`;
	return `<fieldset class="input-request"><legend>${kind === 'url' ? 'The server asks you to open a link' : 'The server asks for input'}</legend>
${errorBlock}${warnings}${messageBlock}
<input type="hidden" name="${field('shown')}" value="1">
${body}
<div class="input-actions">${radio('accept')}${radio('decline')}${radio('cancel')}</div>
</fieldset>`;
}

/** The input part of one call on the review page (empty when the call waits for no input). */
export function renderCallInput(approvalId: string, call: PendingCallView, state: InputFormState): string {
	const input = call.input;
	if (!input || !Array.isArray(input.requests)) return '';
	const answers = `answer${input.requests.length === 1 ? '' : 's'}`;
	const intro = `<p class="meta">${
		call.needsReview === false ? `This call was already allowed to run; only the server's request for input below needs an answer. The server needs the ${answers} to finish the call` : `If you approve, the server also needs the ${answers} below to finish the call`
	} (round ${showText(input.round)}). Decline or Cancel tell the server you do not want to answer; it decides what happens then.</p>`;
	return `${intro}\n${input.requests.map((item) => renderRequest(approvalId, call, item, state)).join('\n')}`;
}

export type InputReading = { ok: true; inputResponses: Record<string, ElicitationAnswer> } | { ok: false; errors: string[]; byRequest: Record<string, string[]> };

/** "values.seat must be …" as the person reads it: the field's label instead of the path. */
function explain(problem: { path: string; message: string }, fields: FormField[] | undefined): string {
	const path = problem.path.replace(/^arguments\.?/, '');
	if (!path) return `The values ${problem.message}`;
	const field = fields?.find((f) => f.name === path);
	return `${field?.label ?? path}: ${problem.message}`;
}

/**
 * The answers to one call's input requests from a form POST (fields) or an API POST (`answers`,
 * its `inputResponses`). Each request needs a choice; accepted forms need values that match the
 * requested schema.
 */
export function readCallInput(body: Record<string, unknown>, approvalId: string, call: PendingCallView, answers?: unknown): InputReading {
	const input = call.input;
	const requests = input ? inputRequestsOf(input) : {};
	const label = `${call.tool} (call ${call.callId})`;
	if (answers !== undefined) {
		const checked = checkInputAnswers({ inputRequests: requests }, answers);
		return checked.ok ? { ok: true, inputResponses: checked.responses } : { ok: false, errors: [`The answers for ${label}: ${checked.problem}.`], byRequest: {} };
	}
	const errors: string[] = [];
	const byRequest: Record<string, string[]> = {};
	const responses: Record<string, ElicitationAnswer> = {};
	for (const item of input?.requests ?? []) {
		const field = (part: Part, property?: string, option?: number) => inputFieldName(part, approvalId, call.callId, item.key, property, option);
		const problems: string[] = [];
		const action = body[field('action')];
		const view = describeInputRequest({ method: item.method, params: item.params });
		if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
			problems.push('Choose accept, decline or cancel.');
		} else if (action !== 'accept' || view.kind !== 'form') {
			setEntry(responses, item.key, { action });
		} else {
			const fields = formFields(view.requestedSchema);
			let content: Record<string, unknown> | undefined;
			if (fields) {
				content = {};
				for (const f of fields) {
					const raw = f.type === 'choices'
						? f.options.flatMap((_, index) => (body[field('value', f.name, index)] !== undefined ? [String(index)] : []))
						: typeof body[field('value', f.name)] === 'string' ? (body[field('value', f.name)] as string) : undefined;
					const value = valueFromForm(f, raw);
					if (value !== undefined) setEntry(content, f.name, value);
				}
			} else {
				try {
					const parsed: unknown = JSON.parse(String(body[field('json')] ?? ''));
					if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) content = parsed as Record<string, unknown>;
					else problems.push('The values must be a JSON object.');
				} catch (error) {
					problems.push(`The values are not valid JSON: ${(error as Error).message}`);
				}
			}
			if (content) {
				const validation = validateArguments(view.requestedSchema, content);
				if (validation.valid) setEntry(responses, item.key, { action, content });
				else for (const problem of validation.problems) problems.push(explain(problem, fields));
			}
		}
		if (problems.length) {
			byRequest[field('action')] = problems;
			const message = view.kind === 'unsupported' ? '' : view.message;
			errors.push(`The server's request for input on ${label}${message ? ` ("${message.slice(0, 80)}")` : ''}: ${problems.join(' ')}`);
		}
	}
	if (errors.length) return { ok: false, errors, byRequest };
	// The run checks the answers again when it resumes (their size above all): a form it would
	// refuse must be refused here, next to the fields, not after the page said "decided".
	const checked = checkInputAnswers({ inputRequests: requests }, responses);
	return checked.ok ? { ok: true, inputResponses: checked.responses } : { ok: false, errors: [`The answers for ${label}: ${checked.problem}.`], byRequest: {} };
}

/** Whether a submission answers any input request of this call (form fields). */
export function mentionsInput(body: Record<string, unknown>, approvalId: string, call: PendingCallView): boolean {
	return (call.input?.requests ?? []).some((item) => body[inputFieldName('action', approvalId, call.callId, item.key)] !== undefined);
}
