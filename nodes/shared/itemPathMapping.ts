/**
 * Parameters mapped straight from the input item, the way n8n's editor writes them when a field
 * is dragged from the input panel (`={{ $json.message }}`, `={{ $json['my field'][0] }}`), and
 * fallbacks between such paths, the way our defaults are written
 * (`={{ $json.chatInput ?? $json.message ?? $json.body?.message }}`).
 *
 * n8n 2.x evaluates every expression, once per item, in its isolated-vm engine, at about 1.3 ms
 * per evaluation (more than a whole MCP call over stdio). For these expressions the value is
 * simply one of the item's properties, so it is read here directly, with JavaScript's meaning of
 * `??` and `?.`. Only an expression that ends on a present string, number or boolean is read this
 * way; anything else (a missing property, an object, an access that would throw, a template with
 * text around the braces, any other expression) is left to n8n, so its results and its error
 * messages stay n8n's own.
 */

/** Returned by a mapping when this item needs n8n's own evaluation. */
export const NEEDS_N8N = Symbol('needs n8n evaluation');

export type ItemMapping = (json: unknown) => unknown;

/** One property access: `.key` or `[key]`; `optional` for `?.`, which ends the path as undefined on null or undefined. */
export interface PathStep {
	key: string;
	optional: boolean;
}

/** The steps after `$json`. */
export type ItemPath = PathStep[];

/** Property names n8n's expression sandbox refuses, and anything starting with "__": left to n8n. */
const GUARDED_KEYS = new Set([
	'prototype',
	'constructor',
	'getPrototypeOf',
	'setPrototypeOf',
	'getOwnPropertyDescriptor',
	'getOwnPropertyDescriptors',
	'defineProperty',
	'defineProperties',
	'mainModule',
	'binding',
	'_linkedBinding',
	'_load',
	'prepareStackTrace',
	'caller',
	'callee',
	'arguments',
	'getBuiltinModule',
]);

const ITEM = /\s*\$json/y;
// Quoted keys without braces (n8n ends an expression at the first `}}`, inside quotes or not) and
// index literals that are their own key (`[01]` or `[1e3]` would not be).
const STEP = /(\?\.|\.)([A-Za-z_$][\w$]*)|(\?\.)?\[\s*(?:'([^'\\\r\n{}]*)'|"([^"\\\r\n{}]*)"|(0|[1-9]\d{0,14}))\s*\]/y;
const NULLISH = /\s*\?\?/y;
const REST = /\s*$/y;

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
	pattern.lastIndex = at;
	return pattern.exec(text);
}

function isGuarded(key: string): boolean {
	return key.startsWith('__') || GUARDED_KEYS.has(key);
}

/** The path starting at `at` (`$json` and its steps) and where it ends, or undefined when there is none. */
function readItemPath(body: string, at: number): { path: ItemPath; end: number } | undefined {
	const item = matchAt(ITEM, body, at);
	if (!item) return undefined;
	let end = at + item[0].length;
	const path: ItemPath = [];
	for (let step = matchAt(STEP, body, end); step; step = matchAt(STEP, body, end)) {
		const key = step[2] ?? step[4] ?? step[5] ?? step[6];
		if (isGuarded(key)) return undefined;
		path.push({ key, optional: (step[1] ?? step[3]) === '?.' });
		end += step[0].length;
	}
	return { path, end };
}

/**
 * The alternatives of `={{ $json.a?.b ?? $json['c'][0] }}` in order, or undefined for any other
 * string: the whole parameter must be one expression of `$json` paths joined by `??`.
 */
export function parseItemExpression(expression: string): ItemPath[] | undefined {
	if (!expression.startsWith('={{') || !expression.endsWith('}}')) return undefined;
	const body = expression.slice(3, -2);
	const alternatives: ItemPath[] = [];
	let at = 0;
	for (;;) {
		const alternative = readItemPath(body, at);
		if (!alternative) return undefined;
		alternatives.push(alternative.path);
		const nullish = matchAt(NULLISH, body, alternative.end);
		if (!nullish) return matchAt(REST, body, alternative.end) ? alternatives : undefined;
		at = alternative.end + nullish[0].length;
	}
}

/**
 * A path's value as JavaScript gives it, own properties only: NEEDS_N8N where JavaScript would
 * throw (a plain access on null or undefined, which n8n reports or smooths over in its own way) or
 * reach past the item's data (a string's length, an object's toString).
 */
function valueAt(json: unknown, path: ItemPath): unknown {
	let at = json;
	for (const { key, optional } of path) {
		if (at === null || at === undefined) return optional ? undefined : NEEDS_N8N;
		if (typeof at !== 'object') return NEEDS_N8N;
		if (Object.hasOwn(at, key)) at = (at as Record<string, unknown>)[key];
		else if (key in at) return NEEDS_N8N;
		else at = undefined;
	}
	return at;
}

/** `??`: the first alternative that is neither null nor undefined, else the last one's value; later ones are not read. */
function firstPresent(json: unknown, alternatives: ItemPath[]): unknown {
	let value: unknown;
	for (const path of alternatives) {
		value = valueAt(json, path);
		if (value !== null && value !== undefined) return value;
	}
	return value;
}

function isPlainValue(value: unknown): boolean {
	return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A reader for one expression. A null result is read directly only from a single plain path (what
 * Call Tool's mapped fields have always done); from `??` or `?.` it goes to n8n, which costs
 * little: such an expression is a fallback chain that found nothing.
 */
function itemExpressionReader(alternatives: ItemPath[]): ItemMapping {
	const nullIsPlain = alternatives.length === 1 && alternatives[0].every((step) => !step.optional);
	return (json) => {
		const value = firstPresent(json, alternatives);
		if (isPlainValue(value) || (value === null && nullIsPlain)) return value;
		return NEEDS_N8N;
	};
}

/**
 * A reader that resolves a raw parameter value for one item as n8n would (objects and arrays
 * copied, plain values as they are), or undefined when some expression in it is not made of item
 * paths. The reader returns NEEDS_N8N for an item on which an expression does not resolve.
 */
export function compileItemMapping(raw: unknown): ItemMapping | undefined {
	if (typeof raw === 'string') {
		if (!raw.startsWith('=')) return () => raw;
		const alternatives = parseItemExpression(raw);
		return alternatives ? itemExpressionReader(alternatives) : undefined;
	}
	if (Array.isArray(raw)) {
		const entries = raw.map(compileItemMapping);
		if (entries.some((entry) => entry === undefined)) return undefined;
		return (json) => {
			const out: unknown[] = [];
			for (const entry of entries as ItemMapping[]) {
				const value = entry(json);
				if (value === NEEDS_N8N) return NEEDS_N8N;
				out.push(value);
			}
			return out;
		};
	}
	if (raw !== null && typeof raw === 'object') {
		const entries = Object.entries(raw).map(([key, value]) => [key, compileItemMapping(value)] as const);
		if (entries.some(([, entry]) => entry === undefined)) return undefined;
		return (json) => {
			const out: Record<string, unknown> = {};
			for (const [key, entry] of entries as Array<readonly [string, ItemMapping]>) {
				const value = entry(json);
				if (value === NEEDS_N8N) return NEEDS_N8N;
				out[key] = value;
			}
			return out;
		};
	}
	return () => raw;
}
