import { INVISIBLE_CHARACTER } from '../tools/invisibleCharacters';
import { isJsonObject } from '../util/jsonObject';
import { effectiveSchema } from '../tools/schemaRefs';

/**
 * The review page's "Edit" form for a call's arguments, as a tree built from the tool's input schema
 * and the model's original arguments: one node per field a person can change. The same tree is
 * built again when the form comes back (from the same schema and the same original arguments), so
 * field names and array slots line up without storing anything between the GET and the POST.
 *
 * Strings, numbers, integers, booleans and enums become inputs; objects with `properties` become
 * groups; arrays become a list of items, each with a "keep" box, plus one empty slot to add an item;
 * `$ref` into the schema's own `$defs` / `definitions`, `allOf` of one and "X or null" are followed
 * (lib/tools/schemaRefs.ts, shared with MCP Call Tool's fields; a reference that loops is shown as
 * JSON). Anything else (`oneOf` of objects, tuples, maps, values that do not fit the schema, text
 * with characters a browser would change or hide) is a JSON box for that part only. Posting an
 * untouched form gives back exactly the original arguments (the argument hash is over them).
 */
export type EditPath = Array<string | number>;

interface NodeBase {
	path: EditPath;
	/** Property name, or "Item 2" for array items. */
	label: string;
	title?: string;
	description?: string;
	required: boolean;
	/** The original value at this path (undefined when absent or for a new array slot). */
	original: unknown;
}

export type EditNode = NodeBase &
	(
		| { kind: 'string'; multiline: boolean }
		| { kind: 'number' | 'integer' }
		| { kind: 'boolean' }
		| { kind: 'enum'; options: unknown[] }
		| { kind: 'json' }
		| { kind: 'object'; properties: EditNode[] }
		| { kind: 'array'; items: EditNode[]; spare?: EditNode }
	);

/** More fields than a person can review on a phone: beyond this the whole call is edited as JSON. */
export const MAX_EDIT_FIELDS = 200;
/** Nesting followed before a part becomes a JSON box. */
const MAX_DEPTH = 8;

type Json = Record<string, unknown>;
const own = (object: Json, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);

class TooManyFields extends Error {}

/** The schema a property stands for (schemaRefs.ts); undefined when it cannot be followed (edited as JSON). */
function effective(schema: unknown, root: Json, refs: string[]): { schema: Json; refs: string[] } | undefined {
	const resolved = effectiveSchema(schema, root, refs);
	return 'problem' in resolved ? undefined : resolved;
}

function typeOf(schema: Json): string | undefined {
	const type = own(schema, 'type');
	if (typeof type === 'string') return type;
	if (Array.isArray(type)) {
		const others = type.filter((t) => t !== 'null');
		return others.length === 1 && typeof others[0] === 'string' ? others[0] : undefined;
	}
	if (isJsonObject(own(schema, 'properties'))) return 'object';
	return undefined;
}

/** Text a browser would change in a form field (CR, NUL and other controls) or a person could not see. */
function fitsTextField(value: string): boolean {
	return !/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\r]/.test(value) && !INVISIBLE_CHARACTER.test(value) && !/[\uD800-\uDFFF]/.test(value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));
}

const isPrimitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

interface Budget {
	fields: number;
}

function build(schemaIn: unknown, root: Json, refs: string[], value: unknown, base: NodeBase, depth: number, budget: Budget): EditNode {
	if (++budget.fields > MAX_EDIT_FIELDS) throw new TooManyFields();
	const json = (): EditNode => ({ ...base, kind: 'json' });
	const resolved = depth > MAX_DEPTH ? undefined : effective(schemaIn, root, refs);
	if (!resolved) return json();
	const { schema } = resolved;
	const withText = {
		...base,
		...(typeof own(schema, 'title') === 'string' ? { title: schema.title as string } : base.title ? { title: base.title } : {}),
		...(typeof own(schema, 'description') === 'string' ? { description: schema.description as string } : base.description ? { description: base.description } : {}),
	};
	const present = value !== undefined;
	const enumValues = Array.isArray(own(schema, 'enum')) ? (schema.enum as unknown[]) : own(schema, 'const') !== undefined ? [schema.const] : undefined;
	if (enumValues) {
		if (!enumValues.every(isPrimitive) || enumValues.length > 200) return { ...withText, kind: 'json' };
		if (present && !enumValues.some((v) => v === value)) return { ...withText, kind: 'json' };
		return { ...withText, kind: 'enum', options: enumValues };
	}
	const type = typeOf(schema);
	switch (type) {
		case 'string':
			if (present && (typeof value !== 'string' || !fitsTextField(value))) return { ...withText, kind: 'json' };
			return { ...withText, kind: 'string', multiline: typeof value === 'string' && (value.includes('\n') || value.length > 80) };
		case 'number':
		case 'integer':
			if (present && (typeof value !== 'number' || !Number.isFinite(value))) return { ...withText, kind: 'json' };
			return { ...withText, kind: type };
		case 'boolean':
			if (present && typeof value !== 'boolean') return { ...withText, kind: 'json' };
			return { ...withText, kind: 'boolean' };
		case 'object': {
			const properties = own(schema, 'properties');
			if (!isJsonObject(properties) || (present && !isJsonObject(value))) return { ...withText, kind: 'json' };
			const names = Object.keys(properties);
			// Keys the schema does not name (allowed by additionalProperties) cannot be shown as fields.
			if (present && Object.keys(value as Json).some((k) => !names.includes(k))) return { ...withText, kind: 'json' };
			const required = new Set(Array.isArray(own(schema, 'required')) ? (schema.required as unknown[]).filter((r): r is string => typeof r === 'string') : []);
			const children = names.map((name) =>
				build(properties[name], root, resolved.refs, present ? own(value as Json, name) : undefined, { path: [...base.path, name], label: name, required: required.has(name), original: present ? own(value as Json, name) : undefined }, depth + 1, budget),
			);
			return { ...withText, kind: 'object', properties: children };
		}
		case 'array': {
			const items = own(schema, 'items');
			if (!isJsonObject(items) || own(schema, 'prefixItems') !== undefined || (present && !Array.isArray(value))) return { ...withText, kind: 'json' };
			const list = present ? (value as unknown[]) : [];
			const child = (index: number, original: unknown) =>
				build(items, root, resolved.refs, original, { path: [...base.path, index], label: `Item ${index + 1}`, required: true, original }, depth + 1, budget);
			const existing = list.map((item, index) => child(index, item));
			const maxItems = typeof own(schema, 'maxItems') === 'number' ? (schema.maxItems as number) : Infinity;
			return { ...withText, kind: 'array', items: existing, ...(list.length < maxItems ? { spare: child(list.length, undefined) } : {}) };
		}
		default:
			return { ...withText, kind: 'json' };
	}
}

/**
 * The edit tree for a call, or undefined when the arguments are edited as one JSON text (a schema
 * that is not an object with properties, arguments that do not fit it, or more than MAX_EDIT_FIELDS).
 */
export function buildEditTree(inputSchema: unknown, args: unknown): EditNode | undefined {
	if (!isJsonObject(inputSchema) || !isJsonObject(args)) return undefined;
	try {
		const tree = build(inputSchema, inputSchema, [], args, { path: [], label: 'arguments', required: true, original: args }, 0, { fields: 0 });
		return tree.kind === 'object' ? tree : undefined;
	} catch (error) {
		if (error instanceof TooManyFields) return undefined;
		throw error;
	}
}

/** Every node of the tree, depth first (array spare slots included). */
export function allNodes(node: EditNode): EditNode[] {
	const children = node.kind === 'object' ? node.properties : node.kind === 'array' ? [...node.items, ...(node.spare ? [node.spare] : [])] : [];
	return [node, ...children.flatMap(allNodes)];
}

/** "address.lines[1]" for messages (the validator's paths look the same after "arguments."). */
export function pathLabel(path: EditPath): string {
	return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');
}
