/**
 * The value at a path of keys, following own properties only: `constructor`, `__proto__` or
 * `toString` in an item path find nothing rather than the prototype's members. Undefined when
 * some key is missing.
 */
export function valueAtOwnPath(value: unknown, path: readonly string[]): unknown {
	let at = value;
	for (const key of path) {
		if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
		at = (at as Record<string, unknown>)[key];
	}
	return at;
}
