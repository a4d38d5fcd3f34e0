import * as path from 'node:path';
import type { IExecuteFunctions, ILoadOptionsFunctions, INodeExecutionData } from 'n8n-workflow';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { getToolArgumentFields } from '../../nodes/shared/toolPicker';
import { FIXTURES_DIR } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * MCP Call Tool in "Fields From the Tool Schema" mode against a server whose tools describe their
 * arguments as the Python SDK does (Pydantic models in `$defs`, fixtures/pydantic-server.js on the
 * SDK's server package): the resource mapper's fields are typed by what the `$ref`s stand for, and
 * JSON typed into a model's field reaches the server as an object (issue 26, point 2).
 */
function context(tool: string, values: Record<string, unknown>, continueOnFail = false): IExecuteFunctions & ILoadOptionsFunctions {
	const parameters: Record<string, unknown> = {
		connection: 'stdio',
		tool: { mode: 'list', value: tool },
		argumentsMode: 'fields',
		arguments: { mappingMode: 'defineBelow', value: values, matchingColumns: [], schema: [] },
		options: {},
	};
	const items: INodeExecutionData[] = [{ json: {} }];
	const node = { id: 'n1', name: 'MCP Call Tool', type: 'mcpCallTool', typeVersion: 1, position: [0, 0], parameters };
	return {
		getInputData: () => items,
		getNode: () => node,
		// (name, itemIndex, fallback, options) when executing; (name, fallback, options) when loading options.
		getNodeParameter: (name: string, ...rest: unknown[]) => {
			const [fallback, extra] = (typeof rest[0] === 'number' ? rest.slice(1) : rest) as [unknown, { extractValue?: boolean } | undefined];
			const value = parameters[name] ?? fallback;
			return extra?.extractValue && value && typeof value === 'object' ? (value as { value: unknown }).value : value;
		},
		getCredentials: async () => ({ command: process.execPath, args: JSON.stringify([path.join(FIXTURES_DIR, 'pydantic-server.js'), 'stdio']) }),
		continueOnFail: () => continueOnFail,
		helpers: { prepareBinaryData: async () => ({}) },
	} as unknown as IExecuteFunctions & ILoadOptionsFunctions;
}

const received = (text: unknown) => JSON.parse(String(text).replace(/^received: /, '')) as unknown;

describe('MCP Call Tool, fields from a Pydantic tool schema (a real server on @modelcontextprotocol/server)', () => {
	it('the resource mapper offers models and lists as JSON fields and the enum as options', async () => {
		const { fields } = await getToolArgumentFields.call(context('create_order', {}));
		expect(fields.map((f) => [f.id, f.type, f.required])).toEqual([
			['customer', 'object', true],
			['items', 'array', true],
			['color', 'options', true],
			['shipping', 'object', false],
			['gift', 'boolean', false],
			['note', 'string', false],
		]);
		expect(fields[2].options).toEqual([
			{ name: 'red', value: 'red' },
			{ name: 'green', value: 'green' },
			{ name: 'blue', value: 'blue' },
		]);
	});

	it('create_order with the customer, shipping and items typed as JSON text: the server receives objects', async () => {
		const values = {
			customer: '{"name": "Ada", "email": "ada@example.com", "address": {"street": "1 Loop Rd", "city": "Lisboa"}}',
			items: '[{"sku": "A-1", "quantity": 2, "color": "blue"}]',
			color: 'green',
			shipping: '{"street": "2 Side St", "city": "Porto"}',
			note: null,
		};
		const [[item]] = await executeCallTool.call(context('create_order', values));
		expect(item.json).toMatchObject({ tool: 'create_order', isError: false });
		expect(received(item.json.text)).toEqual({
			customer: { name: 'Ada', email: 'ada@example.com', address: { street: '1 Loop Rd', city: 'Lisboa' } },
			items: [{ sku: 'A-1', quantity: 2, color: 'blue' }],
			color: 'green',
			shipping: { street: '2 Side St', city: 'Porto' },
		});
	});

	it('a recursive model (plant_tree) typed as JSON text reaches the server as a tree', async () => {
		const [[item]] = await executeCallTool.call(context('plant_tree', { root: '{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}' }));
		expect(received(item.json.text)).toEqual({ root: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } });
	});

	it('a customer that does not fit the model is refused before the call, naming the field', async () => {
		const [[item]] = await executeCallTool.call(context('create_order', { customer: '{"name": "Ada"}', items: '[]', color: 'red' }, true));
		expect(String(item.json.error)).toContain('arguments.customer.email is required');
	});
});
