import { mapYielding } from '../../lib/util/yielding';

describe('mapYielding', () => {
	it('computes every item in order and lets the event loop run between slices', async () => {
		const ticks: number[] = [];
		let done = 0;
		const timer = setInterval(() => ticks.push(done), 0);
		// Each item takes about 2 ms: with 5 ms slices, the timer runs several times before the end.
		const busy = (n: number) => {
			const until = performance.now() + 2;
			while (performance.now() < until);
			done++;
			return n * 2;
		};
		const results = await mapYielding([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], busy, 5);
		clearInterval(timer);
		expect([...results.entries()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, n * 2]));
		expect(ticks.filter((at) => at > 0 && at < 10).length).toBeGreaterThan(0);
	});
});
