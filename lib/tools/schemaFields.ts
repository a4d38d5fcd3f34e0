import { annotation, effectiveSchema } from './schemaRefs';

/**
 * Maps a tool's inputSchema to simple form fields (n8n's resource mapper shows one input per
 * property) and turns the values typed into those fields back into typed arguments. A property
 * that is a `$ref` into the schema's own `$defs` (or an optional one, `anyOf` with null) takes the
 * type it refers to: a model is a JSON field parsed before the call, an enum a list of options.
 */
export type FieldKind = 'string' | 'number' | 'boolean' | 'options' | 'object' | 'array';

export interface SchemaField {
	id: string;
	displayName: string;
	required: boolean;
	kind: FieldKind;
	description?: string;
	options?: Array<{ name: string; value: string | number | boolean }>;
}

type Schema = Record<string, unknown>;

/** The property's schema with local `$ref`s and "X or null" followed; an empty schema and a note when they cannot be. */
function resolved(property: unknown, root: Schema): { schema: Schema; note?: string } {
	const effective = effectiveSchema(property, root);
	if ('problem' in effective) return { schema: {}, note: `type unknown: ${effective.problem}` };
	return { schema: effective.schema };
}

function primaryType(schema: Schema, root: Schema, depth = 0): string | undefined {
	const type = schema.type;
	if (typeof type === 'string') return type;
	if (Array.isArray(type)) return (type as string[]).find((t) => t !== 'null');
	if (Array.isArray(schema.anyOf) && depth < 4) {
		for (const variant of schema.anyOf as unknown[]) {
			const t = primaryType(resolved(variant, root).schema, root, depth + 1);
			if (t && t !== 'null') return t;
		}
	}
	if (schema.properties && typeof schema.properties === 'object') return 'object';
	return undefined;
}

function kindOf(schema: Schema, root: Schema): FieldKind {
	if (Array.isArray(schema.enum) && schema.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) return 'options';
	switch (primaryType(schema, root)) {
		case 'integer':
		case 'number':
			return 'number';
		case 'boolean':
			return 'boolean';
		case 'object':
			return 'object';
		case 'array':
			return 'array';
		default:
			return 'string';
	}
}

/** The properties of a tool's inputSchema (itself possibly a `$ref` into its own `$defs`) and its required names. */
function argumentProperties(inputSchema: Schema | undefined): { properties: Record<string, unknown>; required: Set<string>; root: Schema } {
	const root = inputSchema ?? {};
	const schema = resolved(root, root).schema;
	const properties = schema.properties && typeof schema.properties === 'object' && !Array.isArray(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
	const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === 'string') : []);
	return { properties, required, root };
}

export function schemaToFields(inputSchema: Schema | undefined): SchemaField[] {
	const { properties, required, root } = argumentProperties(inputSchema);
	return Object.entries(properties).map(([id, property]) => {
		const { schema, note } = resolved(property, root);
		const kind = kindOf(schema, root);
		const title = annotation('title', property, {}) ?? id;
		const description = annotation('description', property, schema);
		return {
			id,
			displayName: note ? `${title} (${note})` : title,
			required: required.has(id),
			kind,
			...(description ? { description } : {}),
			...(kind === 'options'
				? { options: (schema.enum as Array<string | number | boolean>).map((value) => ({ name: String(value), value })) }
				: {}),
		};
	});
}

/**
 * Form values arrive as strings when typed by hand or produced by expressions; convert them to the
 * schema's types where the conversion is unambiguous. Anything else is left for the validator to
 * reject with a precise message. Empty (null/undefined) values are dropped so optional arguments
 * the user did not fill are not sent.
 */
export function coerceFieldValues(inputSchema: Schema | undefined, values: Record<string, unknown>): Record<string, unknown> {
	const { properties, root } = argumentProperties(inputSchema);
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(values)) {
		if (value === null || value === undefined) continue;
		const schema = Object.hasOwn(properties, key) ? resolved(properties[key], root).schema : {};
		out[key] = coerce(primaryType(schema, root), value);
	}
	return out;
}

function coerce(type: string | undefined, value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const trimmed = value.trim();
	switch (type) {
		case 'number':
		case 'integer':
			return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : value;
		case 'boolean':
			return trimmed === 'true' ? true : trimmed === 'false' ? false : value;
		case 'object':
		case 'array':
			try {
				return JSON.parse(trimmed);
			} catch {
				return value;
			}
		default:
			return value;
	}
}
