import type { McpConnection } from './connection';
import type { ToolDefinition } from '../tools/toolDefinition';
import { quoteToolName } from '../tools/toolNameRule';
import { MAX_LIST_PAGES } from './pageLimit';
import { McpAgentError } from '../errors';
import type { ToolListCache } from './toolListCache';

/**
 * Most tools one server may offer. Every tool is fingerprinted, scanned and (in the Agent) sent to
 * the model on every turn; a server listing more is broken or hostile, and is refused whole
 * rather than cut at an arbitrary point.
 */
export const MAX_TOOLS_PER_SERVER = 2000;

/** A listing refused here; McpConnection puts the server and the phase in front, and keeps the advice. */
function listingRefused(message: string, description: string): McpAgentError {
	return new McpAgentError(message, { code: 'remote', description });
}

const TOO_MANY =
	"Configure the server to offer fewer tools, or split them across several servers: the MCP Server sub-node's Include Tools and Exclude Tools apply after the whole list is read, so they cannot help here.";
const BROKEN_PAGES = "The server's pagination does not end, so its list cannot be read whole. Update the server, or report it to its authors.";
const NOT_A_LISTING = 'The server does not answer tools/list as MCP requires. Update the server, or check that the credential points at an MCP endpoint.';

/**
 * Follows `nextCursor` to the end. A server that repeats a cursor would loop forever, so a repeat
 * (or MAX_LIST_PAGES) ends with an error instead.
 */
export async function collectPages<T>(
	label: string,
	fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
	limit?: { maxItems: number; tooMany: (count: number) => string },
): Promise<T[]> {
	const all: T[] = [];
	const seen = new Set<string>();
	let cursor: string | undefined;
	for (let page = 0; page < MAX_LIST_PAGES; page++) {
		const result = await fetchPage(cursor);
		// Checked per page, so a server cannot make us hold an unbounded list before refusing it.
		if (limit && all.length + result.items.length > limit.maxItems) throw listingRefused(limit.tooMany(all.length + result.items.length), TOO_MANY);
		all.push(...result.items);
		if (!result.nextCursor) return all;
		if (seen.has(result.nextCursor)) throw listingRefused(`the server repeated the pagination cursor while listing ${label}`, BROKEN_PAGES);
		seen.add(result.nextCursor);
		cursor = result.nextCursor;
	}
	throw listingRefused(`the server returned more than ${MAX_LIST_PAGES} pages while listing ${label}`, BROKEN_PAGES);
}

/** Sorted by name so that output (and later the model's tool list, for prompt caching) is deterministic. */
function byName<T extends { name: string }>(items: T[]): T[] {
	return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The SDK's listTools parses every tool with zod, which takes longer than the round trip on servers
 * with hundreds of tools. On 2025-era connections we take the result as is (a Standard Schema that
 * accepts anything) and check what we rely on ourselves.
 */
const UNPARSED = { '~standard': { version: 1, vendor: 'n8n-nodes-mcp-agent', validate: (value: unknown) => ({ value }) } } as const;

export function checkedTools(result: unknown): { tools: ToolDefinition[]; nextCursor?: string } {
	const body = (result ?? {}) as { tools?: unknown; nextCursor?: unknown };
	if (!Array.isArray(body.tools)) throw listingRefused('the server answered tools/list without a "tools" array', NOT_A_LISTING);
	const tools: ToolDefinition[] = [];
	for (const entry of body.tools as Array<Record<string, unknown>>) {
		// A tool without a name cannot be called; one without a usable schema takes no arguments.
		if (!entry || typeof entry !== 'object' || typeof entry.name !== 'string' || entry.name === '') continue;
		const inputSchema = entry.inputSchema && typeof entry.inputSchema === 'object' && !Array.isArray(entry.inputSchema) ? entry.inputSchema : { type: 'object' };
		tools.push({ ...(entry as unknown as ToolDefinition), inputSchema: inputSchema as Record<string, unknown> });
	}
	return { tools, ...(typeof body.nextCursor === 'string' && body.nextCursor ? { nextCursor: body.nextCursor } : {}) };
}

/**
 * Every tool of the server, sorted by name, remembered in the connection's tool-list cache
 * (toolListCache.ts) for listToolsCached, header mirroring and output checks. On 2026-07-28
 * connections through the client's own listTools: it honours the server's caching hints (SEP-2549:
 * a fresh listing is served without a round trip), drops tools whose `x-mcp-header` declarations
 * are invalid (SEP-2243), and keeps the client's tools index current. On 2025-era connections (no
 * hints, no headers) page by page, unparsed.
 */
export async function listAllTools(connection: McpConnection, options: { refresh?: boolean } = {}): Promise<ToolDefinition[]> {
	const tooMany = { maxItems: MAX_TOOLS_PER_SERVER, tooMany: (count: number) => tooManyTools(connection.server.name, count) };
	// Stand-ins for a connection (tests) may come without a cache: they list without remembering.
	const cache = connection.toolList as ToolListCache | undefined;
	const ticket = cache?.beginListing();
	const tools = await connection.request('listing tools', async (client) => {
		if (connection.isModern) {
			const { tools: listed } = await client.listTools(undefined, { ...connection.requestOptions(), cacheMode: options.refresh ? 'refresh' : 'use' });
			const { tools: checked } = checkedTools({ tools: listed });
			if (checked.length > MAX_TOOLS_PER_SERVER) throw listingRefused(tooMany.tooMany(checked.length), TOO_MANY);
			return byName(checked);
		}
		return byName(
			await collectPages('tools', async (cursor) => {
				const result = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, UNPARSED, connection.requestOptions());
				const { tools: page, nextCursor } = checkedTools(result);
				return { items: page, nextCursor };
			}, tooMany),
		);
	});
	return cache && ticket ? cache.remember(tools, ticket) : tools;
}

/** How long a connection kept between executions may answer from its last listing. */
export const TOOL_LIST_MAX_AGE_MS = 60_000;

export interface CachedListingOptions {
	/** Oldest listing still served; TOOL_LIST_MAX_AGE_MS by default. */
	maxAgeMs?: number;
	/** List again whatever the cache holds (an approved call is about to be checked against it). */
	fresh?: boolean;
	now?: () => number;
}

/**
 * The connection's tools from its last listing when that is younger than `maxAgeMs` and the server
 * has not announced a change since (`notifications/tools/list_changed`); otherwise listed again.
 * Treat the result as read-only: it is shared by every execution using the connection.
 */
export function listToolsCached(connection: McpConnection, options: CachedListingOptions = {}): Promise<ToolDefinition[]> {
	const now = (options.now ?? Date.now)();
	const cached = options.fresh ? undefined : connection.toolList.fresh(now, options.maxAgeMs ?? TOOL_LIST_MAX_AGE_MS);
	if (cached) return Promise.resolve(cached);
	// Our own bound decides here, not a longer caching hint from the server: a listing asked for
	// reaches the server (the resume path's fresh listing above all).
	return listAllTools(connection, { refresh: true });
}

export function tooManyTools(serverName: string, count: number): string {
	return `the MCP server ${quoteToolName(serverName)} lists at least ${count} tools, over the limit of ${MAX_TOOLS_PER_SERVER} per server; use a server (or a server configuration) that offers fewer tools`;
}

export interface ResourceEntry {
	uri: string;
	name: string;
	[key: string]: unknown;
}

export async function listAllResources(connection: McpConnection): Promise<ResourceEntry[]> {
	return connection.request('listing resources', async (client) =>
		collectPages('resources', async (cursor) => {
			const result = await client.listResources(cursor ? { cursor } : undefined, connection.requestOptions());
			return { items: result.resources as ResourceEntry[], nextCursor: result.nextCursor };
		}),
	);
}

export async function listAllResourceTemplates(connection: McpConnection): Promise<Array<Record<string, unknown>>> {
	return connection.request('listing resource templates', async (client) =>
		collectPages('resource templates', async (cursor) => {
			const result = await client.listResourceTemplates(cursor ? { cursor } : undefined, connection.requestOptions());
			return { items: result.resourceTemplates as Array<Record<string, unknown>>, nextCursor: result.nextCursor };
		}),
	);
}

export async function listAllPrompts(connection: McpConnection): Promise<Array<{ name: string; [key: string]: unknown }>> {
	return connection.request('listing prompts', async (client) =>
		byName(
			await collectPages('prompts', async (cursor) => {
				const result = await client.listPrompts(cursor ? { cursor } : undefined, connection.requestOptions());
				return { items: result.prompts as Array<{ name: string }>, nextCursor: result.nextCursor };
			}),
		),
	);
}

/** Whether the server said (in initialize) that it offers a capability; listing an absent one errors. */
export function serverOffers(connection: McpConnection, capability: 'tools' | 'resources' | 'prompts'): boolean {
	return Boolean(connection.client.getServerCapabilities()?.[capability]);
}
