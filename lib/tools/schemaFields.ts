/**
 * Maps a tool's inputSchema to simple form fields (n8n's resource mapper shows one input per
 * property) and turns the values typed into those fields back into typed arguments.
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

function primaryType(schema: Schema): string | undefined {
	const type = schema.type;
	if (typeof type === 'string') return type;
	if (Array.isArray(type)) return (type as string[]).find((t) => t !== 'null');
	if (Array.isArray(schema.anyOf)) {
		for (const variant of schema.anyOf as Schema[]) {
			const t = primaryType(variant ?? {});
			if (t && t !== 'null') return t;
		}
	}
	return undefined;
}

function kindOf(schema: Schema): FieldKind {
	if (Array.isArray(schema.enum) && schema.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) return 'options';
	switch (primaryType(schema)) {
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

export function schemaToFields(inputSchema: Schema | undefined): SchemaField[] {
	const properties = (inputSchema?.properties ?? {}) as Record<string, Schema>;
	const required = new Set(Array.isArray(inputSchema?.required) ? (inputSchema?.required as string[]) : []);
	return Object.entries(properties).map(([id, property]) => {
		const schema = property && typeof property === 'object' ? property : {};
		const kind = kindOf(schema);
		const title = typeof schema.title === 'string' ? schema.title : id;
		return {
			id,
			displayName: title,
			required: required.has(id),
			kind,
			...(typeof schema.description === 'string' ? { description: schema.description } : {}),
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
	const properties = (inputSchema?.properties ?? {}) as Record<string, Schema>;
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(values)) {
		if (value === null || value === undefined) continue;
		const schema = properties[key] ?? {};
		out[key] = coerce(primaryType(schema), value);
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
