/**
 * A promise awaited later, perhaps never (when an earlier step fails first): its rejection counts
 * as handled now, and still rejects the await that comes later.
 */
export function awaitedLater<T>(promise: Promise<T>): Promise<T> {
	promise.catch(() => undefined);
	return promise;
}
