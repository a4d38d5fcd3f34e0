import { isJsonObject } from '../util/jsonObject';
import { annotation, effectiveSchema } from '../tools/schemaRefs';
/**
 * The fields of an elicitation's `requestedSchema`, for the review page's form. MCP restricts that
 * schema to a flat object of primitive properties: strings (with `format` email, uri, date or
 * date-time, and length limits), numbers and integers (with bounds), booleans, single-choice enums
 * (`enum`, with legacy `enumNames` titles, or `oneOf` of `{const, title}`) and multi-choice arrays
 * of such enums (`items.enum` or `items.anyOf`). Python servers describe the form with a Pydantic
 * model: an enum is a `$ref` into the schema's `$defs`, an optional field `anyOf` with null; both
 * are followed (lib/tools/schemaRefs.ts). A schema outside that shape is not rendered as a
 * form (the page then takes the answer as JSON); the validator has the last word either way.
 *
 * Form values always arrive as text; `valueFromForm` turns them back into the schema's types, so
 * the validator sees what the person meant (an integer field's "3" is 3; an unparsable number stays
 * text and fails validation with the field's name).
 */
export interface FieldOption {
	value: string;
	label: string;
}

interface FieldBase {
	name: string;
	label: string;
	description?: string;
	required: boolean;
}

export type FormField = FieldBase &
	(
		| { type: 'string'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength?: number; default?: string }
		| { type: 'number' | 'integer'; minimum?: number; maximum?: number; default?: number }
		| { type: 'boolean'; default?: boolean }
		| { type: 'choice'; options: FieldOption[]; default?: string }
		| { type: 'choices'; options: FieldOption[]; minItems?: number; maxItems?: number; default?: string[] }
	);

/** More fields than a person fills in; a schema beyond it is answered as JSON. */
export const MAX_FORM_FIELDS = 100;
const MAX_OPTIONS = 200;

type Json = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);
const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const count = (value: unknown): number | undefined => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined);

/** Options of an enum: `enum` (titles from legacy `enumNames`) or `oneOf`/`anyOf` of `{ const, title }`. */
function optionsOf(schema: Json, listKey: 'oneOf' | 'anyOf'): FieldOption[] | undefined {
	if (Array.isArray(schema.enum)) {
		if (!schema.enum.every((v) => typeof v === 'string') || schema.enum.length > MAX_OPTIONS) return undefined;
		const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
		return (schema.enum as string[]).map((value, i) => ({ value, label: typeof names[i] === 'string' ? (names[i] as string) : value }));
	}
	const list = schema[listKey];
	if (Array.isArray(list) && list.length > 0 && list.length <= MAX_OPTIONS && list.every((o) => isJsonObject(o) && typeof o.const === 'string')) {
		return (list as Json[]).map((o) => ({ value: o.const as string, label: text(o.title) ?? (o.const as string) }));
	}
	return undefined;
}

function fieldOf(name: string, property: unknown, required: boolean, root: Json): FormField | undefined {
	const resolved = effectiveSchema(property, root);
	if ('problem' in resolved) return undefined;
	const { schema } = resolved;
	const description = annotation('description', property, schema);
	const base: FieldBase = { name, label: annotation('title', property, {}) ?? name, required, ...(description ? { description } : {}) };
	// Pydantic puts a field's default beside its `$ref` or `anyOf`, not in the enum it refers to.
	const def = isJsonObject(property) && Object.hasOwn(property, 'default') ? property.default : schema.default;
	if (schema.type === 'string') {
		const options = optionsOf(schema, 'oneOf');
		if (options) return { ...base, type: 'choice', options, ...(typeof def === 'string' && options.some((o) => o.value === def) ? { default: def } : {}) };
		if (schema.enum !== undefined || schema.oneOf !== undefined) return undefined;
		const format = ['email', 'uri', 'date', 'date-time'].includes(schema.format as string) ? (schema.format as 'email' | 'uri' | 'date' | 'date-time') : undefined;
		const minLength = count(schema.minLength);
		const maxLength = count(schema.maxLength);
		return { ...base, type: 'string', ...(format ? { format } : {}), ...(minLength !== undefined ? { minLength } : {}), ...(maxLength !== undefined ? { maxLength } : {}), ...(typeof def === 'string' ? { default: def } : {}) };
	}
	if (schema.type === 'number' || schema.type === 'integer') {
		const minimum = finite(schema.minimum);
		const maximum = finite(schema.maximum);
		return { ...base, type: schema.type, ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}), ...(finite(def) !== undefined ? { default: def as number } : {}) };
	}
	if (schema.type === 'boolean') return { ...base, type: 'boolean', ...(typeof def === 'boolean' ? { default: def } : {}) };
	if (schema.type === 'array' && isJsonObject(schema.items)) {
		const items = effectiveSchema(schema.items, root, resolved.refs);
		const options = 'problem' in items ? undefined : optionsOf(items.schema, 'anyOf');
		if (!options) return undefined;
		const minItems = count(schema.minItems);
		const maxItems = count(schema.maxItems);
		const defaults = Array.isArray(def) ? def.filter((v): v is string => typeof v === 'string' && options.some((o) => o.value === v)) : undefined;
		return { ...base, type: 'choices', options, ...(minItems !== undefined ? { minItems } : {}), ...(maxItems !== undefined ? { maxItems } : {}), ...(defaults ? { default: defaults } : {}) };
	}
	return undefined;
}

/** The form's fields in the schema's property order, or undefined when the schema is not a flat form MCP allows. */
export function formFields(requestedSchema: unknown): FormField[] | undefined {
	if (!isJsonObject(requestedSchema) || (requestedSchema.type !== undefined && requestedSchema.type !== 'object')) return undefined;
	const properties = requestedSchema.properties === undefined ? {} : requestedSchema.properties;
	if (!isJsonObject(properties)) return undefined;
	const names = Object.keys(properties);
	if (names.length > MAX_FORM_FIELDS) return undefined;
	const required = new Set(Array.isArray(requestedSchema.required) ? requestedSchema.required.filter((r): r is string => typeof r === 'string') : []);
	const fields: FormField[] = [];
	for (const name of names) {
		const field = fieldOf(name, properties[name], required.has(name), requestedSchema);
		if (!field) return undefined;
		fields.push(field);
	}
	return fields;
}

/** A date-time default as an <input type="datetime-local"> value, in UTC (the page says so). */
export function toDateTimeLocal(value: string): string {
	const ms = Date.parse(value);
	if (Number.isNaN(ms)) return '';
	return new Date(ms).toISOString().slice(0, 19);
}

const DATETIME_LOCAL = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,9})?)?$/;

/**
 * A posted value in the field's type; `undefined` leaves the property out (an empty optional field).
 * `raw` is the text of the field (or the option indexes checked, for `choices`).
 */
export function valueFromForm(field: FormField, raw: string | string[] | undefined): unknown {
	switch (field.type) {
		case 'string': {
			const value = typeof raw === 'string' ? raw : '';
			if (value === '') return undefined;
			if (field.format === 'date-time') {
				// A browser's datetime-local value has no zone: the page labels it UTC.
				const local = DATETIME_LOCAL.exec(value.trim());
				if (local) return `${local[1]}T${local[2]}${local[3] ?? ':00'}Z`;
			}
			return field.format ? value.trim() : value;
		}
		case 'number':
		case 'integer': {
			const value = typeof raw === 'string' ? raw.trim() : '';
			if (value === '') return undefined;
			const number = Number(value);
			return Number.isFinite(number) ? number : value;
		}
		case 'boolean':
			return raw === 'true' ? true : raw === 'false' ? false : undefined;
		case 'choice': {
			if (typeof raw !== 'string' || raw === '') return undefined;
			const option = /^\d+$/.test(raw) ? field.options[Number(raw)] : undefined;
			return option ? option.value : raw;
		}
		case 'choices': {
			const picked = (Array.isArray(raw) ? raw : []).map((index) => field.options[Number(index)]?.value).filter((v): v is string => v !== undefined);
			return picked.length === 0 && !field.required ? undefined : picked;
		}
	}
}
