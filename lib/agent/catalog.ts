import { toProviderToolName } from '../tools/providerNames';
import { fingerprintTool } from '../tools/fingerprint';
import type { ToolDefinition } from '../tools/toolDefinition';
import type { CatalogTool } from './types';

export interface ServerTools {
	id: string;
	name: string;
	tools: ToolDefinition[];
}

function slug(text: string): string {
	return text.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 24) || 'server';
}

/**
 * The tools of all servers as the model will see them. A name used by one server only reaches the
 * model unchanged (or through the reversible provider-name mapping); a name offered by several
 * servers is prefixed with its server so each call resolves to exactly one server. Sorted by
 * provider name so the tool list is byte-identical between runs (prompt-cache hits).
 */
export function buildCatalog(servers: ServerTools[]): CatalogTool[] {
	const owners = new Map<string, number>();
	for (const server of servers) for (const tool of server.tools) owners.set(tool.name, (owners.get(tool.name) ?? 0) + 1);
	const taken = new Set<string>();
	const catalog: CatalogTool[] = [];
	for (const server of servers) {
		for (const tool of server.tools) {
			const wanted = (owners.get(tool.name) ?? 0) > 1 ? `${slug(server.name)}__${tool.name}` : tool.name;
			let providerName = toProviderToolName(wanted);
			for (let n = 2; taken.has(providerName); n++) providerName = toProviderToolName(`${wanted}_${n}`);
			taken.add(providerName);
			catalog.push({
				providerName,
				mcpName: tool.name,
				serverId: server.id,
				serverName: server.name,
				...(tool.title !== undefined ? { title: tool.title } : {}),
				...(tool.description !== undefined ? { description: tool.description } : {}),
				inputSchema: tool.inputSchema ?? { type: 'object' },
				...(tool.annotations !== undefined ? { annotations: tool.annotations as Record<string, unknown> } : {}),
				fingerprint: fingerprintTool(tool),
			});
		}
	}
	return catalog.sort((a, b) => (a.providerName < b.providerName ? -1 : a.providerName > b.providerName ? 1 : 0));
}
