import type { IExecuteFunctions } from 'n8n-workflow';
import { compileItemMapping, NEEDS_N8N } from './itemPathMapping';
import { nodeOf } from './nodeOf';

function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(containsExpression);
	return false;
}

/**
 * A parameter reader for per-item loops. n8n resolves a parameter anew for every item, which is
 * the main per-item cost on large inputs:
 * - a parameter with no expression anywhere in it has the same value for every item: resolved once;
 * - one whose expressions are all plain item paths (`{{ $json.field }}`, what dragging a field from
 *   the input writes) is read from the item directly (see itemPathMapping.ts), falling back to n8n
 *   for an item on which a path does not resolve to a plain value;
 * - anything else is n8n's to evaluate, item by item.
 */
export function itemParameter<T>(context: IExecuteFunctions, name: string, fallback: T, options?: { extractValue?: boolean }): (itemIndex: number) => T {
	const raw = (nodeOf(context).parameters as Record<string, unknown>)[name];
	const read = (itemIndex: number) => context.getNodeParameter(name, itemIndex, fallback, options) as T;
	if (!containsExpression(raw)) {
		let cached: { value: T } | undefined;
		return (itemIndex) => (cached ??= { value: read(itemIndex) }).value;
	}
	const mapping = options ? undefined : compileItemMapping(raw);
	if (!mapping) return read;
	const items = context.getInputData();
	return (itemIndex) => {
		const value = itemIndex < items.length ? mapping(items[itemIndex].json) : NEEDS_N8N;
		return value === NEEDS_N8N ? read(itemIndex) : (value as T);
	};
}
