import { Workflow, createRunExecutionData, type INodeExecutionData, type INodeTypes } from 'n8n-workflow';
import { itemParameter } from '../../nodes/shared/itemParameter';
import { parseItemExpression } from '../../nodes/shared/itemPathMapping';
import { serverConfigForNode } from '../../nodes/shared/serverConnection';

// n8n's own parameter resolution (n8n-workflow's WorkflowExpression, legacy engine) stands behind
// the fake context, so every fast-path result is compared with what n8n itself returns.
const nodeTypes = {
	getByName: () => ({ description: { properties: [] } }),
	getByNameAndVersion: () => ({ description: { properties: [], inputs: ['main'], outputs: ['main'] } }),
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;

function n8nContext(parameters: Record<string, unknown>, items: INodeExecutionData[]) {
	const workflow = new Workflow({
		id: 'w',
		name: 'w',
		nodes: [{ id: 'n', name: 'Call', type: 'test.call', typeVersion: 1, position: [0, 0], parameters: parameters as never }],
		connections: {},
		active: false,
		nodeTypes,
	});
	const runData = createRunExecutionData();
	const reads: Array<[string, number]> = [];
	const resolve = (name: string, itemIndex: number) =>
		workflow.expression.getParameterValue(parameters[name] as never, runData, 0, itemIndex, 'Call', items, 'manual', {});
	const context = {
		getNode: () => ({ parameters }),
		getInputData: () => items,
		getNodeParameter: (name: string, itemIndex: number) => {
			reads.push([name, itemIndex]);
			return resolve(name, itemIndex);
		},
	};
	return { context: context as never, reads, resolve };
}

const items: INodeExecutionData[] = [
	{ json: { message: 'hi', n: 3, flag: true, nothing: null, 'my field': 'spaced', nested: { list: [1, { deep: 'd' }] } } },
	{ json: { message: 'second', n: -0.5, flag: false, nothing: null, 'my field': '', nested: { list: [2, { deep: 'e' }] } } },
	// Missing and non-plain values: n8n evaluates these itself.
	{ json: { n: 1, flag: true, nothing: null, 'my field': 'x', nested: { list: [] } } },
	{ json: { message: { not: 'plain' }, n: 2, flag: false, nothing: null, 'my field': 'y', nested: { list: [3, { deep: 4 }] } } },
];

describe('one copy of the node per node run', () => {
	it("several parameter readers and the server credential's id take n8n's node copy once", () => {
		let copies = 0;
		const node = { parameters: { tool: 'echo', argumentsMode: 'json' }, credentials: { mcpServerHttpApi: { id: 'c1', name: 'Server' } } };
		const context = {
			getNode: () => {
				copies++;
				return structuredClone(node);
			},
			getInputData: () => items,
			getNodeParameter: (name: string) => (node.parameters as Record<string, unknown>)[name],
		} as never;
		const tool = itemParameter(context, 'tool', '');
		const mode = itemParameter(context, 'argumentsMode', '');
		itemParameter(context, 'argumentsField', '');
		const config = serverConfigForNode(context, 'mcpServerHttpApi', { url: 'http://127.0.0.1:1/mcp' });
		expect([tool(0), mode(0)]).toEqual(['echo', 'json']);
		expect(config.pooling?.key).toEqual(expect.any(String));
		expect(copies).toBe(1);
	});
});

describe('itemParameter', () => {
	it('resolves a parameter without expressions once', () => {
		const { context, reads } = n8nContext({ tool: { __rl: true, mode: 'list', value: 'echo' } }, items);
		const tool = itemParameter<unknown>(context, 'tool', '');
		expect([tool(0), tool(1), tool(2)]).toEqual([{ __rl: true, mode: 'list', value: 'echo' }, { __rl: true, mode: 'list', value: 'echo' }, { __rl: true, mode: 'list', value: 'echo' }]);
		expect(reads).toEqual([['tool', 0]]);
	});

	it('reads plain $json paths from the item, with the same result as n8n, and leaves the rest to n8n', () => {
		const parameters = {
			arguments: {
				mappingMode: 'defineBelow',
				value: {
					message: '={{ $json.message }}',
					count: '={{ $json.n }}',
					flag: '={{$json.flag}}',
					nothing: '={{ $json.nothing }}',
					spaced: "={{ $json['my field'] }}",
					quoted: '={{ $json["my field"] }}',
					deep: '={{ $json.nested.list[1].deep }}',
					first: '={{ $json.nested.list[0] }}',
					constant: 'plain text',
					number: 7,
				},
				matchingColumns: [],
				schema: [{ id: 'message', type: 'string', display: true }],
			},
		};
		const { context, reads, resolve } = n8nContext(parameters, items);
		const args = itemParameter<unknown>(context, 'arguments', {});
		for (let i = 0; i < items.length; i++) expect(args(i)).toEqual(resolve('arguments', i));
		// Items 0 and 1 resolve fully from the item; 2 (no message, empty list) and 3 (an object) go to n8n.
		expect(reads).toEqual([
			['arguments', 2],
			['arguments', 3],
		]);
		// n8n's answer for those is kept as n8n gives it.
		expect((args(2) as { value: Record<string, unknown> }).value.message).toBeUndefined();
		expect((args(3) as { value: Record<string, unknown> }).value.message).toEqual({ not: 'plain' });
	});

	it('gives each item its own copy of the structure', () => {
		const { context } = n8nContext({ arguments: { value: { message: '={{ $json.message }}' } } }, items);
		const args = itemParameter<{ value: Record<string, unknown> }>(context, 'arguments', { value: {} });
		const first = args(0);
		first.value.message = 'changed';
		expect(args(0).value.message).toBe('hi');
	});

	it('leaves every other expression to n8n, item by item', () => {
		const { context, reads, resolve } = n8nContext(
			{ arguments: { value: { message: '={{ $json.message.toUpperCase() }}', other: '={{ $json.message }}' } }, text: '=Hello {{ $json.message }}' },
			items.slice(0, 2),
		);
		const args = itemParameter<unknown>(context, 'arguments', {});
		const text = itemParameter<unknown>(context, 'text', '');
		expect([args(0), args(1), text(0), text(1)]).toEqual([resolve('arguments', 0), resolve('arguments', 1), 'Hello hi', 'Hello second']);
		expect(reads).toEqual([
			['arguments', 0],
			['arguments', 1],
			['text', 0],
			['text', 1],
		]);
	});

	it('reads a ?? chain of item paths from the item, and leaves the item to n8n when none is present', () => {
		const { context, reads, resolve } = n8nContext({ text: '={{ $json.missing ?? $json.nothing ?? $json.nested?.list[1]?.deep ?? $json.message }}' }, items);
		const text = itemParameter<unknown>(context, 'text', '');
		const values = items.map((_, i) => text(i));
		expect(values).toEqual(['d', 'e', undefined, 4]);
		// Item 2 (an empty list, no message) is n8n's; the others are read from the item.
		expect(reads).toEqual([['text', 2]]);
		expect(values).toEqual(items.map((_, i) => resolve('text', i)));
	});

	it('accepts only property paths', () => {
		const plain = (expression: string) => parseItemExpression(expression)?.map((path) => path.map((step) => step.key));
		expect(plain('={{ $json.message }}')).toEqual([['message']]);
		expect(plain("={{ $json['a b'][0].c }}")).toEqual([['a b', '0', 'c']]);
		expect(plain('={{$json["x"]}}')).toEqual([['x']]);
		expect(plain('={{ $json }}')).toEqual([[]]);
		for (const other of [
			'{{ $json.message }}',
			'= {{ $json.message }}',
			'={{ $json.message }} ',
			'={{ $json.message }}{{ $json.n }}',
			'=x{{ $json.message }}',
			'={{ $json.message.trim() }}',
			'={{ $json[key] }}',
			"={{ $json['a\\'b'] }}",
			'={{ $json.constructor }}',
			'={{ $json.__proto__ }}',
			"={{ $json['__proto__'] }}",
			'={{ $json.a.prototype }}',
			'={{ $input.item.json.message }}',
			'={{ $("Node").item.json.message }}',
			'={{ $json.message || "x" }}',
		]) {
			expect(parseItemExpression(other)).toBeUndefined();
		}
	});
});
