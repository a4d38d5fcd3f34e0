import { scanToolDescription } from '../approvals/poisoning';
import { parseJsonParameter } from '../util/jsonParameter';
import { toProviderToolName } from '../tools/providerNames';
import { fingerprintTool } from '../tools/fingerprint';
import type { ToolDefinition } from '../tools/toolDefinition';
import type { CatalogTool } from './types';

export interface ServerTools {
	id: string;
	name: string;
	tools: ToolDefinition[];
	trustAnnotations?: boolean;
}

export interface CatalogOptions {
	/** Tool name -> fingerprints the builder pinned (from MCP List Tools). Absent: no pinning. */
	pinned?: Map<string, Set<string>>;
	/** What happens to a tool whose fingerprint is not pinned: withheld, or every call reviewed. */
	onDrift?: 'block' | 'review';
	/** Leave tools with poisoning warnings out of the model's list entirely. */
	withholdFlagged?: boolean;
}

export interface CatalogResult {
	tools: CatalogTool[];
	/** Tools left out, and why (shown in the node output so nothing disappears silently). */
	withheld: Array<{ server: string; tool: string; reason: string }>;
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
export function buildCatalog(servers: ServerTools[], options: CatalogOptions = {}): CatalogResult {
	const withheld: CatalogResult['withheld'] = [];
	const admitted: Array<{ server: ServerTools; tool: ToolDefinition; fingerprint: string; warnings: string[]; forceReview: boolean }> = [];
	for (const server of servers) {
		for (const tool of server.tools) {
			const fingerprint = fingerprintTool(tool);
			const warnings = scanToolDescription(tool).map((w) => `Description ${w.message}.`);
			let forceReview = false;
			if (options.pinned) {
				const pins = options.pinned.get(tool.name);
				if (!pins || !pins.has(fingerprint)) {
					const reason = pins ? 'its definition changed since it was pinned' : 'it is not in the pinned list (new since pinning)';
					if (options.onDrift !== 'review') {
						withheld.push({ server: server.name, tool: tool.name, reason });
						continue;
					}
					warnings.push(`Not pinned: ${reason}.`);
					forceReview = true;
				}
			}
			if (options.withholdFlagged && warnings.some((w) => w.startsWith('Description'))) {
				withheld.push({ server: server.name, tool: tool.name, reason: `poisoning warning: ${warnings.join(' ')}` });
				continue;
			}
			admitted.push({ server, tool, fingerprint, warnings, forceReview });
		}
	}
	const owners = new Map<string, number>();
	for (const { tool } of admitted) owners.set(tool.name, (owners.get(tool.name) ?? 0) + 1);
	const taken = new Set<string>();
	const tools: CatalogTool[] = admitted.map(({ server, tool, fingerprint, warnings, forceReview }) => {
		const wanted = (owners.get(tool.name) ?? 0) > 1 ? `${slug(server.name)}__${tool.name}` : tool.name;
		let providerName = toProviderToolName(wanted);
		for (let n = 2; taken.has(providerName); n++) providerName = toProviderToolName(`${wanted}_${n}`);
		taken.add(providerName);
		return {
			providerName,
			mcpName: tool.name,
			serverId: server.id,
			serverName: server.name,
			...(tool.title !== undefined ? { title: tool.title } : {}),
			...(tool.description !== undefined ? { description: tool.description } : {}),
			inputSchema: tool.inputSchema ?? { type: 'object' },
			...(tool.annotations !== undefined ? { annotations: tool.annotations as Record<string, unknown> } : {}),
			annotationsTrusted: server.trustAnnotations === true,
			fingerprint,
			...(warnings.length ? { warnings } : {}),
			...(forceReview ? { forceReview } : {}),
		};
	});
	tools.sort((a, b) => (a.providerName < b.providerName ? -1 : a.providerName > b.providerName ? 1 : 0));
	return { tools, withheld };
}

/**
 * Pinned fingerprints as the builder gives them: MCP List Tools items ({ name, fingerprint }), an
 * array of those, or an object { toolName: fingerprint }.
 */
export function parsePinnedFingerprints(value: unknown): Map<string, Set<string>> | undefined {
	const parsed = parseJsonParameter(value, 'Pinned Fingerprints');
	if (parsed === undefined) return undefined;
	const pins = new Map<string, Set<string>>();
	const add = (name: unknown, fingerprint: unknown, where: string) => {
		if (typeof name !== 'string' || typeof fingerprint !== 'string') throw new Error(`Pinned Fingerprints: ${where} needs a string "name" and "fingerprint"`);
		if (!pins.has(name)) pins.set(name, new Set());
		pins.get(name)?.add(fingerprint);
	};
	if (Array.isArray(parsed)) parsed.forEach((entry, i) => add((entry as { name?: unknown })?.name, (entry as { fingerprint?: unknown })?.fingerprint, `entry ${i}`));
	else if (parsed && typeof parsed === 'object') for (const [name, fp] of Object.entries(parsed)) add(name, fp, `"${name}"`);
	else throw new Error('Pinned Fingerprints must be an array of { name, fingerprint } or an object');
	return pins;
}
