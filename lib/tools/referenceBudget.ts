/**
 * A cap on the references one validation may follow. A few KB of schema can make validation take
 * forever without any regular expression: forty definitions that each apply the next one twice
 * (`"allOf": [{"$ref": "#/$defs/d2"}, {"$ref": "#/$defs/d2"}]`) mean 2^40 checks of the same value.
 * Ajv has no step limit, but it runs `$comment` through a function of ours when told to: every
 * schema that holds a reference gets a `$comment`, so each reference followed is counted, and past
 * the cap validation stops with ReferenceBudgetExceeded. Schemas without references are not
 * touched and pay nothing; their work is bounded by the size limits (schemaLimits.ts).
 */
export const REFERENCE_BUDGET = 1_000_000;

export class ReferenceBudgetExceeded extends Error {
	constructor() {
		super(`validating follows more than ${REFERENCE_BUDGET.toLocaleString('en-US')} references`);
		this.name = 'ReferenceBudgetExceeded';
	}
}

let referencesLeft = REFERENCE_BUDGET;

/** Called before each validation (validation is synchronous, so one counter serves all). */
export function resetReferenceBudget(): void {
	referencesLeft = REFERENCE_BUDGET;
}

/** Ajv's `$comment` option: runs each time a schema with a `$comment` is applied. */
export function countReference(): void {
	if (--referencesLeft < 0) throw new ReferenceBudgetExceeded();
}

const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'];

/**
 * A copy of the schema with a `$comment` next to every reference (the server's own comments are
 * replaced; Ajv never shows them). Everywhere, even inside `const`, `enum` or `default` values,
 * because a `$ref` may point into them and Ajv then compiles them as schemas; the price is that a
 * `const`/`enum` object holding a string "$ref" no longer matches (fails closed). The schema was
 * checked against SCHEMA_LIMITS, so the recursion is shallow.
 */
export function withReferenceCounting(schema: unknown): unknown {
	if (schema === null || typeof schema !== 'object') return schema;
	if (Array.isArray(schema)) return schema.map(withReferenceCounting);
	const copy: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		copy[key] = withReferenceCounting(value);
	}
	if (REFERENCE_KEYWORDS.some((keyword) => typeof copy[keyword] === 'string')) copy.$comment = 'reference';
	return copy;
}
