import type { McpConnection } from '../mcp/connection';
import { McpFailure } from '../mcp/errors';
import { listToolsCached, serverOffers } from '../mcp/listing';
import type { ConnectionPool, McpLease } from '../mcp/pool/connectionPool';
import { sharedPool } from '../mcp/pool/sharedPool';
import type { ToolDefinition } from '../tools/toolDefinition';
import { createNameMatcher } from '../tools/nameFilter';
import { buildCatalogYielding, type CatalogOptions, type CatalogResult, type ServerInstructions, type ServerTools } from './catalog';
import type { ServerHandle } from './serverHandle';
import type { CatalogTool } from '../providers/modelTypes';
import { configError, McpAgentError, REPORT_A_BUG } from '../errors';

export interface ConnectedServers {
	connections: Map<string, McpConnection>;
	catalog: CatalogTool[];
	/** Output schemas of the listed tools, by outputSchemaKey(server, tool), for checkToolOutput. */
	outputSchemas: Map<string, Record<string, unknown>>;
	withheld: CatalogResult['withheld'];
	/**
	 * Servers' `instructions` from initialize, for the system prompt when the user wants them: only
	 * those that passed the scan and the pins (the others are in `withheld`), with their warnings.
	 */
	instructions: ServerInstructions[];
	/**
	 * Lists every server's tools again (never from a cache) and rebuilds the catalog, output schemas,
	 * withheld tools and instructions in place: before an approved call is checked later in the same
	 * execution, after other items' runs may have changed the servers' tools.
	 */
	relist(): Promise<void>;
	/** Releases every connection: kept ones go back to the pool, the others close. */
	close(): Promise<void>;
	/**
	 * Servers (by sub-node name) whose tasks outlive this execution: an HTTP server, or a connection
	 * the pool keeps. A local server on a connection of its own stops when the execution releases it,
	 * and its tasks with it, so a run never pauses for one of those (it waits in place).
	 */
	durable: ReadonlySet<string>;
}

export interface ConnectOptions {
	/**
	 * 'fresh' (default) lists every server's tools again; 'cached' accepts a kept connection's recent
	 * listing (lib/mcp/listing.ts listToolsCached: younger than a minute, no list_changed since).
	 * A run resumed after a review must use 'fresh': approved calls are checked against the
	 * server's current definitions, and a cached list could hide a change made while the run waited.
	 */
	toolLists?: 'fresh' | 'cached';
	/** The pool to take connections from; the process-wide one by default. */
	pool?: ConnectionPool;
}

/**
 * Takes one connection per server (in parallel) from the pool, lists and filters their tools, and
 * builds the model's catalog. On any failure every connection already taken is released before
 * rethrowing.
 */
export async function connectServers(handles: ServerHandle[], catalogOptions: CatalogOptions = {}, connectOptions: ConnectOptions = {}): Promise<ConnectedServers> {
	const names = new Set<string>();
	for (const handle of handles) {
		if (names.has(handle.name)) {
			throw configError(
				`Two MCP Server sub-nodes are named "${handle.name}"; rename one`,
				"An MCP Server sub-node's name labels its tools, its log and its pinned fingerprints, so it must be unique among the sub-nodes on the Agent's Tools input: rename one (double-click its title), and connect each sub-node to the Agent once.",
			);
		}
		names.add(handle.name);
	}
	const pool = connectOptions.pool ?? sharedPool();
	const connections = new Map<string, McpConnection>();
	const leases: McpLease[] = [];
	const opened = await Promise.allSettled(handles.map((handle) => pool.acquire(handle.config)));
	opened.forEach((result, index) => {
		if (result.status === 'fulfilled') {
			leases.push(result.value);
			connections.set(handles[index].name, result.value.connection);
		}
	});
	let released = false;
	const closeAll = async () => {
		if (released) return;
		released = true;
		await Promise.all(leases.map((lease) => lease.release()));
	};
	const failedIndex = opened.findIndex((result) => result.status === 'rejected');
	if (failedIndex !== -1) {
		await closeAll();
		const reason = (opened[failedIndex] as PromiseRejectedResult).reason;
		throw prefixed(`MCP server "${handles[failedIndex].name}"`, reason);
	}
	const listAndBuild = async (fresh: boolean): Promise<BuiltCatalog> => {
		const listed = await Promise.all(
			handles.map(async (handle) => {
				const connection = connections.get(handle.name) as McpConnection;
				try {
					return serverOffers(connection, 'tools') ? await listToolsCached(connection, { fresh }) : NO_TOOLS;
				} catch (error) {
					throw prefixed(`MCP server "${handle.name}"`, error);
				}
			}),
		);
		// Only kept connections outlive this run; a catalog over a connection of its own is never asked for again.
		return await catalogFor(handles, connections, listed, catalogOptions, leases.every((lease) => lease.pooled));
	};
	try {
		const servers: ConnectedServers = {
			connections,
			...(await listAndBuild(connectOptions.toolLists !== 'cached')),
			relist: async () => {
				Object.assign(servers, await listAndBuild(true));
			},
			close: closeAll,
			durable: new Set(handles.filter((handle, index) => handle.config.kind === 'http' || leases[index]?.pooled).map((handle) => handle.name)),
		};
		return servers;
	} catch (error) {
		await closeAll();
		throw error;
	}
}

const NO_TOOLS: ToolDefinition[] = [];

type BuiltCatalog = Pick<ConnectedServers, 'catalog' | 'outputSchemas' | 'withheld' | 'instructions'>;

/**
 * Catalogs already built, by everything they depend on: the connections (by id), the listings (by
 * version: a listing equal to the last one keeps its version), the sub-nodes' names, filters and
 * trust, and the catalog options. A warm execution whose servers list the same tools skips
 * fingerprinting and scanning. The catalog is read-only data (the run's state copies, never edits).
 */
const catalogCache = new Map<string, BuiltCatalog>();
const CATALOG_CACHE_SIZE = 32;

async function catalogFor(handles: ServerHandle[], connections: Map<string, McpConnection>, listed: ToolDefinition[][], catalogOptions: CatalogOptions, pooled: boolean): Promise<BuiltCatalog> {
	const key = JSON.stringify([
		catalogOptions,
		handles.map((handle, index) => {
			const connection = connections.get(handle.name) as McpConnection;
			const version = listed[index] === NO_TOOLS ? 'none' : (connection.toolList.versionOf(listed[index]) ?? 'unversioned');
			return [handle.name, handle.include, handle.exclude, handle.config.trustAnnotations, connection.id, version, connection.instructions ?? null, connection.server.name];
		}),
	]);
	const cacheable = pooled && !key.includes('"unversioned"');
	const hit = cacheable ? catalogCache.get(key) : undefined;
	if (hit) {
		// Most recently used last, so the oldest goes first when the cache is full.
		catalogCache.delete(key);
		catalogCache.set(key, hit);
		return hit;
	}
	const servers: ServerTools[] = [];
	const outputSchemas = new Map<string, Record<string, unknown>>();
	handles.forEach((handle, index) => {
		const connection = connections.get(handle.name) as McpConnection;
		const tools = listed[index];
		const matches = createNameMatcher({ include: handle.include, exclude: handle.exclude });
		const instructions = connection.instructions;
		servers.push({
			id: handle.name,
			name: handle.name,
			reportedName: connection.server.name,
			tools: tools.filter((tool) => matches(tool.name)),
			trustAnnotations: handle.config.trustAnnotations,
			...(typeof instructions === 'string' && instructions.trim() ? { instructions } : {}),
		});
		for (const tool of tools) if (tool.outputSchema) outputSchemas.set(outputSchemaKey(handle.name, tool.name), tool.outputSchema);
	});
	const { tools: catalog, withheld, instructions } = await buildCatalogYielding(servers, catalogOptions);
	const built = { catalog, outputSchemas, withheld, instructions };
	if (cacheable) {
		catalogCache.set(key, built);
		if (catalogCache.size > CATALOG_CACHE_SIZE) catalogCache.delete(catalogCache.keys().next().value as string);
	}
	return built;
}

export function outputSchemaKey(serverId: string, toolName: string): string {
	return `${serverId}\u0000${toolName}`;
}

/** The failure with the sub-node's name in front of its message; its kind, status, advice and server output kept. */
function prefixed(prefix: string, error: unknown): McpAgentError {
	if (McpFailure.isInstance(error)) return new McpFailure(`${prefix}: ${error.message}`, error.kind, error.serverOutput, error.httpStatus, error.description, error.serverError);
	if (McpAgentError.isInstance(error)) {
		return new McpAgentError(`${prefix}: ${error.message}`, { code: error.code, cause: error, ...(error.description !== undefined ? { description: error.description } : {}), ...(error.httpStatus !== undefined ? { httpStatus: error.httpStatus } : {}) });
	}
	// McpConnection explains everything it throws (an McpFailure); anything else is a fault of ours, reported as it is.
	return new McpAgentError(`${prefix}: ${(error as Error)?.message ?? String(error)}`, {
		code: 'remote',
		cause: error,
		description: REPORT_A_BUG,
	});
}

/** The system prompt with each server's instructions appended under its name. */
export function systemWithInstructions(system: string | undefined, instructions: Array<{ server: string; text: string }>): string | undefined {
	if (instructions.length === 0) return system;
	const block = instructions.map((entry) => `Instructions from MCP server "${entry.server}":\n${entry.text}`).join('\n\n');
	return system?.trim() ? `${system}\n\n${block}` : block;
}
