import { itemParameter } from '../../nodes/shared/itemParameter';

function fakeContext(parameters: Record<string, unknown>) {
	const reads: Array<[string, number]> = [];
	const context = {
		getNode: () => ({ parameters }),
		getNodeParameter: (name: string, itemIndex: number) => {
			reads.push([name, itemIndex]);
			return `${name}@${itemIndex}`;
		},
	};
	return { context: context as never, reads };
}

describe('itemParameter', () => {
	it('resolves a parameter without expressions once', () => {
		const { context, reads } = fakeContext({ tool: { __rl: true, mode: 'list', value: 'echo' } });
		const tool = itemParameter<string>(context, 'tool', '');
		expect([tool(0), tool(1), tool(2)]).toEqual(['tool@0', 'tool@0', 'tool@0']);
		expect(reads).toEqual([['tool', 0]]);
	});

	it('resolves per item when an expression appears anywhere inside', () => {
		const { context, reads } = fakeContext({ arguments: { value: { a: '={{ $json.a }}', b: 3 } } });
		const args = itemParameter<string>(context, 'arguments', '');
		expect([args(0), args(1)]).toEqual(['arguments@0', 'arguments@1']);
		expect(reads).toHaveLength(2);
	});
});
