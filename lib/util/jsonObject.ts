/** A JSON object: not null, not an array. What a field that should hold an object is checked with before it is read. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
