import { McpConnection } from '../mcp/connection';
import { McpFailure } from '../mcp/errors';
import { listAllTools, serverOffers } from '../mcp/listing';
import { createNameMatcher } from '../tools/nameFilter';
import { buildCatalog, type CatalogOptions, type CatalogResult, type ServerInstructions, type ServerTools } from './catalog';
import type { ServerHandle } from './serverHandle';
import type { CatalogTool } from './types';

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
	close(): Promise<void>;
}

/**
 * Opens one connection per server (in parallel), lists and filters their tools, and builds the
 * model's catalog. On any failure every connection already opened is closed before rethrowing.
 */
export async function connectServers(handles: ServerHandle[], catalogOptions: CatalogOptions = {}): Promise<ConnectedServers> {
	const names = new Set<string>();
	for (const handle of handles) {
		if (names.has(handle.name)) throw new Error(`Two MCP Server sub-nodes are named "${handle.name}"; rename one`);
		names.add(handle.name);
	}
	const connections = new Map<string, McpConnection>();
	const opened = await Promise.allSettled(handles.map((handle) => McpConnection.open(handle.config)));
	opened.forEach((result, index) => {
		if (result.status === 'fulfilled') connections.set(handles[index].name, result.value);
	});
	const closeAll = async () => {
		await Promise.all([...connections.values()].map((connection) => connection.close()));
	};
	const failedIndex = opened.findIndex((result) => result.status === 'rejected');
	if (failedIndex !== -1) {
		await closeAll();
		const reason = (opened[failedIndex] as PromiseRejectedResult).reason;
		throw prefixed(`MCP server "${handles[failedIndex].name}"`, reason);
	}
	try {
		const servers: ServerTools[] = [];
		const outputSchemas = new Map<string, Record<string, unknown>>();
		for (const handle of handles) {
			const connection = connections.get(handle.name) as McpConnection;
			const matches = createNameMatcher({ include: handle.include, exclude: handle.exclude });
			let tools: Awaited<ReturnType<typeof listAllTools>>;
			try {
				tools = serverOffers(connection, 'tools') ? await listAllTools(connection) : [];
			} catch (error) {
				throw prefixed(`MCP server "${handle.name}"`, error);
			}
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
		}
		const { tools: catalog, withheld, instructions } = buildCatalog(servers, catalogOptions);
		return { connections, catalog, outputSchemas, withheld, instructions, close: closeAll };
	} catch (error) {
		await closeAll();
		throw error;
	}
}

export function outputSchemaKey(serverId: string, toolName: string): string {
	return `${serverId}\u0000${toolName}`;
}

function prefixed(prefix: string, error: unknown): Error {
	if (error instanceof McpFailure) return new McpFailure(`${prefix}: ${error.summary}`, error.kind, error.serverOutput, error.httpStatus);
	return new Error(`${prefix}: ${(error as Error)?.message ?? String(error)}`);
}

/** The system prompt with each server's instructions appended under its name. */
export function systemWithInstructions(system: string | undefined, instructions: Array<{ server: string; text: string }>): string | undefined {
	if (instructions.length === 0) return system;
	const block = instructions.map((entry) => `Instructions from MCP server "${entry.server}":\n${entry.text}`).join('\n\n');
	return system?.trim() ? `${system}\n\n${block}` : block;
}
