import { Workflow, createRunExecutionData, type INodeExecutionData, type INodeTypes } from 'n8n-workflow';
import { compileItemMapping, NEEDS_N8N, parseItemExpression } from '../../nodes/shared/itemPathMapping';

// n8n's own evaluation (n8n-workflow's legacy engine) is the reference: whatever the fast path
// reads must be what n8n gives for the same expression and item.
const nodeTypes = {
	getByName: () => ({ description: { properties: [] } }),
	getByNameAndVersion: () => ({ description: { properties: [], inputs: ['main'], outputs: ['main'] } }),
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;
const workflow = new Workflow({
	id: 'w',
	name: 'w',
	nodes: [{ id: 'n', name: 'Agent', type: 'test.agent', typeVersion: 1, position: [0, 0], parameters: {} }],
	connections: {},
	active: false,
	nodeTypes,
});
function n8nValue(expression: string, json: Record<string, unknown>): unknown {
	const items: INodeExecutionData[] = [{ json: json as never }];
	return workflow.expression.getParameterValue(expression, createRunExecutionData(), 0, 0, 'Agent', items, 'manual', {});
}

const read = (expression: string, json: unknown) => compileItemMapping(expression)!(json);
const DEFAULT_MESSAGE = '={{ $json.chatInput ?? $json.message ?? $json.body?.message }}';

describe('item paths joined by ?? and with ?.', () => {
	it('parses alternatives, optional steps and whitespace around ?? and inside the braces', () => {
		expect(parseItemExpression(DEFAULT_MESSAGE)).toEqual([
			[{ key: 'chatInput', optional: false }],
			[{ key: 'message', optional: false }],
			[
				{ key: 'body', optional: false },
				{ key: 'message', optional: true },
			],
		]);
		expect(parseItemExpression("={{$json['a b']?.[0]??$json.x}}")).toEqual([
			[
				{ key: 'a b', optional: false },
				{ key: '0', optional: true },
			],
			[{ key: 'x', optional: false }],
		]);
		expect(parseItemExpression('={{\n\t$json?.a  ??\n $json["b"] \n}}')).toEqual([[{ key: 'a', optional: true }], [{ key: 'b', optional: false }]]);
	});

	it('reads the first alternative that is neither null nor undefined, as JavaScript does', () => {
		expect(read(DEFAULT_MESSAGE, { chatInput: 'chat', message: 'm', body: { message: 'b' } })).toBe('chat');
		expect(read(DEFAULT_MESSAGE, { chatInput: null, body: { message: 'from webhook' } })).toBe('from webhook');
		expect(read(DEFAULT_MESSAGE, { message: 'm' })).toBe('m');
		// `??` keeps empty strings, zero and false: only null and undefined move on.
		expect(read(DEFAULT_MESSAGE, { chatInput: '', message: 'm' })).toBe('');
		expect(read('={{ $json.n ?? $json.x }}', { n: 0, x: 1 })).toBe(0);
		expect(read('={{ $json.f ?? $json.x }}', { f: false, x: true })).toBe(false);
		expect(read("={{ $json['a b']?.[0] ?? $json.x }}", { 'a b': ['first'], x: 'x' })).toBe('first');
		expect(read("={{ $json['a b']?.[0] ?? $json.x }}", { 'a b': [], x: 'x' })).toBe('x');
		expect(read("={{ $json['a b']?.[0] ?? $json.x }}", { x: 'x' })).toBe('x');
	});

	it('short-circuits at ?. on null or undefined, and leaves the whole expression to n8n where a plain access would throw', () => {
		expect(read('={{ $json.body?.message.text ?? $json.x }}', { body: null, x: 'x' })).toBe('x');
		expect(read('={{ $json.body?.message.text ?? $json.x }}', { body: {}, x: 'x' })).toBe(NEEDS_N8N);
		expect(read('={{ $json.body.message ?? $json.x }}', { x: 'x' })).toBe(NEEDS_N8N);
		expect(read('={{ $json.body.message ?? $json.x }}', { body: null, x: 'x' })).toBe(NEEDS_N8N);
		// Later alternatives are not evaluated once one is present, as in JavaScript.
		expect(read('={{ $json.x ?? $json.body.message }}', { x: 'x' })).toBe('x');
	});

	it("reads only present strings, finite numbers and booleans; null from ?? or ?. is n8n's", () => {
		expect(read(DEFAULT_MESSAGE, {})).toBe(NEEDS_N8N);
		expect(read(DEFAULT_MESSAGE, { chatInput: null, message: null })).toBe(NEEDS_N8N);
		expect(read('={{ $json.a ?? $json.b }}', { a: null, b: null })).toBe(NEEDS_N8N);
		expect(read('={{ $json.a?.b }}', { a: { b: null } })).toBe(NEEDS_N8N);
		expect(read('={{ $json.a ?? $json.b }}', { a: { nested: 1 } })).toBe(NEEDS_N8N);
		expect(read('={{ $json.a ?? $json.b }}', { a: ['x'] })).toBe(NEEDS_N8N);
		expect(read('={{ $json.a ?? $json.b }}', { a: NaN })).toBe(NEEDS_N8N);
		// A single plain path reads null as before.
		expect(read('={{ $json.a }}', { a: null })).toBeNull();
	});

	it("leaves members that are not the item's own data to n8n instead of skipping them", () => {
		expect(read('={{ $json.s.length ?? $json.x }}', { s: 'abc', x: 1 })).toBe(NEEDS_N8N);
		expect(read('={{ $json.o.toString ?? $json.x }}', { o: {}, x: 1 })).toBe(NEEDS_N8N);
		expect(read('={{ $json.o?.hasOwnProperty ?? $json.x }}', { o: {}, x: 1 })).toBe(NEEDS_N8N);
		expect(read('={{ $json.list.length ?? $json.x }}', { list: [1, 2], x: 1 })).toBe(2);
	});

	it('refuses guarded keys in any alternative', () => {
		for (const guarded of [
			'={{ $json.a ?? $json.constructor }}',
			'={{ $json?.__proto__ ?? $json.a }}',
			"={{ $json.a?.['__proto__'] }}",
			'={{ $json.a ?? $json.b?.prototype }}',
			'={{ $json?.constructor }}',
		]) {
			expect(parseItemExpression(guarded)).toBeUndefined();
		}
	});

	it('leaves every other form to n8n', () => {
		for (const other of [
			'={{ $json.a || $json.b }}',
			'={{ $json.a ?? "text" }}',
			'={{ $json.a ?? }}',
			'={{ ?? $json.a }}',
			'={{ $json.a ? ? $json.b }}',
			'={{ $json.a ?. b }}',
			'={{ $json ?.a }}',
			'={{ $json.a?.0 }}',
			'={{ $json.a?.b() }}',
			'={{ ($json.a ?? $json.b) }}',
			'={{ $json.a ?? $json.b }} ',
			'=Hi {{ $json.a ?? $json.b }}',
			'={{ $json.a }} {{ $json.b }}',
			'={{ $json.a ?? $input.item.json.b }}',
			'={{ $json.a ?? $("Node").item.json.b }}',
			'={{ $jsonx ?? $json.a }}',
			"={{ $json['}}'] }}",
			'={{ $json.list[01] }}',
			'={{ $json.a ?? $json.b ?? }}',
			'{{ $json.a ?? $json.b }}',
		]) {
			expect(parseItemExpression(other)).toBeUndefined();
			if (other.startsWith('=')) expect(compileItemMapping(other)).toBeUndefined();
		}
	});

	it('gives what n8n gives whenever it reads a value', () => {
		const expressions = [
			DEFAULT_MESSAGE,
			'={{ $json.body?.message }}',
			"={{ $json['a b']?.[0] ?? $json.x }}",
			'={{ $json.body?.message.text ?? $json.x }}',
			'={{ $json.x ?? $json.body.message }}',
			'={{ $json?.chatInput ?? $json.list?.[1] ?? $json.n }}',
			'={{ $json.list.length ?? $json.x }}',
		];
		const jsons: Array<Record<string, unknown>> = [
			{ chatInput: 'chat' },
			{ chatInput: null, message: 'message', x: 'x' },
			{ body: { message: 'hook', text: 't' }, x: 0 },
			{ body: { message: { text: 'deep' } }, x: false },
			{ body: null, 'a b': [null, 2], x: 'x', n: 5 },
			{ 'a b': ['A'], list: ['l0', 'l1'], n: 1.5 },
			{ chatInput: '', list: [], x: 'x' },
		];
		let read = 0;
		for (const expression of expressions) {
			const mapping = compileItemMapping(expression)!;
			for (const json of jsons) {
				const value = mapping(json);
				if (value === NEEDS_N8N) continue;
				read++;
				expect([expression, JSON.stringify(json), value]).toEqual([expression, JSON.stringify(json), n8nValue(expression, json)]);
			}
		}
		expect(read).toBeGreaterThan(20);
	});
});
