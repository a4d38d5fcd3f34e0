import { createHash } from 'node:crypto';
import { escapeHtml, hiddenCharacterFlag, showName, showText } from './html';
import { allNodes, buildEditTree, pathLabel, type EditNode, type EditPath } from './editTree';
import { visibleJson } from './summaryFormat';
import { setEntry } from '../agent/ownEntry';
import { isJsonObject } from '../util/jsonObject';

/**
 * Renders the edit tree (editTree.ts) as form fields and reads them back from a POST. The page
 * works without JavaScript: array items carry a "keep" box (unchecked: the item is removed) and one
 * empty slot with an "add" box. Fields carry no HTML constraints (`required`, `min`, `pattern`):
 * one form holds every decision and a browser must never refuse to send a Deny because an edit
 * field it checks is off; the package's validator checks the result on the server.
 *
 * Field names are hashes of where a field belongs (approval, call, path), never server text.
 */
type Part = 'editvalue' | 'editkeep' | 'editform' | 'editjson';

export function editFieldName(part: Part, approvalId: string, callId: string, path: EditPath = []): string {
	const hash = createHash('sha256').update(JSON.stringify([part === 'editform' || part === 'editjson' ? part : 'field', approvalId, callId, path])).digest('hex').slice(0, 20);
	return `${part}__${hash}`;
}

export interface EditFormState {
	/** Values posted before (shown again after an error); empty on first render. */
	previous: Record<string, string | string[]>;
	/** Problems by field name, shown next to the field. */
	fieldErrors?: Record<string, string[]>;
}

/** The text a leaf field holds for a value (what the form shows for the model's original). */
function leafText(node: EditNode, value: unknown): string {
	if (value === undefined) return '';
	switch (node.kind) {
		case 'string':
			return String(value);
		case 'number':
		case 'integer':
			return String(value);
		case 'boolean':
			return value === true ? 'true' : value === false ? 'false' : '';
		case 'enum': {
			const index = node.options.findIndex((option) => option === value);
			return index === -1 ? '' : String(index);
		}
		default:
			// JSON with invisible characters and line separators written as escapes: the same value, but visible.
			return value === null ? 'null' : visibleJson(value);
	}
}

/** A textarea posts line breaks as CRLF; the model's text had none unless it held a CR itself. */
const normalizeBreaks = (text: string) => text.replace(/\r\n?/g, '\n');

function postedText(previous: Record<string, string | string[]>, name: string): string | undefined {
	const value = previous[name];
	return typeof value === 'string' ? value : undefined;
}

function requiredTag(node: EditNode): string {
	return node.required && typeof node.path[node.path.length - 1] === 'string' ? ' <span class="required">required</span>' : '';
}

function heading(node: EditNode): string {
	const title = node.title && node.title !== node.label ? ` <span class="meta">${showText(node.title)}</span>` : '';
	return `<span class="field-label">${showName(node.label)}</span>${hiddenCharacterFlag(node.label, { oneLine: true })}${title}${requiredTag(node)}`;
}

function description(node: EditNode): string {
	return node.description ? `<span class="field-description">${showText(node.description)}</span>${hiddenCharacterFlag(node.description)}` : '';
}

const TYPE_HINT: Partial<Record<EditNode['kind'], string>> = {
	number: 'a number',
	integer: 'a whole number',
	json: 'JSON; empty leaves it out',
};

interface RenderContext {
	name: (part: Part, path: EditPath) => string;
	state: EditFormState;
	/** The form was posted before: checkboxes show what was posted, not their defaults. */
	posted: boolean;
}

function renderLeaf(node: EditNode, context: RenderContext): string {
	const name = context.name('editvalue', node.path);
	const original = leafText(node, node.original);
	const shown = context.posted ? postedText(context.state.previous, name) ?? '' : original;
	const changed = context.posted && normalizeBreaks(shown) !== original;
	const errors = context.state.fieldErrors?.[name] ?? [];
	const id = `f-${name.slice(name.indexOf('__') + 2)}`;
	let control: string;
	switch (node.kind) {
		case 'boolean':
			control = `<select id="${id}" name="${name}">${[['', '(not set)'], ['true', 'true (yes)'], ['false', 'false (no)']]
				.map(([value, label]) => `<option value="${value}"${shown === value ? ' selected' : ''}>${label}</option>`)
				.join('')}</select>`;
			break;
		case 'enum':
			control = `<select id="${id}" name="${name}"><option value=""${shown === '' ? ' selected' : ''}>(not set)</option>${node.options
				.map((option, index) => `<option value="${index}"${shown === String(index) ? ' selected' : ''}>${showName(typeof option === 'string' ? option : JSON.stringify(option))}</option>`)
				.join('')}</select>`;
			break;
		case 'json':
			control = `<textarea id="${id}" name="${name}" rows="${Math.min(12, Math.max(3, shown.split('\n').length))}" spellcheck="false">\n${escapeHtml(shown)}</textarea>`;
			break;
		case 'string':
			control = node.multiline || shown.includes('\n')
				? `<textarea id="${id}" name="${name}" rows="${Math.min(12, Math.max(3, Math.ceil(shown.length / 60) + shown.split('\n').length))}">\n${escapeHtml(shown)}</textarea>`
				: `<input id="${id}" type="text" name="${name}" value="${escapeHtml(shown)}">`;
			break;
		default:
			control = `<input id="${id}" type="text" inputmode="decimal" name="${name}" value="${escapeHtml(shown)}">`;
	}
	const hint = TYPE_HINT[node.kind] ? ` <span class="meta">(${TYPE_HINT[node.kind]})</span>` : '';
	const was = changed ? `<span class="was">Model's value: <code>${original === '' ? '(not set)' : showText(node.kind === 'enum' || node.kind === 'boolean' ? String(JSON.stringify(node.original)) : original)}</code></span>` : '';
	const errorList = errors.map((e) => `<span class="field-error">${showText(e)}</span>`).join('');
	return `<div class="edit-field${changed ? ' changed' : ''}${errors.length ? ' invalid' : ''}"><label for="${id}">${heading(node)}${hint}${changed ? ' <span class="tag changed-tag">changed</span>' : ''}</label>${description(node)}${control}${was}${errorList}</div>`;
}

function renderNode(node: EditNode, context: RenderContext): string {
	if (node.kind === 'object') {
		const inner = node.properties.map((child) => renderNode(child, context)).join('\n');
		if (node.path.length === 0) return inner || '<p class="meta">This tool takes no arguments.</p>';
		return `<fieldset class="edit-group"><legend>${heading(node)}</legend>${description(node)}${inner || '<p class="meta">(no properties)</p>'}</fieldset>`;
	}
	if (node.kind === 'array') {
		const slot = (item: EditNode, spare: boolean) => {
			const keep = context.name('editkeep', item.path);
			const checked = context.posted ? context.state.previous[keep] !== undefined : !spare;
			const changed = context.posted && checked === spare;
			const box = `<label class="keep"><input type="checkbox" name="${keep}" value="1"${checked ? ' checked' : ''}> ${spare ? 'Add this item' : `Keep ${showText(item.label.toLowerCase())}`}</label>`;
			return `<div class="edit-item${spare ? ' spare' : ''}${changed ? ' changed' : ''}">${box}${changed ? ` <span class="tag changed-tag">${spare ? 'added' : 'removed'}</span>` : ''}${renderNode(item, context)}</div>`;
		};
		const items = node.items.map((item) => slot(item, false)).join('\n');
		return `<fieldset class="edit-group edit-array"><legend>${heading(node)} <span class="meta">(${node.items.length} item${node.items.length === 1 ? '' : 's'}; untick "Keep" to remove one)</span></legend>${description(node)}${items}${node.spare ? slot(node.spare, true) : ''}</fieldset>`;
	}
	return renderLeaf(node, context);
}

/**
 * The fields of a call's edit form, or undefined when the call is edited as one JSON text.
 * A hidden marker says the fields were on the page, so a POST is read from them.
 */
export function renderEditFields(approvalId: string, callId: string, inputSchema: unknown, args: unknown, state: EditFormState): string | undefined {
	const tree = buildEditTree(inputSchema, args);
	if (!tree) return undefined;
	const marker = editFieldName('editform', approvalId, callId);
	const context: RenderContext = { name: (part, path) => editFieldName(part, approvalId, callId, path), state, posted: state.previous[marker] !== undefined };
	return `<input type="hidden" name="${marker}" value="1">\n<div class="edit-fields">${renderNode(tree, context)}</div>`;
}

export type EditReading =
	| { ok: true; arguments: unknown }
	| { ok: false; errors: string[]; fieldErrors: Record<string, string[]> }
	/** The form did not carry the fields (an API client, or "edit as JSON" chosen): read the JSON text instead. */
	| { ok: 'json' };

interface ReadContext {
	name: (part: Part, path: EditPath) => string;
	body: Record<string, unknown>;
	problems: Array<{ name: string; message: string }>;
}

const where = (path: EditPath) => pathLabel(path) || 'arguments';

function readLeaf(node: EditNode, context: ReadContext): unknown {
	const name = context.name('editvalue', node.path);
	const raw = typeof context.body[name] === 'string' ? (context.body[name] as string) : '';
	const problem = (message: string) => {
		context.problems.push({ name, message: `${where(node.path)}: ${message}` });
		return undefined;
	};
	switch (node.kind) {
		case 'string': {
			const text = typeof node.original === 'string' && node.original.includes('\r') ? raw : normalizeBreaks(raw);
			return text === '' && !node.required && node.original === undefined ? undefined : text;
		}
		case 'number':
		case 'integer': {
			const text = raw.trim();
			if (text === '') return undefined;
			const number = Number(text);
			return Number.isFinite(number) ? number : problem(`"${text.slice(0, 40)}" is not a number.`);
		}
		case 'boolean':
			return raw === 'true' ? true : raw === 'false' ? false : raw === '' ? undefined : problem('choose true or false.');
		case 'enum': {
			if (raw === '') return undefined;
			const index = /^\d+$/.test(raw) ? Number(raw) : -1;
			return index >= 0 && index < node.options.length ? node.options[index] : problem('choose one of the listed values.');
		}
		default: {
			if (raw.trim() === '') return undefined;
			try {
				return JSON.parse(raw);
			} catch (error) {
				return problem(`not valid JSON (${(error as Error).message}).`);
			}
		}
	}
}

/** What the fields of a left-out object read as when nobody typed into them. */
function isBlank(value: unknown): boolean {
	return value === undefined || value === '' || (isJsonObject(value) && Object.values(value).every(isBlank));
}

function readNode(node: EditNode, context: ReadContext): unknown {
	if (node.kind === 'object') {
		const result: Record<string, unknown> = {};
		let any = false;
		for (const child of node.properties) {
			const value = readNode(child, context);
			if (value === undefined) continue;
			any = true;
			// Property names come from the server ("__proto__" included): define, never assign.
			setEntry(result, String(child.path[child.path.length - 1]), value);
		}
		// An optional object the model left out (Pydantic's `Address | None = None`) is shown with
		// empty fields: left empty, its required text fields read as "" and must not bring it in.
		if (!node.required && node.original === undefined && (!any || isBlank(result))) return undefined;
		return result;
	}
	if (node.kind === 'array') {
		const result: unknown[] = [];
		for (const item of [...node.items, ...(node.spare ? [node.spare] : [])]) {
			if (context.body[context.name('editkeep', item.path)] === undefined) continue;
			const before = context.problems.length;
			const value = readNode(item, context);
			if (value === undefined && context.problems.length === before) {
				context.problems.push({ name: context.name('editvalue', item.path), message: `${where(item.path)} is empty: fill it in, or untick its box to leave it out.` });
				continue;
			}
			result.push(value);
		}
		return result.length === 0 && !node.required && node.original === undefined ? undefined : result;
	}
	return readLeaf(node, context);
}

/** The edited arguments from the form's fields (to be validated against the schema by the caller). */
export function readEditFields(body: Record<string, unknown>, approvalId: string, callId: string, inputSchema: unknown, args: unknown): EditReading {
	if (body[editFieldName('editform', approvalId, callId)] === undefined || body[editFieldName('editjson', approvalId, callId)] !== undefined) return { ok: 'json' };
	const tree = buildEditTree(inputSchema, args);
	if (!tree) return { ok: 'json' };
	const context: ReadContext = { name: (part, path) => editFieldName(part, approvalId, callId, path), body, problems: [] };
	const value = readNode(tree, context);
	if (context.problems.length) {
		const fieldErrors: Record<string, string[]> = {};
		for (const { name, message } of context.problems) (fieldErrors[name] ??= []).push(message);
		return { ok: false, errors: context.problems.map((p) => p.message), fieldErrors };
	}
	return { ok: true, arguments: value ?? {} };
}

/** The field a validator path ("arguments.address.city") belongs to, to show its problem next to it. */
export function fieldForProblem(approvalId: string, callId: string, inputSchema: unknown, args: unknown, problemPath: string): string | undefined {
	const tree = buildEditTree(inputSchema, args);
	if (!tree) return undefined;
	const wanted = problemPath.replace(/^arguments\.?/, '');
	let best: EditNode | undefined;
	for (const node of allNodes(tree)) {
		// The validator writes paths with dots only ("lines.1.text").
		const dotted = node.path.join('.');
		if (node.path.length && (wanted === dotted || wanted.startsWith(`${dotted}.`)) && (!best || node.path.length > best.path.length)) best = node;
	}
	return best && best.kind !== 'object' && best.kind !== 'array' ? editFieldName('editvalue', approvalId, callId, best.path) : undefined;
}
