import { valueAtOwnPath } from '../../lib/util/ownPath';
/**
 * Parameters mapped straight from the input item, the way n8n's editor writes them when a field
 * is dragged from the input panel: `={{ $json.message }}`, `={{ $json['my field'][0] }}`.
 *
 * n8n 2.x evaluates every expression, once per item, in its isolated-vm engine, at about 1.3 ms
 * per evaluation (more than a whole MCP call over stdio). For these plain property paths the
 * value is simply the item's property, so it is read here directly. Only a path that ends on a
 * present string, number, boolean or null is read this way; anything else (a missing property, an
 * object, a template with text around the braces, any other expression) is left to n8n, so its
 * results and its error messages stay n8n's own.
 */

/** Returned by a mapping when this item needs n8n's own evaluation. */
export const NEEDS_N8N = Symbol('needs n8n evaluation');

export type ItemMapping = (json: unknown) => unknown;

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

const WHOLE = /^=\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*|\[\s*(?:'[^'\\\r\n]*'|"[^"\\\r\n]*"|\d+)\s*\])*)\s*\}\}$/;
const SEGMENT = /\.([A-Za-z_$][\w$]*)|\[\s*(?:'([^'\\\r\n]*)'|"([^"\\\r\n]*)"|(\d+))\s*\]/g;

/** The property path of `={{ $json.a['b'][0] }}`, or undefined for any other string. */
export function parseItemPath(expression: string): string[] | undefined {
	const whole = WHOLE.exec(expression);
	if (!whole) return undefined;
	const path: string[] = [];
	for (const segment of whole[1].matchAll(SEGMENT)) {
		const key = segment[1] ?? segment[2] ?? segment[3] ?? segment[4];
		if (key.startsWith('__') || GUARDED_KEYS.has(key)) return undefined;
		path.push(key);
	}
	return path;
}

function readPath(json: unknown, path: string[]): unknown {
	const at = valueAtOwnPath(json, path);
	if (at === null || typeof at === 'string' || typeof at === 'boolean' || (typeof at === 'number' && Number.isFinite(at))) return at;
	return NEEDS_N8N;
}

/**
 * A reader that resolves a raw parameter value for one item as n8n would (objects and arrays
 * copied, plain values as they are), or undefined when some expression in it is not a plain item
 * path. The reader returns NEEDS_N8N for an item on which a path does not resolve.
 */
export function compileItemMapping(raw: unknown): ItemMapping | undefined {
	if (typeof raw === 'string') {
		if (!raw.startsWith('=')) return () => raw;
		const path = parseItemPath(raw);
		return path ? (json) => readPath(json, path) : undefined;
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
