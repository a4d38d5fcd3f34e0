import { isJsonObject } from '../util/jsonObject';

/**
 * What a property of a tool's schema stands for, for the places that turn a schema into form fields
 * (MCP Call Tool's fields, the review page's edit form, input-request forms). Pydantic, which the
 * Python SDK and FastMCP use, writes every nested model as `{"$ref": "#/$defs/Model"}`, every
 * optional one as `anyOf: [{$ref}, {type: "null"}]`, and (before 2.9) a model with a default as
 * `allOf: [{$ref}]`: those are followed here to the schema that carries the type.
 *
 * Only references inside the schema itself (`#`, `#/$defs/...`, `#/definitions/...`) are followed;
 * external ones are never fetched. A reference that points nowhere, one that loops, or one with
 * keywords beside it that are not annotations comes back as a problem with a note, and the caller
 * treats the part as of unknown type. Validation does not use this: it runs on the original schema.
 */
export type JsonSchema = Record<string, unknown>;

export type EffectiveSchema =
	| {
			schema: JsonSchema;
			/** The references followed to get here (a caller descending further passes them on, to stop loops). */
			refs: string[];
			/** The property also allows null (an optional model, `anyOf: [X, {type: "null"}]`). */
			nullable: boolean;
	  }
	| { problem: string };

/** References and wrappers followed for one property before it counts as a loop. */
const MAX_HOPS = 16;
/**
 * Keywords that only describe a value (or hold definitions, as a root schema's `$defs` beside its
 * `$ref`): a `$ref` or `allOf` beside them still means the target alone.
 */
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$defs', 'definitions', '$schema']);

const own = (object: JsonSchema, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);
const onlyAnnotationsBeside = (schema: JsonSchema, keyword: string) => Object.keys(schema).every((key) => key === keyword || ANNOTATIONS.has(key));
const isNullSchema = (schema: unknown) => isJsonObject(schema) && schema.type === 'null' && Object.keys(schema).every((key) => key === 'type' || ANNOTATIONS.has(key));

/** The schema a JSON pointer inside `root` names ("#/$defs/Address", "#"), or undefined. Never anything outside `root`. */
export function resolveLocalRef(ref: string, root: JsonSchema): JsonSchema | undefined {
	if (ref === '#') return root;
	if (!ref.startsWith('#/')) return undefined;
	let node: unknown = root;
	for (const raw of ref.slice(2).split('/')) {
		let part: string;
		try {
			part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
		} catch {
			return undefined;
		}
		if (Array.isArray(node)) node = /^\d+$/.test(part) ? node[Number(part)] : undefined;
		else if (isJsonObject(node)) node = own(node, part);
		else return undefined;
	}
	return isJsonObject(node) ? node : undefined;
}

/**
 * Follows local `$ref`s, `allOf` of one schema and "X or null" (`anyOf`/`oneOf` of two) to the
 * schema that says what the value is. `refs` are the references already being expanded on the way
 * here (a recursive model: `Node.children.items` is `#/$defs/Node` again): meeting one of them again
 * is a loop and a problem, so a caller that descends always ends.
 */
export function effectiveSchema(schema: unknown, root: JsonSchema, refs: readonly string[] = []): EffectiveSchema {
	let current: unknown = schema;
	let seen = [...refs];
	let nullable = false;
	for (let hops = 0; hops < MAX_HOPS; hops++) {
		if (current === true) return { schema: {}, refs: seen, nullable };
		if (!isJsonObject(current)) return { problem: 'not a schema' };
		const ref = own(current, '$ref');
		if (ref !== undefined) {
			if (typeof ref !== 'string') return { problem: 'a $ref that is not text' };
			if (!ref.startsWith('#')) return { problem: `its $ref "${ref}" points outside the schema and is not followed` };
			if (!onlyAnnotationsBeside(current, '$ref')) return { problem: `its $ref "${ref}" has other keywords beside it` };
			if (seen.includes(ref)) return { problem: `its $ref "${ref}" refers back to itself` };
			const target = resolveLocalRef(ref, root);
			if (!target) return { problem: `its $ref "${ref}" points to nothing in the schema` };
			seen = [...seen, ref];
			current = target;
			continue;
		}
		const allOf = own(current, 'allOf');
		if (Array.isArray(allOf) && allOf.length === 1 && onlyAnnotationsBeside(current, 'allOf')) {
			current = allOf[0];
			continue;
		}
		const variantsKey = Array.isArray(own(current, 'anyOf')) ? 'anyOf' : Array.isArray(own(current, 'oneOf')) ? 'oneOf' : undefined;
		const variants = variantsKey ? (own(current, variantsKey) as unknown[]) : undefined;
		if (variantsKey && variants && variants.length === 2 && onlyAnnotationsBeside(current, variantsKey)) {
			const others = variants.filter((variant) => !isNullSchema(variant));
			if (others.length === 1) {
				nullable = true;
				current = others[0];
				continue;
			}
		}
		return { schema: current, refs: seen, nullable };
	}
	return { problem: `its references nest deeper than ${MAX_HOPS}` };
}

/** Text of an annotation, the property's own first (Pydantic titles the property; the model's title names its type). */
export function annotation(key: 'title' | 'description', outer: unknown, resolved: JsonSchema): string | undefined {
	for (const schema of [outer, resolved]) {
		if (isJsonObject(schema) && typeof own(schema, key) === 'string' && (schema[key] as string).trim()) return schema[key] as string;
	}
	return undefined;
}
