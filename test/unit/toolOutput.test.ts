import { checkToolOutput } from '../../lib/mcp/toolOutput';
import { callInteractively, type CallChannel } from '../../lib/mcp/interactiveCall';


/** A call channel over a fake client: no redaction, no legacy input, a 1 s request timeout. */
function channelOver(client: unknown, extra: Partial<CallChannel> = {}): CallChannel {
	return {
		knownTools: new Map(),
		config: { requestTimeoutMs: 1000 } as never,
		isModern: false,
		redact: { active: false, text: (value) => value, value: (value) => value },
		request: (_phase, run) => run(client as never),
		requestUnredacted: (_phase, run) => run(client as never),
		trackLegacyInput: (call) => call().then((value) => ({ value })),
		...extra,
	};
}

describe('checkToolOutput', () => {
	const tool = { name: 'weather', outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] } };

	it('accepts structured content that matches the output schema, and tools without one', () => {
		expect(() => checkToolOutput(tool, { content: [], structuredContent: { temp: 21 } })).not.toThrow();
		expect(() => checkToolOutput({ name: 'plain' }, { content: [] })).not.toThrow();
		expect(() => checkToolOutput(tool, { content: [], isError: true })).not.toThrow();
	});

	it('rejects missing or mismatching structured content', () => {
		expect(() => checkToolOutput(tool, { content: [] })).toThrow(/did not return structured content/);
		expect(() => checkToolOutput(tool, { content: [], structuredContent: { temp: 'warm' } })).toThrow(/does not match the tool's output schema: \/temp must be number/);
	});
});

describe('calls on a 2025-era connection', () => {
	// The client would otherwise look the tool up in its cached tools/list on every call and check
	// results with its own validator: it gets the listed input schema only, and the check is ours.
	it('give the client the listed tool without its output schema, and check the result themselves', async () => {
		const tool = { name: 'weather', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] } };
		const seen: Array<Record<string, unknown> | undefined> = [];
		let answer: Record<string, unknown> = { content: [], structuredContent: { temp: 21 } };
		const client = {
			callTool: async (_params: unknown, options?: Record<string, unknown>) => {
				seen.push(options);
				return answer;
			},
		};
		const channel = channelOver(client, { knownTools: new Map([['weather', tool as never]]) });
		expect(await callInteractively(channel, 'weather', {}, { timeoutMs: 500, publicOnly: true })).toEqual({ kind: 'result', result: answer });
		expect(seen[0]).toEqual({ timeout: 500, toolDefinition: { name: 'weather', inputSchema: { type: 'object' } } });
		answer = { content: [], structuredContent: { temp: 'warm' } };
		await expect(callInteractively(channel, 'weather', {}, {})).rejects.toThrow(/does not match the tool's output schema: \/temp must be number/);
		// A tool the connection never listed: the client is given nothing, as before.
		await callInteractively(channel, 'other', {}, {});
		expect(seen[2]).toEqual({ timeout: 1000 });
	});

	it('keeps an input request keyed "__proto__" as a request for a person', async () => {
		const answer = JSON.parse('{"resultType":"input_required","inputRequests":{"__proto__":{"method":"elicitation/create","params":{"message":"Confirm?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}');
		const client = { callTool: async () => answer };
		const channel = channelOver(client, { isModern: true });
		const outcome = await callInteractively(channel, 't', {}, {});
		expect(outcome.kind).toBe('input_required');
		expect(Object.keys((outcome as { inputRequests: Record<string, unknown> }).inputRequests)).toEqual(['__proto__']);
	});
});
