/**
 * Runs `worker` over `items` with at most `limit` in flight and returns results in input order,
 * whatever order they finish in.
 */
export async function mapWithConcurrency<T, R>(
	items: readonly T[],
	limit: number,
	worker: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(items.length);
	const lanes = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
	let next = 0;
	const run = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await worker(items[index], index);
		}
	};
	await Promise.all(Array.from({ length: lanes }, run));
	return results;
}
