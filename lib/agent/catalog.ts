import { scanText, scanToolDescription, scanToolDescriptions, type ToolScans } from '../tools/poisoning';
import { mapYielding } from '../util/yielding';
import { parseJsonParameter } from '../util/jsonParameter';
import { toProviderToolName } from '../tools/providerNames';
import { fingerprintInstructions, fingerprintTool, INSTRUCTIONS_PIN_NAME } from '../tools/fingerprint';
import { displayToolName, quoteToolName, toolNameProblem } from '../tools/toolNameRule';
import type { ToolDefinition } from '../tools/toolDefinition';
import { APP_ONLY_REASON, isAppOnlyTool } from '../tools/mcpApps';
import type { PlannedCall } from './types';
import type { CatalogTool } from '../providers/modelTypes';
import { configError } from '../errors';

export { INSTRUCTIONS_PIN_NAME };

/**
 * Longest description (and server instructions) passed on to the model and the review page; longer
 * text is cut with a visible marker and flagged. The fingerprint is always over the full text.
 */
export const MAX_CATALOG_DESCRIPTION_LENGTH = 16_000;

/** What to do about a Pinned Fingerprints entry that cannot be read. */
const PIN_FORMAT =
	'In Approval Options > Pinned Fingerprints, paste the items MCP List Tools outputs (each carries its name, fingerprint and server), or write an array of { "server": "<MCP Server sub-node name>", "name": "<tool>", "fingerprint": "sha256:..." }, or an object { "<sub-node name>/<tool>": "sha256:..." }.';

export interface ServerTools {
	/** The MCP Server sub-node's name (unique in a run). */
	id: string;
	name: string;
	/** The name the server reports for itself (initialize); pins may name a server by it. */
	reportedName?: string;
	tools: ToolDefinition[];
	trustAnnotations?: boolean;
	/** The server's `instructions` from initialize, if any. */
	instructions?: string;
	/** "n8n": the tools of an n8n tool node (`id` and `name` are the node's name); absent for an MCP server. */
	source?: 'n8n';
}

/** One pinned fingerprint; `server` absent means "whichever server is connected" (one server only). */
export interface PinnedFingerprint {
	server?: string;
	name: string;
	fingerprint: string;
}

export interface PinnedFingerprints {
	entries: PinnedFingerprint[];
}

export interface CatalogOptions {
	/** Fingerprints the builder pinned (from MCP List Tools). Absent: no pinning. */
	pinned?: PinnedFingerprints;
	/** What happens to a tool whose fingerprint is not pinned: withheld, or every call reviewed. */
	onDrift?: 'block' | 'review';
	/** Leave tools (and server instructions) with poisoning warnings out of the model's view entirely. */
	withholdFlagged?: boolean;
	/** Whether server instructions will be appended to the system prompt (then they are scanned and pinned). Default true. */
	appendInstructions?: boolean;
}

export interface ServerInstructions {
	server: string;
	/** As appended to the system prompt (cut at MAX_CATALOG_DESCRIPTION_LENGTH). */
	text: string;
	fingerprint: string;
	warnings?: string[];
}

export interface WithheldEntry {
	server: string;
	/** The tool's name (quoted and escaped when it breaks the MCP name rule), or INSTRUCTIONS_PIN_NAME. */
	tool: string;
	reason: string;
	kind?: 'instructions';
	/** The tool's current fingerprint, when it was withheld for not being pinned: check it, then pin it. */
	fingerprint?: string;
}

export interface CatalogResult {
	tools: CatalogTool[];
	/** Tools and instructions left out, and why (shown in the node output so nothing disappears silently). */
	withheld: WithheldEntry[];
	/** Server instructions that may be appended to the system prompt. */
	instructions: ServerInstructions[];
}

function slug(text: string): string {
	return text.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 24) || 'server';
}

/** Text cut to the catalog's limit with a marker the model and the reviewer see. */
function capDescription(text: string): string {
	if (text.length <= MAX_CATALOG_DESCRIPTION_LENGTH) return text;
	return `${text.slice(0, MAX_CATALOG_DESCRIPTION_LENGTH)}\n…[cut: showing ${MAX_CATALOG_DESCRIPTION_LENGTH} of ${text.length} characters]`;
}

function lengthWarning(what: string, length: number): string {
	return `${what} is ${length} characters long; only the first ${MAX_CATALOG_DESCRIPTION_LENGTH} reach the model and the review page.`;
}

/**
 * Which pins apply to which server. A pin names its server by sub-node name or by the server's
 * reported name; a sub-node name wins, and a reported name shared by two connected servers is
 * refused (a server chooses its reported name, so it must not be able to borrow another's pins).
 * Unqualified pins are only allowed with one server connected.
 */
function pinsByServer(servers: ServerTools[], pinned: PinnedFingerprints): Map<ServerTools, Map<string, Set<string>>> {
	const result = new Map<ServerTools, Map<string, Set<string>>>(servers.map((server) => [server, new Map()]));
	const add = (server: ServerTools, entry: PinnedFingerprint) => {
		const pins = result.get(server) as Map<string, Set<string>>;
		if (!pins.has(entry.name)) pins.set(entry.name, new Set());
		pins.get(entry.name)?.add(entry.fingerprint);
	};
	for (const entry of pinned.entries) {
		if (entry.server === undefined) {
			if (servers.length > 1) {
				throw configError(
					`Pinned Fingerprints: the entry for ${quoteToolName(entry.name)} names no server, but ${servers.length} MCP servers are connected (${servers.map((s) => JSON.stringify(s.name)).join(', ')}). ` +
						'Qualify every entry: { "server": "<MCP Server sub-node name>", "name": "<tool>", "fingerprint": "sha256:..." }, or "<sub-node name>/<tool>" as an object key (MCP List Tools items carry their server already).',
					PIN_FORMAT,
				);
			}
			if (servers.length === 1) add(servers[0], entry);
			continue;
		}
		const bySubNode = servers.find((server) => server.name === entry.server);
		if (bySubNode) {
			add(bySubNode, entry);
			continue;
		}
		const byReported = servers.filter((server) => server.reportedName === entry.server);
		if (byReported.length > 1) {
			throw configError(
				`Pinned Fingerprints: ${byReported.length} connected servers report the name ${quoteToolName(entry.server)} (sub-nodes ${byReported.map((s) => JSON.stringify(s.name)).join(', ')}); pin by the sub-node name instead`,
				'A server chooses the name it reports, so a pin naming it cannot tell these servers apart. In Approval Options > Pinned Fingerprints, write the MCP Server sub-node\'s name as the entry\'s "server" (or "<sub-node name>/<tool>" as the key).',
			);
		}
		if (byReported.length === 1) add(byReported[0], entry);
		// A pin for a server that is not connected is simply not used.
	}
	return result;
}

function driftReason(pins: Map<string, Set<string>>, name: string): string {
	if (pins.has(name)) return 'its definition changed since it was pinned';
	return pins.size === 0 ? 'it is not in the pinned list (no pinned entry names this server)' : 'it is not in the pinned list (new since pinning)';
}

/**
 * The tools of all servers as the model will see them. A name used by one server only reaches the
 * model unchanged (or through the reversible provider-name mapping); a name offered by several
 * servers is prefixed with its server so each call resolves to exactly one server. Sorted by
 * provider name so the tool list is byte-identical between runs (prompt-cache hits).
 * `prepared` holds the poisoning warnings and fingerprints buildCatalogYielding computed; a tool
 * missing from it is scanned and fingerprinted here.
 */
export function buildCatalog(servers: ServerTools[], options: CatalogOptions = {}, prepared: PreparedTools = {}): CatalogResult {
	const { scans, fingerprints } = prepared;
	const withheld: WithheldEntry[] = [];
	const pinsOf = options.pinned ? pinsByServer(servers, options.pinned) : undefined;
	const admitted: Array<{ server: ServerTools; tool: ToolDefinition; fingerprint: string; warnings: string[]; forceReview: boolean }> = [];
	for (const server of servers) {
		const pins = pinsOf?.get(server);
		const counts = new Map<string, number>();
		for (const tool of server.tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
		for (const tool of server.tools) {
			// A name that breaks the MCP rule could add a line or hide characters wherever it is shown.
			const nameProblem = toolNameProblem(tool.name);
			if (nameProblem) {
				withheld.push({ server: server.name, tool: displayToolName(tool.name), reason: `${nameProblem}; the Agent refuses tool names that break the MCP tool name rule` });
				continue;
			}
			// MCP Apps: a tool for the app alone is never offered to a model (the extension's rule).
			if (isAppOnlyTool(tool)) {
				withheld.push({ server: server.name, tool: tool.name, reason: APP_ONLY_REASON });
				continue;
			}
			// Two definitions under one name: calls go by name, so which one runs is the server's choice.
			if ((counts.get(tool.name) ?? 0) > 1) {
				withheld.push({ server: server.name, tool: tool.name, reason: 'the server lists this name more than once, with no way to tell which definition a call runs' });
				continue;
			}
			const fingerprint = fingerprints?.get(tool) ?? fingerprintTool(tool);
			const warnings = (scans?.get(tool) ?? scanToolDescription(tool)).map((w) => `Description ${w.message}.`);
			const description = typeof tool.description === 'string' ? tool.description : undefined;
			if (description !== undefined && description.length > MAX_CATALOG_DESCRIPTION_LENGTH) warnings.push(lengthWarning('Description', description.length));
			let forceReview = false;
			if (pins) {
				const pinned = pins.get(tool.name);
				if (!pinned || !pinned.has(fingerprint)) {
					const reason = driftReason(pins, tool.name);
					if (options.onDrift !== 'review') {
						withheld.push({ server: server.name, tool: tool.name, reason, ...(server.source ? { fingerprint } : {}) });
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
			admitted.push({ server, tool: description !== undefined ? { ...tool, description: capDescription(description) } : tool, fingerprint, warnings, forceReview });
		}
	}
	const tools: CatalogTool[] = admitted.map(({ server, tool, fingerprint, warnings, forceReview }) => {
		return {
			providerName: '',
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
			...(server.source ? { source: server.source } : {}),
		};
	});
	const instructions = options.appendInstructions === false ? [] : admitInstructions(servers, options, pinsOf, withheld);
	return { tools: withProviderNames(tools), withheld, instructions };
}

/** Per-tool work done ahead of buildCatalog, keyed by the tool's definition object. */
export interface PreparedTools {
	scans?: ToolScans;
	fingerprints?: ReadonlyMap<ToolDefinition, string>;
}

/**
 * buildCatalog after scanning and fingerprinting every tool in steps that yield to the event loop:
 * those two are nearly all of the catalog's cost (a 2,000-tool listing of 4 KB tools takes about
 * 300 ms to fingerprint alone), and a hostile listing would otherwise hold n8n's event loop for as
 * long as they take.
 */
export async function buildCatalogYielding(servers: ServerTools[], options: CatalogOptions = {}): Promise<CatalogResult> {
	const tools = servers.flatMap((server) => server.tools);
	const scans = await scanToolDescriptions(tools);
	const fingerprints = await mapYielding(tools, fingerprintTool);
	return buildCatalog(servers, options, { scans, fingerprints });
}

/**
 * Provider names for a catalog: a name offered by one source only reaches the model unchanged
 * (or through the reversible provider-name mapping); a name offered by several (MCP servers or n8n
 * tool nodes) is prefixed with its source's sub-node name, so each call resolves to exactly one.
 * Sorted by provider name so the tool list is byte-identical between runs (prompt-cache hits).
 */
function withProviderNames(tools: CatalogTool[]): CatalogTool[] {
	const owners = new Map<string, number>();
	for (const tool of tools) owners.set(tool.mcpName, (owners.get(tool.mcpName) ?? 0) + 1);
	const taken = new Set<string>();
	const wanted = tools.map((tool) => ((owners.get(tool.mcpName) ?? 0) > 1 ? `${slug(tool.serverName)}__${tool.mcpName}` : tool.mcpName));
	const named: CatalogTool[] = new Array<CatalogTool>(tools.length);
	const assign = (index: number) => {
		let providerName = toProviderToolName(wanted[index]);
		for (let n = 2; taken.has(providerName); n++) providerName = toProviderToolName(`${wanted[index]}_${n}`);
		taken.add(providerName);
		named[index] = { ...tools[index], providerName };
	};
	// Prefixed names first: a tool whose own name looks like "<other source>__<tool>" must not take
	// that source's name and leave it a suffixed one (the model would call the wrong server's tool).
	tools.forEach((tool, index) => wanted[index] !== tool.mcpName && assign(index));
	tools.forEach((tool, index) => wanted[index] === tool.mcpName && assign(index));
	return named.sort((a, b) => (a.providerName < b.providerName ? -1 : a.providerName > b.providerName ? 1 : 0));
}

/**
 * One catalog over the MCP servers' tools and the n8n tool nodes' tools, built separately (the
 * MCP side by connectServers): provider names are assigned again over all of them, with the same
 * rule as within one side, so names stay unique across every source.
 */
export function mergeCatalogs(...catalogs: CatalogTool[][]): CatalogTool[] {
	if (catalogs.filter((catalog) => catalog.length > 0).length <= 1) return catalogs.find((catalog) => catalog.length > 0) ?? [];
	return withProviderNames(catalogs.flat());
}

/**
 * Server instructions go into the system prompt, where no call-time review can catch them: they
 * are scanned like descriptions and pinned like tools, and anything unpinned or changed (with
 * pinning on) stays out of the prompt whatever On Unpinned Tool says.
 */
function admitInstructions(servers: ServerTools[], options: CatalogOptions, pinsOf: Map<ServerTools, Map<string, Set<string>>> | undefined, withheld: WithheldEntry[]): ServerInstructions[] {
	const admitted: ServerInstructions[] = [];
	for (const server of servers) {
		const text = typeof server.instructions === 'string' ? server.instructions.trim() : '';
		if (!text) continue;
		const fingerprint = fingerprintInstructions(text);
		const warnings = scanText(text).map((w) => `Instructions ${w.message}.`);
		if (text.length > MAX_CATALOG_DESCRIPTION_LENGTH) warnings.push(lengthWarning('Instructions', text.length));
		const pins = pinsOf?.get(server);
		if (pins && !pins.get(INSTRUCTIONS_PIN_NAME)?.has(fingerprint)) {
			const reason = pins.has(INSTRUCTIONS_PIN_NAME) ? 'the server instructions changed since they were pinned' : 'the server instructions are not in the pinned list';
			const review = options.onDrift === 'review' ? '; instructions cannot be reviewed per call, so they are left out of the system prompt' : '';
			withheld.push({ server: server.name, tool: INSTRUCTIONS_PIN_NAME, kind: 'instructions', reason: `${reason}${review}` });
			continue;
		}
		if (options.withholdFlagged && warnings.length > 0) {
			withheld.push({ server: server.name, tool: INSTRUCTIONS_PIN_NAME, kind: 'instructions', reason: `poisoning warning: ${warnings.join(' ')}` });
			continue;
		}
		admitted.push({ server: server.name, text: capDescription(text), fingerprint, ...(warnings.length ? { warnings } : {}) });
	}
	return admitted;
}

function serverOf(value: unknown, where: string): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'string') return value;
	// MCP List Tools items carry `server: { name, version }`.
	if (typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string') return (value as { name: string }).name;
	throw configError(`Pinned Fingerprints: ${where} has a "server" that is neither a name nor an object with a "name"`, PIN_FORMAT);
}

/**
 * Pinned fingerprints as the builder gives them: MCP List Tools items ({ name, fingerprint,
 * server: { name } }, server instructions included), an array of { server?, name, fingerprint },
 * or an object { "server/tool": fingerprint } ("tool" alone when only one server is connected).
 */
export function parsePinnedFingerprints(value: unknown): PinnedFingerprints | undefined {
	const parsed = parseJsonParameter(value, 'Pinned Fingerprints');
	if (parsed === undefined) return undefined;
	const entries: PinnedFingerprint[] = [];
	const add = (server: string | undefined, name: unknown, fingerprint: unknown, where: string) => {
		if (typeof name !== 'string' || typeof fingerprint !== 'string') throw configError(`Pinned Fingerprints: ${where} needs a string "name" and "fingerprint"`, PIN_FORMAT);
		entries.push({ ...(server !== undefined ? { server } : {}), name, fingerprint });
	};
	if (Array.isArray(parsed)) {
		parsed.forEach((entry, i) => {
			const item = (entry ?? {}) as { server?: unknown; name?: unknown; fingerprint?: unknown };
			add(serverOf(item.server, `entry ${i}`), item.name, item.fingerprint, `entry ${i}`);
		});
	} else if (parsed && typeof parsed === 'object') {
		for (const [key, fingerprint] of Object.entries(parsed)) {
			// Tool names cannot contain "/", so the last one separates the server (which may contain one).
			const slash = key.lastIndexOf('/');
			if (slash > 0) add(key.slice(0, slash), key.slice(slash + 1), fingerprint, `"${key}"`);
			else add(undefined, slash === 0 ? key.slice(1) : key, fingerprint, `"${key}"`);
		}
	} else throw configError('Pinned Fingerprints must be an array of { server, name, fingerprint } or an object { "server/tool": "sha256:..." }', PIN_FORMAT);
	return { entries };
}

/** The catalog tool a planned call resolved to: the same server and MCP name (undefined when gone). */
export function toolOfCall(tools: CatalogTool[], call: Pick<PlannedCall, 'tool'>): CatalogTool | undefined {
	const ref = call.tool;
	return ref ? tools.find((tool) => tool.serverId === ref.serverId && tool.mcpName === ref.mcpName) : undefined;
}
