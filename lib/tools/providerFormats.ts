import type { ToolDefinition } from './toolDefinition';
import { toProviderToolName } from './providerNames';

/** Tool definitions in each provider's own request format. */
export interface AnthropicToolFormat {
	name: string;
	description?: string;
	input_schema: Record<string, unknown>;
}

export interface OpenAiChatToolFormat {
	type: 'function';
	function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export interface OpenAiResponsesToolFormat {
	type: 'function';
	name: string;
	description?: string;
	parameters: Record<string, unknown>;
	strict: boolean;
}

/** Providers require `type: "object"` with `properties` at the root; MCP servers sometimes omit `properties`. */
export function normalizeInputSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
	const base = schema && typeof schema === 'object' ? { ...schema } : {};
	if (base.type === undefined) base.type = 'object';
	if (base.type === 'object' && base.properties === undefined) base.properties = {};
	return base;
}

export function toAnthropicTool(tool: ToolDefinition, name = toProviderToolName(tool.name)): AnthropicToolFormat {
	return { name, ...(tool.description ? { description: tool.description } : {}), input_schema: normalizeInputSchema(tool.inputSchema) };
}

export function toOpenAiChatTool(tool: ToolDefinition, name = toProviderToolName(tool.name)): OpenAiChatToolFormat {
	const strictSchema = toStrictSchema(tool.inputSchema);
	return {
		type: 'function',
		function: {
			name,
			...(tool.description ? { description: tool.description } : {}),
			parameters: strictSchema ?? normalizeInputSchema(tool.inputSchema),
			strict: strictSchema !== null,
		},
	};
}

export function toOpenAiResponsesTool(tool: ToolDefinition, name = toProviderToolName(tool.name)): OpenAiResponsesToolFormat {
	const strictSchema = toStrictSchema(tool.inputSchema);
	return {
		type: 'function',
		name,
		...(tool.description ? { description: tool.description } : {}),
		parameters: strictSchema ?? normalizeInputSchema(tool.inputSchema),
		strict: strictSchema !== null,
	};
}

/** Keywords OpenAI's strict mode accepts; a schema using anything else stays non-strict. */
const STRICT_KEYWORDS = new Set([
	'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'description', 'title',
	'anyOf', '$defs', 'definitions', '$ref', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum',
	'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', '$schema', 'default',
]);

/**
 * Strict mode makes the model's arguments always match the schema, but it demands that every
 * object lists all its properties as required and forbids extra ones. We only switch it on when
 * the schema already says that (adding `additionalProperties: false` where it is absent), so the
 * meaning of the tool's schema never changes; any other schema is sent non-strict.
 * Returns the strict schema, or null when the tool must stay non-strict.
 */
export function toStrictSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> | null {
	const root = normalizeInputSchema(schema);
	const result = makeStrict(root, 0);
	if (result === null) return null;
	delete result.default;
	return result;
}

function makeStrict(node: unknown, depth: number): Record<string, unknown> | null {
	if (depth > 20 || !node || typeof node !== 'object' || Array.isArray(node)) return null;
	const schema = node as Record<string, unknown>;
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		if (!STRICT_KEYWORDS.has(key)) return null;
		out[key] = value;
	}
	if ('default' in out) delete out.default;
	if (schema.properties !== undefined || schema.type === 'object') {
		const properties = (schema.properties ?? {}) as Record<string, unknown>;
		const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
		const names = Object.keys(properties);
		if (names.some((name) => !required.includes(name))) return null;
		if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return null;
		const strictProperties: Record<string, unknown> = {};
		for (const name of names) {
			const child = makeStrict(properties[name], depth + 1);
			if (child === null) return null;
			strictProperties[name] = child;
		}
		out.properties = strictProperties;
		out.required = names;
		out.additionalProperties = false;
	}
	if (schema.items !== undefined) {
		const items = makeStrict(schema.items, depth + 1);
		if (items === null) return null;
		out.items = items;
	}
	if (Array.isArray(schema.anyOf)) {
		const variants = schema.anyOf.map((variant) => makeStrict(variant, depth + 1));
		if (variants.some((variant) => variant === null)) return null;
		out.anyOf = variants;
	}
	for (const defsKey of ['$defs', 'definitions'] as const) {
		if (schema[defsKey] && typeof schema[defsKey] === 'object') {
			const defs: Record<string, unknown> = {};
			for (const [name, def] of Object.entries(schema[defsKey] as Record<string, unknown>)) {
				const strictDef = makeStrict(def, depth + 1);
				if (strictDef === null) return null;
				defs[name] = strictDef;
			}
			out[defsKey] = defs;
		}
	}
	return out;
}
