/**
 * Size limits checked before a server's schema is compiled and before arguments are validated.
 * Ajv compiles and validates recursively: an absurdly nested schema or argument overflows the
 * stack, and a huge one takes long enough to stall n8n. The limits are far above real tool schemas
 * (the largest we have seen are a few tens of KB) and real arguments.
 */
export interface JsonLimits {
	/** Characters of JSON, approximately (strings are counted without escapes). */
	maxChars: number;
	/** Levels of objects and arrays; the top value is level 1. */
	maxDepth: number;
	/** Objects and arrays in all. */
	maxContainers: number;
}

export const SCHEMA_LIMITS: JsonLimits = { maxChars: 256 * 1024, maxDepth: 64, maxContainers: 10_000 };
export const ARGUMENT_LIMITS: JsonLimits = { maxChars: 1024 * 1024, maxDepth: 64, maxContainers: 200_000 };

export interface ExceededLimit {
	/** "depth" or "size", usable as a problem's rule. */
	limit: 'depth' | 'size';
	/** e.g. "is nested more than 64 levels deep" */
	message: string;
}

/** Which limit a value breaks, or undefined. */
export function exceededLimit(value: unknown, limits: JsonLimits): ExceededLimit | undefined {
	const tally = { chars: 0, containers: 0 };
	// Recursion is safe: it stops one level past maxDepth.
	const exceeded = measure(value, 1, limits, tally);
	switch (exceeded) {
		case 'depth':
			return { limit: 'depth', message: `is nested more than ${limits.maxDepth} levels deep` };
		case 'chars':
			return { limit: 'size', message: `is larger than ${describeChars(limits.maxChars)} as JSON` };
		case 'containers':
			return { limit: 'size', message: `has more than ${limits.maxContainers.toLocaleString('en-US')} objects and arrays` };
		default:
			return undefined;
	}
}

function describeChars(chars: number): string {
	return chars % (1024 * 1024) === 0 ? `${chars / (1024 * 1024)} MB` : `${Math.round(chars / 1024)} KB`;
}

type Exceeded = 'depth' | 'chars' | 'containers' | undefined;

function measure(value: unknown, depth: number, limits: JsonLimits, tally: { chars: number; containers: number }): Exceeded {
	if (typeof value === 'string') tally.chars += value.length + 2;
	else if (typeof value === 'number') tally.chars += String(value).length;
	else if (value === null || typeof value !== 'object') tally.chars += 5;
	else {
		if (depth > limits.maxDepth) return 'depth';
		if (++tally.containers > limits.maxContainers) return 'containers';
		tally.chars += 2;
		if (Array.isArray(value)) {
			for (const item of value) {
				const exceeded = measure(item, depth + 1, limits, tally);
				if (exceeded) return exceeded;
				tally.chars += 1;
			}
		} else {
			for (const key in value) {
				if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
				tally.chars += key.length + 4;
				const exceeded = measure((value as Record<string, unknown>)[key], depth + 1, limits, tally);
				if (exceeded) return exceeded;
			}
		}
	}
	return tally.chars > limits.maxChars ? 'chars' : undefined;
}
