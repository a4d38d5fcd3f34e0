import { checkedTools } from '../../lib/mcp/listing';
import { cachedToolList } from '../../lib/providers/shared';

describe('tools/list results taken without the SDK parse', () => {
	it('keeps named tools, defaults a missing schema, and passes the cursor on', () => {
		const result = checkedTools({ tools: [{ name: 'a', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }, { name: '' }, { description: 'no name' }, { name: 'b', inputSchema: 'oops' }], nextCursor: 'c2' });
		expect(result).toEqual({
			tools: [
				{ name: 'a', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
				{ name: 'b', inputSchema: { type: 'object' } },
			],
			nextCursor: 'c2',
		});
	});

	it('refuses a result without a tools array', () => {
		expect(() => checkedTools({ result: [] })).toThrow(/without a "tools" array/);
	});
});

describe('cachedToolList', () => {
	it('converts a catalog once per variant', () => {
		const tools = [] as never[];
		let builds = 0;
		const build = () => (builds++, [{ x: 1 }]);
		const first = cachedToolList(tools, 'v', build);
		expect(cachedToolList(tools, 'v', build)).toBe(first);
		cachedToolList(tools, 'w', build);
		expect(builds).toBe(2);
	});
});
