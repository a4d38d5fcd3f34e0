import { mapWithConcurrency } from '../../lib/util/mapWithConcurrency';

/** A promise the test settles by hand, so completion order is chosen, not timed. */
interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(error: Error): void;
}
function deferred<T>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (error: Error) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Runs `mapWithConcurrency` over `count` hand-settled tasks and records what is in flight. */
function harness(count: number, limit: number) {
	const tasks = Array.from({ length: count }, () => deferred<string>());
	const started: number[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const result = mapWithConcurrency(
		tasks.map((_, i) => `item${i}`),
		limit,
		async (item, index) => {
			started.push(index);
			inFlight += 1;
			maxInFlight = Math.max(maxInFlight, inFlight);
			try {
				return `${item}:${await tasks[index].promise}`;
			} finally {
				inFlight -= 1;
			}
		},
	);
	return { tasks, started, result, inFlight: () => inFlight, maxInFlight: () => maxInFlight };
}

describe('mapWithConcurrency', () => {
	it('keeps input order whatever order the work finishes in', async () => {
		const run = harness(5, 5);
		await settle();
		for (const i of [3, 0, 4, 2, 1]) {
			run.tasks[i].resolve(`done${i}`);
			await settle();
		}
		expect(await run.result).toEqual(['item0:done0', 'item1:done1', 'item2:done2', 'item3:done3', 'item4:done4']);
	});

	it('never has more than `limit` in flight, and starts the next item as soon as one finishes', async () => {
		const run = harness(6, 2);
		await settle();
		expect(run.started).toEqual([0, 1]);
		expect(run.inFlight()).toBe(2);

		run.tasks[1].resolve('b');
		await settle();
		expect(run.started).toEqual([0, 1, 2]);
		expect(run.inFlight()).toBe(2);

		run.tasks[0].resolve('a');
		run.tasks[2].resolve('c');
		await settle();
		expect(run.started).toEqual([0, 1, 2, 3, 4]);

		for (const i of [4, 3, 5]) {
			run.tasks[i].resolve(String(i));
			await settle();
		}
		expect(await run.result).toEqual(['item0:a', 'item1:b', 'item2:c', 'item3:3', 'item4:4', 'item5:5']);
		expect(run.maxInFlight()).toBe(2);
		expect(run.started).toEqual([0, 1, 2, 3, 4, 5]);
	});

	it('runs one at a time for limit 1 and treats odd limits as at least 1', async () => {
		for (const limit of [1, 0, -3, Number.NaN, 1.9]) {
			const order: string[] = [];
			const results = await mapWithConcurrency(['a', 'b', 'c'], limit, async (item) => {
				order.push(`start ${item}`);
				await settle();
				order.push(`end ${item}`);
				return item.toUpperCase();
			});
			expect({ limit, results, order }).toEqual({
				limit,
				results: ['A', 'B', 'C'],
				order: ['start a', 'end a', 'start b', 'end b', 'start c', 'end c'],
			});
		}
	});

	it('passes the index, and handles a limit above the item count and an empty list', async () => {
		expect(await mapWithConcurrency(['x', 'y'], 10, async (item, index) => `${index}${item}`)).toEqual(['0x', '1y']);
		const worker = jest.fn(async () => 1);
		expect(await mapWithConcurrency([], 4, worker)).toEqual([]);
		expect(worker).not.toHaveBeenCalled();
	});

	it('rejects with the first failure and starts no new work after it', async () => {
		const run = harness(5, 2);
		await settle();
		run.tasks[0].reject(new Error('boom on item0'));
		await expect(run.result).rejects.toThrow('boom on item0');
		run.tasks[1].resolve('late');
		await settle();
		expect(run.started).toEqual([0, 1]);
	});
});
