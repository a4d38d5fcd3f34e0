/**
 * MCP Call Tool and MCP List Tools glue with mocked n8n functions (no server): failures go through
 * nodes/shared/nodeErrors.ts, so both nodes give the same Continue-On-Fail item (`{ error, details? }`
 * paired to its item), keep a remote HTTP status as NodeApiError's httpCode, and carry the item
 * index; binary contents go through n8n's prepareBinaryData; an Arguments Field path follows own
 * properties only.
 */
import { ExpressionError, NodeApiError, NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import { McpFailure } from '../../lib/mcp/errors';

type Behaviour = {
	listFails?: unknown;
	call?: (name: string, args: unknown) => Record<string, unknown>;
	callNotes?: string[];
	addedSince?: string;
	freshListings?: number;
	leases?: { out: number };
};
let behaviour: Behaviour = {};
const calls: Array<{ name: string; args: unknown }> = [];

jest.mock('../../nodes/shared/serverConnection', () => ({
	...jest.requireActual('../../nodes/shared/serverConnection'),
	acquireServerConnection: async () => {
		const leases = behaviour.leases;
		if (leases) leases.out++;
		return {
			connection: { server: { name: 'fake', version: '1' }, config: { trustAnnotations: false } },
			release: async () => {
				if (leases) leases.out--;
			},
		};
	},
}));
jest.mock('../../lib/mcp/listing', () => {
	const tools = [
		{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
		{ name: 'picture', inputSchema: { type: 'object' } },
	];
	const list = async (_connection?: unknown, options?: { fresh?: boolean }) => {
		if (behaviour.listFails) throw behaviour.listFails;
		if (!options?.fresh || !behaviour.addedSince) return tools;
		// A tool the server added after the kept connection's cached listing.
		behaviour.freshListings = (behaviour.freshListings ?? 0) + 1;
		return [...tools, { name: behaviour.addedSince, inputSchema: { type: 'object' } }];
	};
	return { ...jest.requireActual('../../lib/mcp/listing'), listToolsCached: list, listAllTools: list };
});
jest.mock('../../lib/mcp/toolCall', () => ({
	...jest.requireActual('../../lib/mcp/toolCall'),
	callToolAnsweringInput: async (_connection: unknown, tool: { name: string }, args: unknown) => {
		calls.push({ name: tool.name, args });
		const result = behaviour.call?.(tool.name, args) ?? { content: [{ type: 'text', text: `echo ${JSON.stringify(args)}` }] };
		return { result, ...(behaviour.callNotes ? { notes: behaviour.callNotes } : {}) };
	},
}));

// Imported after the mocks are declared (jest hoists jest.mock, these resolve to the mocked modules).
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { McpListTools } from '../../nodes/McpListTools/McpListTools.node';

const NODE = { id: 'n', name: 'Node', type: 't', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };

function context(items: Array<Record<string, unknown>>, parameters: Record<string, unknown>, continueOnFail = false) {
	const prepared: Array<{ fileName?: string; mimeType?: string; bytes: number }> = [];
	const ctx = {
		prepared,
		getInputData: () => items.map((json) => ({ json })),
		getNode: () => ({ ...NODE, parameters }),
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		continueOnFail: () => continueOnFail,
		helpers: {
			prepareBinaryData: async (buffer: Buffer, fileName?: string, mimeType?: string) => {
				prepared.push({ fileName, mimeType, bytes: buffer.length });
				return { data: buffer.toString('base64'), mimeType: mimeType ?? '', fileName };
			},
		},
	};
	return ctx as unknown as IExecuteFunctions & { prepared: typeof prepared };
}

const callTool = (ctx: IExecuteFunctions) => executeCallTool.call(ctx);
const listTools = (ctx: IExecuteFunctions) => new McpListTools().execute.call(ctx);

beforeEach(() => {
	behaviour = {};
	calls.length = 0;
});

describe('MCP Call Tool glue', () => {
	const jsonArgs = { tool: 'echo', argumentsMode: 'json', argumentsJson: '{"text":"hi"}' };

	test('calls the tool once per item, output paired to its item', async () => {
		const [out] = await callTool(context([{}, {}], jsonArgs));
		expect(out.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(calls).toEqual([
			{ name: 'echo', args: { text: 'hi' } },
			{ name: 'echo', args: { text: 'hi' } },
		]);
	});

	test("an item's failure is a NodeOperationError with its item index, or its error item under Continue On Fail", async () => {
		const params = { ...jsonArgs, argumentsMode: 'item', argumentsField: 'args' };
		const items = [{ args: { text: 'a' } }, { other: 1 }];
		await expect(callTool(context(items, params))).rejects.toMatchObject({
			constructor: NodeOperationError,
			message: 'The input item has no field "args"',
			context: { itemIndex: 1 },
		});
		const [out] = await callTool(context(items, params, true));
		expect(out[1]).toEqual({
			json: { error: 'The input item has no field "args"', details: 'Set Arguments Field to the path of the arguments object, or leave it empty to use the whole item.' },
			pairedItem: { item: 1 },
		});
	});

	test("an Arguments Field path does not reach the prototype's members", async () => {
		const [out] = await callTool(context([{ text: 'x' }], { ...jsonArgs, argumentsMode: 'item', argumentsField: 'constructor' }, true));
		expect(out[0].json.error).toBe('The input item has no field "constructor"');
		expect(calls).toEqual([]);
	});

	test('a remote failure with an HTTP status is a NodeApiError with that status; every item fails alike under Continue On Fail', async () => {
		behaviour.listFails = new McpFailure('Server http://mcp.test/ answered 503 Service Unavailable', 'http-status', undefined, 503);
		await expect(callTool(context([{}], jsonArgs))).rejects.toMatchObject({ constructor: NodeApiError, httpCode: '503', message: expect.stringContaining('answered 503') });
		const [out] = await callTool(context([{}, {}], jsonArgs, true));
		expect(out).toEqual([0, 1].map((item) => ({ json: { error: expect.stringContaining('answered 503') }, pairedItem: { item } })));
	});

	test('images go through n8n binary data', async () => {
		behaviour.call = () => ({ content: [{ type: 'image', mimeType: 'image/png', data: Buffer.from('png!').toString('base64') }] });
		const ctx = context([{}], { tool: 'picture', argumentsMode: 'json', argumentsJson: '{}' });
		const [out] = await callTool(ctx);
		expect(ctx.prepared).toEqual([{ fileName: expect.stringMatching(/\.png$/), mimeType: 'image/png', bytes: 4 }]);
		expect(Object.keys(out[0].binary ?? {})).toHaveLength(1);
	});
});

describe('the connection is taken while the parameters are read', () => {
	test("a parameter that fails to read fails the node with n8n's own error, and gives the lease back (a kept connection must not stay in use)", async () => {
		behaviour.leases = { out: 0 };
		const ctx = context([{}], { tool: 'echo' });
		// What n8n throws for a broken expression: its description and parameter point the editor at it.
		const broken = new ExpressionError('invalid syntax', { description: 'Check the expression in Options > Timeout', parameter: 'options' });
		const failing = Object.assign(ctx, {
			getNodeParameter: (name: string) => {
				if (name === 'options') throw broken;
				return undefined;
			},
		});
		await expect(callTool(failing)).rejects.toBe(broken);
		// Given back without holding up the error: once the acquisition settles.
		await new Promise((resolve) => setImmediate(resolve));
		expect(behaviour.leases.out).toBe(0);
		expect(calls).toEqual([]);
	});

	test('a successful run gives its lease back too', async () => {
		behaviour.leases = { out: 0 };
		await callTool(context([{}], { tool: 'echo', argumentsMode: 'json', argumentsJson: '{"text":"hi"}' }));
		expect(behaviour.leases.out).toBe(0);
		expect(calls).toHaveLength(1);
	});
});

describe('a tool added since the kept connection listed', () => {
	test('is found in one fresh listing shared by the items; a tool missing from it still fails, naming the tools', async () => {
		behaviour.addedSince = 'brandNew';
		const [out] = await callTool(context([{}, {}], { tool: 'brandNew', argumentsMode: 'json', argumentsJson: '{}' }));
		expect(calls.map((c) => c.name)).toEqual(['brandNew', 'brandNew']);
		expect(out).toHaveLength(2);
		expect(behaviour.freshListings).toBe(1);
		await expect(callTool(context([{}], { tool: 'neverThere', argumentsMode: 'json', argumentsJson: '{}' }))).rejects.toMatchObject({
			message: expect.stringContaining('no tool named'),
			description: expect.stringContaining('brandNew'),
		});
	});
});

describe('MCP Call Tool notes', () => {
	test("keeps the result's own notes (binaries not stored) beside the call's (a declined input request)", async () => {
		const image = { type: 'image', mimeType: 'image/png', data: Buffer.from('png!').toString('base64') };
		behaviour.call = () => ({ content: Array.from({ length: 33 }, () => image) });
		behaviour.callNotes = ['The server asked for input; declined.'];
		const [out] = await callTool(context([{}], { tool: 'picture', argumentsMode: 'json', argumentsJson: '{}' }));
		expect(out[0].json.notes).toEqual([expect.stringContaining('not stored'), 'The server asked for input; declined.']);
	});
});

describe('MCP List Tools glue', () => {
	test('lists the tools, paired to the item', async () => {
		const [out] = await listTools(context([{}], { operation: 'listTools' }));
		expect(out.map((item: INodeExecutionData) => [item.json.name, item.pairedItem])).toEqual([
			['echo', { item: 0 }],
			['picture', { item: 0 }],
		]);
	});

	test('the same Continue-On-Fail item as Call Tool, with details', async () => {
		behaviour.listFails = new McpFailure('Local command "srv" exited with code 1', 'process-exited', 'boom on stderr');
		const [out] = await listTools(context([{}], { operation: 'listTools' }, true));
		expect(out).toEqual([{ json: { error: 'Local command "srv" exited with code 1', details: 'Last output of the server:\nboom on stderr' }, pairedItem: { item: 0 } }]);
		await expect(listTools(context([{}], { operation: 'listTools' }))).rejects.toMatchObject({ constructor: NodeOperationError, context: { itemIndex: 0 } });
	});

	test('a remote failure with an HTTP status is a NodeApiError', async () => {
		behaviour.listFails = new McpFailure('Server http://mcp.test/ rejected the credentials (401)', 'unauthorized', undefined, 401);
		await expect(listTools(context([{}], { operation: 'listTools' }))).rejects.toMatchObject({ constructor: NodeApiError, httpCode: '401' });
	});
});
