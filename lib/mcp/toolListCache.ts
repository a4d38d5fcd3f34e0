import type { ToolDefinition } from '../tools/toolDefinition';

/** The tool list as last listed, and when. */
export interface ListedTools {
	tools: ToolDefinition[];
	listedAt: number;
	/** The listing's JSON, to tell a changed list from the same one listed again. */
	json: string;
}

/** Taken when a listing is sent, handed back with its answer (see ToolListCache.remember). */
export interface ListingTicket {
	readonly changesBefore: number;
}

/**
 * One connection's tool list between listings. lib/mcp/listing.ts fills it (listAllTools) and
 * answers from it (listToolsCached); the connection only tells it that the list may have changed
 * (`notifications/tools/list_changed`, a re-initialized session). Every other reader gets views.
 *
 * It sits in a module of its own because both need it: the connection holds one per connection,
 * and listing.ts, which works on connections, cannot be imported by connection.ts without a cycle.
 */
export class ToolListCache {
	private last?: ListedTools;
	/** Changes only when a listing differs from the one before (what callers derived stays valid). */
	private listVersion = 0;
	/** True once the server announced a change (or the session was re-initialized) since the last listing. */
	private stale = false;
	/**
	 * Counts those announcements: a listing clears `stale` only when none arrived while it was in
	 * flight (the announcement may overtake the answer, over HTTP on another stream).
	 */
	private changes = 0;
	/**
	 * The last listing's tools by name: their input schemas let the client mirror marked arguments
	 * into `Mcp-Param-*` headers (SEP-2243) and their output schemas are checked on every
	 * interactive call, without another tools/list.
	 */
	private readonly tools = new Map<string, ToolDefinition>();

	get listed(): ListedTools | undefined {
		return this.last;
	}

	get version(): number {
		return this.listVersion;
	}

	get isStale(): boolean {
		return this.stale;
	}

	get byName(): ReadonlyMap<string, ToolDefinition> {
		return this.tools;
	}

	/** The server said its tools changed, or the session they were listed on is gone. */
	markStale(): void {
		this.stale = true;
		this.changes++;
	}

	beginListing(): ListingTicket {
		return { changesBefore: this.changes };
	}

	/**
	 * Keeps a listing. One identical to the previous returns the previous array, so what callers
	 * derived from it (the Agent's catalog) stays valid.
	 */
	remember(tools: ToolDefinition[], ticket: ListingTicket, now = Date.now()): ToolDefinition[] {
		const json = JSON.stringify(tools);
		const previous = this.last;
		const same = previous !== undefined && previous.json === json;
		const kept = same ? previous.tools : tools;
		if (!same) this.listVersion++;
		this.last = { tools: kept, listedAt: now, json };
		// A change announced while this listing was in flight may not be in it: the next use lists again.
		this.stale = this.changes !== ticket.changesBefore;
		if (!same) {
			this.tools.clear();
			for (const tool of kept) this.tools.set(tool.name, tool);
		}
		return kept;
	}

	/** The last listing when younger than `maxAgeMs` at `now` and no change was announced since; else undefined. */
	fresh(now: number, maxAgeMs: number): ToolDefinition[] | undefined {
		const listed = this.last;
		return listed && !this.stale && now - listed.listedAt < maxAgeMs ? listed.tools : undefined;
	}

	/** This cache's version when `tools` is its current listing (the very array), else undefined. */
	versionOf(tools: readonly ToolDefinition[]): number | undefined {
		return this.last !== undefined && tools === this.last.tools ? this.listVersion : undefined;
	}
}
