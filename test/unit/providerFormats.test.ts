import {
	normalizeInputSchema,
	toAnthropicTool,
	toOpenAiChatTool,
	toOpenAiResponsesTool,
	toStrictSchema,
} from '../../lib/tools/providerFormats';
import { toProviderToolName } from '../../lib/tools/providerNames';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** All properties required, no extras: eligible for strict mode. */
const closedTool: ToolDefinition = {
	name: 'get_weather',
	description: 'Weather for a city',
	inputSchema: {
		type: 'object',
		properties: {
			city: { type: 'string', description: 'City name' },
			unit: { type: 'string', enum: ['c', 'f'], default: 'c' },
			where: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] },
			tags: { type: 'array', items: { type: 'string' } },
		},
		required: ['city', 'unit', 'where', 'tags'],
	},
};

/** An optional property: strict mode would make it required, so this tool stays non-strict. */
const openTool: ToolDefinition = {
	name: 'files.read',
	description: 'Read a file',
	inputSchema: { type: 'object', properties: { path: { type: 'string' }, encoding: { type: 'string' } }, required: ['path'] },
};

const deepCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('provider tool names', () => {
	it('keeps names that already fit', () => {
		expect(toProviderToolName('get_weather')).toBe('get_weather');
		expect(toProviderToolName('a-b_C9')).toBe('a-b_C9');
	});

	it('maps names with dots (and other characters) to a valid name with a hash suffix', () => {
		const mapped = toProviderToolName('files.read');
		expect(mapped).toMatch(/^files_read_[0-9a-f]{8}$/);
		expect(mapped).toMatch(PROVIDER_NAME);
		expect(toProviderToolName('files.read')).toBe(mapped);
		expect(toProviderToolName('files/read')).toMatch(/^files_read_[0-9a-f]{8}$/);
	});

	it('never maps two different MCP names to the same provider name', () => {
		const names = ['a.b', 'a_b', 'a/b', 'a b', 'a:b'];
		const mapped = names.map(toProviderToolName);
		expect(mapped[1]).toBe('a_b');
		expect(new Set(mapped).size).toBe(names.length);
	});

	it('shortens long names to 64 characters, keeping them distinct', () => {
		const long1 = `${'x'.repeat(70)}1`;
		const long2 = `${'x'.repeat(70)}2`;
		expect(toProviderToolName(long1)).toHaveLength(64);
		expect(toProviderToolName(long1)).toMatch(PROVIDER_NAME);
		expect(toProviderToolName(long1)).not.toBe(toProviderToolName(long2));
	});
});

describe('normalizeInputSchema', () => {
	it('adds type object and empty properties when missing, without touching the input', () => {
		const input = {};
		expect(normalizeInputSchema(input)).toEqual({ type: 'object', properties: {} });
		expect(input).toEqual({});
		expect(normalizeInputSchema(undefined)).toEqual({ type: 'object', properties: {} });
		expect(normalizeInputSchema({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
	});
});

describe('Anthropic format', () => {
	it('has name, description and input_schema (the schema as the server sent it)', () => {
		expect(toAnthropicTool(closedTool)).toEqual({ name: 'get_weather', description: 'Weather for a city', input_schema: closedTool.inputSchema });
	});

	it('maps dotted names and fills in a missing properties object', () => {
		expect(toAnthropicTool({ name: 'ns.ping', inputSchema: { type: 'object' } })).toEqual({
			name: toProviderToolName('ns.ping'),
			input_schema: { type: 'object', properties: {} },
		});
		expect(toAnthropicTool(openTool, 'custom_name').name).toBe('custom_name');
	});
});

describe('OpenAI formats', () => {
	it('Chat Completions: strict tool gets additionalProperties false everywhere and loses defaults', () => {
		const before = deepCopy(closedTool);
		const chat = toOpenAiChatTool(closedTool);
		expect(chat).toEqual({
			type: 'function',
			function: {
				name: 'get_weather',
				description: 'Weather for a city',
				strict: true,
				parameters: {
					type: 'object',
					properties: {
						city: { type: 'string', description: 'City name' },
						unit: { type: 'string', enum: ['c', 'f'] },
						where: {
							type: 'object',
							properties: { lat: { type: 'number' }, lon: { type: 'number' } },
							required: ['lat', 'lon'],
							additionalProperties: false,
						},
						tags: { type: 'array', items: { type: 'string' } },
					},
					required: ['city', 'unit', 'where', 'tags'],
					additionalProperties: false,
				},
			},
		});
		expect(closedTool).toEqual(before);
	});

	it('Chat Completions: a tool with an optional property stays non-strict with its schema unchanged', () => {
		expect(toOpenAiChatTool(openTool)).toEqual({
			type: 'function',
			function: { name: toProviderToolName('files.read'), description: 'Read a file', parameters: openTool.inputSchema, strict: false },
		});
	});

	it('Responses: flat shape with strict decided per tool', () => {
		const [strictOne, loose] = [closedTool, openTool].map((tool) => toOpenAiResponsesTool(tool));
		expect(strictOne).toMatchObject({ type: 'function', name: 'get_weather', description: 'Weather for a city', strict: true });
		expect(strictOne.parameters).toEqual(toOpenAiChatTool(closedTool).function.parameters);
		expect(loose).toEqual({ type: 'function', name: toProviderToolName('files.read'), description: 'Read a file', parameters: openTool.inputSchema, strict: false });
		expect(loose.name).toMatch(PROVIDER_NAME);
		expect(Object.keys(strictOne)).not.toContain('function');
	});

	it('omits an absent description', () => {
		const bare = { name: 'ping', inputSchema: { type: 'object' } };
		expect(toOpenAiResponsesTool(bare)).toEqual({
			type: 'function',
			name: 'ping',
			parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
			strict: true,
		});
		expect('description' in toOpenAiChatTool(bare).function).toBe(false);
	});
});

describe('toStrictSchema', () => {
	it('refuses (null) schemas whose meaning strict mode would change', () => {
		const cases: Array<Record<string, unknown>> = [
			{ type: 'object', properties: { a: { type: 'string' } } }, // optional property
			{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: true },
			{ type: 'object', properties: { a: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['a'] },
			{ type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'number' }] } }, required: ['a'] }, // unsupported keyword
			{ type: 'object', properties: { a: { type: 'string', minLength: 2 } }, required: ['a'] },
			{ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } }, required: ['a'] }, // nested optional
			{ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } }, required: ['a'] }, // tuple items
			{ type: 'object', properties: { a: true }, required: ['a'] },
		];
		for (const schema of cases) expect({ schema, strict: toStrictSchema(schema) }).toEqual({ schema, strict: null });
	});

	it('keeps anyOf, $defs and $ref, making each definition strict', () => {
		const schema = {
			type: 'object',
			$defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
			properties: { at: { $ref: '#/$defs/point' }, id: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
			required: ['at', 'id'],
		};
		expect(toStrictSchema(schema)).toEqual({
			type: 'object',
			$defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false } },
			properties: { at: { $ref: '#/$defs/point' }, id: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
			required: ['at', 'id'],
			additionalProperties: false,
		});
		const looseDef = { ...schema, $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } } };
		expect(toStrictSchema(looseDef)).toBeNull();
	});
});
