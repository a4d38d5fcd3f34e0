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
	// After a failure no lane starts new work: the caller is about to tear down shared resources.
	let failed = false;
	const run = async () => {
		while (!failed && next < items.length) {
			const index = next++;
			try {
				results[index] = await worker(items[index], index);
			} catch (error) {
				failed = true;
				throw error;
			}
		}
	};
	await Promise.all(Array.from({ length: lanes }, run));
	return results;
}
