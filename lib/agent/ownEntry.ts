/**
 * `record[key] = value` as an own data property, also for a key such as "__proto__", which a plain
 * assignment would take as the prototype. Call ids come from the model, and outcomes and durations
 * are records keyed by them.
 */
export function setEntry<T>(record: Record<string, T>, key: string, value: T): void {
	if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
	else record[key] = value;
}
