import { checkToolOutput } from '../../lib/mcp/toolOutput';

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
