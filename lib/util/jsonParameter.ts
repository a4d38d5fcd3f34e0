import { configError } from '../errors';

/**
 * n8n's json parameters arrive as JSON text, or as the value itself when an expression produced
 * it. Empty text (or a missing value) gives `fallback`; invalid text an error naming the field.
 */
export function parseJsonParameter(value: unknown, field: string, fallback?: unknown): unknown {
	if (value === undefined || value === null) return fallback;
	if (typeof value !== 'string') return value;
	if (value.trim() === '') return fallback;
	try {
		return JSON.parse(value);
	} catch (error) {
		throw configError(
			`${field} is not valid JSON: ${(error as Error).message}`,
			`Write ${field} as valid JSON (keys and strings in double quotes, no trailing commas), or set it with an expression that returns the value itself.`,
		);
	}
}
