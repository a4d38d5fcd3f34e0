import { ToolListCache } from '../../lib/mcp/toolListCache';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';

/**
 * lib/mcp/toolListCache.ts: what lib/mcp/listing.ts keeps of a connection's last listing. Through
 * real servers (announcements over stdio and HTTP, a listing overtaken by one) in
 * test/integration/pool.test.ts, "cached tool lists".
 */

const tool = (name: string, description = ''): ToolDefinition => ({ name, description, inputSchema: { type: 'object' } });

describe('ToolListCache', () => {
	it('serves nothing before the first listing', () => {
		const cache = new ToolListCache();
		expect(cache.fresh(0, 60_000)).toBeUndefined();
		expect(cache.listed).toBeUndefined();
		expect(cache.byName.size).toBe(0);
	});

	it('serves a listing while it is younger than the bound, and indexes it by name', () => {
		const cache = new ToolListCache();
		const tools = [tool('a'), tool('b')];
		expect(cache.remember(tools, cache.beginListing(), 1_000)).toBe(tools);
		expect(cache.fresh(60_999, 60_000)).toBe(tools);
		expect(cache.fresh(61_000, 60_000)).toBeUndefined();
		expect([...cache.byName.keys()]).toEqual(['a', 'b']);
	});

	it('keeps the previous array and version for an identical listing; a changed one gets a new version', () => {
		const cache = new ToolListCache();
		const first = cache.remember([tool('a')], cache.beginListing());
		const version = cache.version;
		expect(cache.remember([tool('a')], cache.beginListing())).toBe(first);
		expect(cache.version).toBe(version);
		expect(cache.versionOf(first)).toBe(version);
		const changed = cache.remember([tool('a', 'changed')], cache.beginListing());
		expect(cache.version).toBe(version + 1);
		expect(cache.versionOf(changed)).toBe(version + 1);
		expect(cache.versionOf(first)).toBeUndefined();
		expect(cache.byName.get('a')?.description).toBe('changed');
	});

	it('an announced change makes it stale until the next listing', () => {
		const cache = new ToolListCache();
		cache.remember([tool('a')], cache.beginListing(), 0);
		cache.markStale();
		expect(cache.isStale).toBe(true);
		expect(cache.fresh(1, 60_000)).toBeUndefined();
		cache.remember([tool('a')], cache.beginListing(), 2);
		expect(cache.isStale).toBe(false);
		expect(cache.fresh(3, 60_000)).toEqual([tool('a')]);
	});

	it('a change announced while a listing was in flight keeps it stale after that listing', () => {
		const cache = new ToolListCache();
		const ticket = cache.beginListing();
		cache.markStale();
		cache.remember([tool('a')], ticket, 0);
		expect(cache.isStale).toBe(true);
		expect(cache.fresh(1, 60_000)).toBeUndefined();
	});
});
