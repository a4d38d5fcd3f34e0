import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { callToolOnLegacySession, toolResultValidator } from '../../lib/mcp/legacyToolCall';

/**
 * A 2025-era server on an in-memory pair that answers tools/call with whatever the test gives it:
 * the client's own validation is what is under test, so no SDK server sits in between.
 */
async function clientAnswering(result: () => unknown): Promise<{ client: Client; calls: unknown[] }> {
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	const calls: unknown[] = [];
	serverSide.onmessage = (message: JSONRPCMessage) => {
		const request = message as { id?: number; method?: string; params?: unknown };
		if (request.id === undefined) return;
		if (request.method === 'initialize') {
			void serverSide.send({
				jsonrpc: '2.0',
				id: request.id,
				result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fixed', version: '1' } },
			});
		} else if (request.method === 'tools/call') {
			calls.push(request.params);
			void serverSide.send({ jsonrpc: '2.0', id: request.id, result: result() as Record<string, unknown> });
		}
	};
	await serverSide.start();
	const client = new Client({ name: 'test', version: '1' });
	await client.connect(clientSide);
	return { client, calls };
}

const CALL = { name: 'echo', arguments: { message: 'hi' } };

describe('tools/call on a 2025-era session (legacyToolCall)', () => {
	it("reaches the pinned SDK client's own result validator (fails when an SDK update removes it)", async () => {
		const { client } = await clientAnswering(() => ({ content: [] }));
		expect(toolResultValidator(client)).not.toBeNull();
		expect(toolResultValidator(client)).toBe(toolResultValidator(client));
		await client.close();
	});

	it('sends one request and returns the validated result, as callTool does (a result without content gains an empty one)', async () => {
		const { client, calls } = await clientAnswering(() => ({ structuredContent: { n: 1 } }));
		const callTool = jest.spyOn(client, 'callTool');
		const ours = await callToolOnLegacySession(client, CALL, {}, undefined);
		const sdk = await client.callTool(CALL);
		expect(ours).toEqual({ content: [], structuredContent: { n: 1 } });
		expect(ours).toEqual(sdk);
		expect(calls).toEqual([CALL, CALL]);
		expect(callTool).toHaveBeenCalledTimes(1);
		await client.close();
	});

	it.each([
		['content that is not a list', { content: 'not a list' }],
		['a foreign result family without content', { task: { taskId: 't1', status: 'working' } }],
		['structured content that is not an object', { content: [], structuredContent: 'text' }],
	])('refuses a result with %s, with the error callTool gives', async (_label, bad) => {
		const { client } = await clientAnswering(() => bad);
		const ours = await callToolOnLegacySession(client, CALL, { timeout: 5000 }, undefined).catch((error: Error) => error);
		const sdk = await client.callTool(CALL, { timeout: 5000 }).catch((error: Error) => error);
		expect(ours).toBeInstanceOf(Error);
		expect(sdk).toBeInstanceOf(Error);
		expect((ours as Error).message).toMatch(/^Invalid result for tools\/call: /);
		expect((ours as Error).message).toBe((sdk as Error).message);
		await client.close();
	});

	it("falls back to callTool, with the tool's definition, on a client that does not expose its codec", async () => {
		const definition = { name: 'echo', inputSchema: { type: 'object' as const } };
		const client = { callTool: jest.fn(async () => ({ content: [] })), request: jest.fn() } as unknown as Client;
		await expect(callToolOnLegacySession(client, CALL, { timeout: 5 }, definition)).resolves.toEqual({ content: [] });
		expect(client.callTool).toHaveBeenCalledWith(CALL, { timeout: 5, toolDefinition: definition });
		expect(client.request).not.toHaveBeenCalled();
	});
});
