import { isJsonObject } from '../util/jsonObject';
/**
 * The input schema of an n8n tool as JSON Schema. n8n's tool nodes hand the Agent LangChain tools
 * whose `schema` is a zod schema built with n8n's own zod (3.25 in n8n 1.123 and 2.41; its `zod/v4`
 * classes may appear too), or already a JSON Schema object. We cannot import n8n's zod (the package
 * would get a second, different copy), so the schema is read by walking its definition, which both
 * zod 3 (`_def.typeName`) and zod 4 (`_zod.def.type`) expose as plain data.
 *
 * Fail closed: a construct this walk does not know becomes `{}` ("any value") only in the schema the
 * model sees and our validator checks; the tool still parses its arguments with its own zod schema
 * before it runs, so nothing unchecked reaches the tool. Depth is bounded (recursive `z.lazy`).
 */

type Json = Record<string, unknown>;

const MAX_DEPTH = 32;

/** Whether the value is a zod schema (either major version). */
export function isZodSchema(value: unknown): boolean {
	if (!isJsonObject(value)) return false;
	const v3 = (value as { _def?: { typeName?: unknown } })._def;
	const v4 = (value as { _zod?: { def?: { type?: unknown } } })._zod;
	return (isJsonObject(v3) && typeof v3.typeName === 'string') || (isJsonObject(v4) && isJsonObject(v4.def) && typeof v4.def.type === 'string');
}

/** The tool's schema as a JSON Schema object whose root is `type: object` (what every provider requires). */
export function toolSchemaToJsonSchema(schema: unknown): Json {
	let json: Json;
	if (isZodSchema(schema)) json = convert(schema, 0);
	else if (isJsonObject(schema)) json = schema;
	// A tool without a schema takes one text input, as LangChain's string tools do.
	else json = { type: 'object', properties: { input: { type: 'string' } } };
	if (json.type !== 'object') return { type: 'object', properties: { input: json }, required: ['input'] };
	return json;
}

interface Node {
	kind: string;
	def: Json;
	description?: string;
}

/** The kind ("object", "string", …), definition and description of a zod 3 or zod 4 schema. */
function read(schema: unknown): Node | undefined {
	if (!isJsonObject(schema)) return undefined;
	const v4 = (schema as { _zod?: { def?: Json } })._zod;
	if (isJsonObject(v4) && isJsonObject(v4.def) && typeof v4.def.type === 'string') {
		const description = typeof (schema as { description?: unknown }).description === 'string' ? (schema as { description: string }).description : undefined;
		return { kind: v4.def.type, def: v4.def, ...(description ? { description } : {}) };
	}
	const v3 = (schema as { _def?: Json })._def;
	if (isJsonObject(v3) && typeof v3.typeName === 'string') {
		const kind = v3.typeName.replace(/^Zod/, '').replace(/^./, (c) => c.toLowerCase());
		return { kind, def: v3, ...(typeof v3.description === 'string' ? { description: v3.description } : {}) };
	}
	return undefined;
}

function withDescription(json: Json, node: Node): Json {
	return node.description !== undefined && json.description === undefined ? { ...json, description: node.description } : json;
}

function convert(schema: unknown, depth: number): Json {
	const node = read(schema);
	if (!node || depth > MAX_DEPTH) return {};
	return withDescription(convertNode(node, depth + 1), node);
}

/** Whether a property may be left out: optional, or with a default (the tool fills it in). */
function isOptional(schema: unknown): boolean {
	const node = read(schema);
	if (!node) return false;
	if (node.kind === 'optional' || node.kind === 'default' || node.kind === 'prefault') return true;
	// zod 4 marks optionality on the schema itself.
	const v4 = (schema as { _zod?: { optin?: unknown } })._zod;
	if (v4?.optin === 'optional') return true;
	if (node.kind === 'effects' || node.kind === 'pipeline' || node.kind === 'pipe' || node.kind === 'readonly' || node.kind === 'catch' || node.kind === 'branded') {
		return isOptional(inner(node));
	}
	return false;
}

/** The wrapped schema of a wrapper kind (optional, default, effects, pipe …). */
function inner(node: Node): unknown {
	return node.def.innerType ?? node.def.schema ?? node.def.in;
}

function shapeOf(def: Json): Json {
	const shape = def.shape;
	// zod 3 keeps the shape behind a function.
	const value = typeof shape === 'function' ? (shape as () => unknown)() : shape;
	return isJsonObject(value) ? value : {};
}

function checksOf(def: Json): Json[] {
	if (!Array.isArray(def.checks)) return [];
	// zod 3: { kind, value }; zod 4: check objects carrying their own def.
	return def.checks.map((check: unknown) => {
		const c = check as { _zod?: { def?: Json }; kind?: string };
		return (c?._zod?.def ?? c) as Json;
	});
}

function stringSchema(node: Node): Json {
	const json: Json = { type: 'string' };
	const formats: Record<string, string> = { email: 'email', url: 'uri', uuid: 'uuid', datetime: 'date-time', date: 'date', time: 'time', ipv4: 'ipv4', ipv6: 'ipv6' };
	if (typeof node.def.format === 'string' && formats[node.def.format]) json.format = formats[node.def.format];
	for (const check of checksOf(node.def)) {
		const kind = (check.kind ?? check.check) as string | undefined;
		if (kind === 'min' || kind === 'min_length') json.minLength = check.value ?? check.minimum;
		else if (kind === 'max' || kind === 'max_length') json.maxLength = check.value ?? check.maximum;
		else if (kind === 'length' || kind === 'length_equals') json.minLength = json.maxLength = check.value ?? check.length;
		else if (kind === 'regex' && check.regex instanceof RegExp) json.pattern = check.regex.source;
		else if (kind === 'string_format' && typeof check.format === 'string' && formats[check.format]) json.format = formats[check.format];
		else if (kind === 'string_format' && check.format === 'regex' && check.pattern instanceof RegExp) json.pattern = check.pattern.source;
		else if (kind && formats[kind]) json.format = formats[kind];
	}
	return json;
}

function numberSchema(node: Node): Json {
	const json: Json = { type: 'number' };
	for (const check of checksOf(node.def)) {
		const kind = (check.kind ?? check.check) as string | undefined;
		if (kind === 'int' || (kind === 'number_format' && /int/.test(String(check.format)))) json.type = 'integer';
		else if (kind === 'min') json[check.inclusive === false ? 'exclusiveMinimum' : 'minimum'] = check.value;
		else if (kind === 'max') json[check.inclusive === false ? 'exclusiveMaximum' : 'maximum'] = check.value;
		else if (kind === 'greater_than') json[check.inclusive ? 'minimum' : 'exclusiveMinimum'] = check.value;
		else if (kind === 'less_than') json[check.inclusive ? 'maximum' : 'exclusiveMaximum'] = check.value;
		else if (kind === 'multipleOf' || kind === 'multiple_of') json.multipleOf = check.value;
	}
	return json;
}

function enumValues(def: Json): unknown[] {
	const values = def.values ?? def.entries;
	if (Array.isArray(values)) return values;
	// z.nativeEnum: an enum object, whose numeric members also map back by value.
	if (isJsonObject(values)) {
		const object = values;
		return Object.keys(object)
			.filter((key) => typeof object[object[key] as string] !== 'number')
			.map((key) => object[key]);
	}
	return [];
}

function convertNode(node: Node, depth: number): Json {
	const { def } = node;
	switch (node.kind) {
		case 'object': {
			const shape = shapeOf(def);
			const properties: Json = {};
			const required: string[] = [];
			for (const key of Object.keys(shape)) {
				Object.defineProperty(properties, key, { value: convert(shape[key], depth), enumerable: true, writable: true, configurable: true });
				if (!isOptional(shape[key])) required.push(key);
			}
			const json: Json = { type: 'object', properties };
			if (required.length) json.required = required;
			// zod 3: unknownKeys "strict" (its catchall is never by default, which strips); zod 4: a
			// never catchall is strict. Other keys are otherwise allowed (stripped or passed through).
			const catchall = read(def.catchall);
			const strict = typeof def.unknownKeys === 'string' ? def.unknownKeys === 'strict' : catchall?.kind === 'never';
			if (strict) json.additionalProperties = false;
			else if (catchall && catchall.kind !== 'never') json.additionalProperties = convert(def.catchall, depth);
			return json;
		}
		case 'string':
			return stringSchema(node);
		case 'number':
		case 'int':
			return node.kind === 'int' ? { ...numberSchema(node), type: 'integer' } : numberSchema(node);
		case 'bigint':
			return { type: 'integer' };
		case 'boolean':
			return { type: 'boolean' };
		case 'date':
			return { type: 'string', format: 'date-time' };
		case 'null':
			return { type: 'null' };
		case 'literal': {
			const values = Array.isArray(def.values) ? def.values : [def.value];
			return values.length === 1 ? { const: values[0] } : { enum: values };
		}
		case 'enum':
		case 'nativeEnum':
			return { enum: enumValues(def) };
		case 'array': {
			const items = def.type !== undefined && typeof def.type !== 'string' ? def.type : def.element;
			const json: Json = { type: 'array', items: convert(items, depth) };
			const min = (def.minLength as { value?: number } | null)?.value;
			const max = (def.maxLength as { value?: number } | null)?.value;
			if (typeof min === 'number') json.minItems = min;
			if (typeof max === 'number') json.maxItems = max;
			for (const check of checksOf(def)) {
				if (check.check === 'min_length') json.minItems = check.minimum;
				if (check.check === 'max_length') json.maxItems = check.maximum;
			}
			return json;
		}
		case 'tuple': {
			const items = Array.isArray(def.items) ? def.items.map((item) => convert(item, depth)) : [];
			return { type: 'array', prefixItems: items, minItems: items.length, ...(def.rest ? { items: convert(def.rest, depth) } : { maxItems: items.length }) };
		}
		case 'set':
			return { type: 'array', uniqueItems: true, items: convert(def.valueType, depth) };
		case 'record':
		case 'map':
			return { type: 'object', additionalProperties: convert(def.valueType, depth) };
		case 'union':
		case 'discriminatedUnion': {
			const options = Array.isArray(def.options) ? def.options : def.options instanceof Map ? [...(def.options as Map<unknown, unknown>).values()] : [];
			return { anyOf: options.map((option) => convert(option, depth)) };
		}
		case 'intersection':
			return { allOf: [convert(def.left, depth), convert(def.right, depth)] };
		case 'nullable': {
			const wrapped = convert(def.innerType, depth);
			return { anyOf: [wrapped, { type: 'null' }] };
		}
		case 'default':
		case 'prefault': {
			const wrapped = convert(def.innerType, depth);
			const value = typeof def.defaultValue === 'function' ? safeCall(def.defaultValue as () => unknown) : def.defaultValue;
			return value === undefined ? wrapped : { ...wrapped, default: value };
		}
		case 'optional':
		case 'readonly':
		case 'catch':
		case 'branded':
		case 'nonoptional':
		case 'promise':
			return convert(def.innerType ?? def.type, depth);
		case 'effects':
			// z.preprocess / refine / transform: the input side is the wrapped schema.
			return convert(def.schema, depth);
		case 'pipeline':
		case 'pipe':
			return convert(def.in, depth);
		case 'lazy': {
			const getter = def.getter;
			return typeof getter === 'function' ? convert(safeCall(getter as () => unknown), depth) : {};
		}
		case 'any':
		case 'unknown':
			return {};
		case 'never':
			return { not: {} };
		default:
			return {};
	}
}

function safeCall(fn: () => unknown): unknown {
	try {
		return fn();
	} catch {
		return undefined;
	}
}
