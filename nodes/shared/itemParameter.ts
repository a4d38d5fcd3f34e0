import type { IExecuteFunctions } from 'n8n-workflow';

function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(containsExpression);
	return false;
}

/**
 * A parameter reader for per-item loops. n8n resolves a parameter anew for every item, which is
 * the main per-item cost on large inputs; a parameter with no expression anywhere in it has the
 * same value for every item, so it is resolved once.
 */
export function itemParameter<T>(context: IExecuteFunctions, name: string, fallback: T, options?: { extractValue?: boolean }): (itemIndex: number) => T {
	const raw = (context.getNode().parameters as Record<string, unknown>)[name];
	const read = (itemIndex: number) => context.getNodeParameter(name, itemIndex, fallback, options) as T;
	if (containsExpression(raw)) return read;
	let cached: { value: T } | undefined;
	return (itemIndex) => (cached ??= { value: read(itemIndex) }).value;
}
