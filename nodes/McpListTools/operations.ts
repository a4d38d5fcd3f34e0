import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { McpConnection } from '../../lib/mcp/connection';
import { listAllPrompts, listAllResources, listAllResourceTemplates, listAllTools, serverOffers } from '../../lib/mcp/listing';
import { extractResourceContents } from '../../lib/tools/callResult';
import { createNameMatcher, parsePatternList } from '../../lib/tools/nameFilter';
import { flagListedTools, listedInstructions } from '../../lib/tools/listingReport';
import { describeTools } from '../../lib/tools/listedTools';
import { parseJsonParameter } from '../../lib/util/jsonParameter';
import { toBinaryData } from '../shared/binaryData';

/**
 * One function per operation. Listings are fetched once per execution (`once`) and filtered per
 * item, so many input items do not mean many round trips.
 */
export type Operation = (this: IExecuteFunctions, itemIndex: number, connection: McpConnection, once: Memo) => Promise<INodeExecutionData[]>;

export class Memo {
	private values = new Map<string, Promise<unknown>>();
	get<T>(key: string, load: () => Promise<T>): Promise<T> {
		if (!this.values.has(key)) this.values.set(key, load());
		return this.values.get(key) as Promise<T>;
	}
}

function nameMatcher(context: IExecuteFunctions, itemIndex: number) {
	return createNameMatcher({
		include: parsePatternList(context.getNodeParameter('include', itemIndex, '') as string),
		exclude: parsePatternList(context.getNodeParameter('exclude', itemIndex, '') as string),
	});
}

/** Per-entry items, or one item holding them all, per the Output parameter. */
function shape(context: IExecuteFunctions, itemIndex: number, key: string, entries: object[], extra: IDataObject = {}): INodeExecutionData[] {
	const pairedItem = { item: itemIndex };
	if (context.getNodeParameter('outputMode', itemIndex, 'perTool') === 'single') {
		return [{ json: { ...extra, [key]: entries as IDataObject[], count: entries.length }, pairedItem }];
	}
	return entries.map((entry) => ({ json: entry as IDataObject, pairedItem }));
}

/**
 * A listing the server does not offer (no such capability in its initialize answer) would be zero
 * items without a word: One Item per Entry fails the item saying so (Continue On Fail applies);
 * One Item With All Entries gets its empty list with a `notice`.
 */
function notOffered(
	context: IExecuteFunctions,
	itemIndex: number,
	connection: McpConnection,
	capability: 'resources' | 'prompts',
	key: string,
	what: string,
): INodeExecutionData[] | undefined {
	if (serverOffers(connection, capability)) return undefined;
	const message = `The MCP server "${connection.server.name}" does not offer ${what}`;
	if (context.getNodeParameter('outputMode', itemIndex, 'perTool') === 'single') {
		return [{ json: { [key]: [], count: 0, notice: `${message}: its initialize answer has no "${capability}" capability.` }, pairedItem: { item: itemIndex } }];
	}
	throw new NodeOperationError(context.getNode(), message, {
		itemIndex,
		description: `Its initialize answer has no "${capability}" capability, so there is nothing to list. Pick an operation the server offers, or set Output to "One Item With All Entries" to get an empty list with a notice.`,
	});
}

const listTools: Operation = async function (itemIndex, connection, once) {
	const tools = await once.get('tools', () => listAllTools(connection, { refresh: true }));
	const options = this.getNodeParameter('options', itemIndex, {}) as { providerFormats?: boolean };
	const matches = nameMatcher(this, itemIndex);
	const kept = tools.filter((tool) => matches(tool.name));
	const flags = await flagListedTools(kept);
	const described: object[] = describeTools(kept, connection.server, {
		trustAnnotations: connection.config.trustAnnotations,
		providerFormats: options.providerFormats === true,
	}).map((entry, i) => ({ ...entry, ...flags[i] }));
	// The server's instructions, with the fingerprint the Agent's Pinned Fingerprints accept for them.
	const instructions = listedInstructions(connection.instructions);
	if (instructions && matches(instructions.name)) described.push({ ...instructions, server: connection.server });
	return shape(this, itemIndex, 'tools', described, { server: connection.server as unknown as IDataObject });
};

const listResources: Operation = async function (itemIndex, connection, once) {
	const absent = notOffered(this, itemIndex, connection, 'resources', 'resources', 'resources');
	if (absent) return absent;
	const resources = await once.get('resources', () => listAllResources(connection));
	const matches = nameMatcher(this, itemIndex);
	return shape(this, itemIndex, 'resources', resources.filter((r) => matches(r.name)));
};

const listResourceTemplates: Operation = async function (itemIndex, connection, once) {
	const absent = notOffered(this, itemIndex, connection, 'resources', 'resourceTemplates', 'resource templates');
	if (absent) return absent;
	return shape(this, itemIndex, 'resourceTemplates', await once.get('templates', () => listAllResourceTemplates(connection)));
};

const listPrompts: Operation = async function (itemIndex, connection, once) {
	const absent = notOffered(this, itemIndex, connection, 'prompts', 'prompts', 'prompts');
	if (absent) return absent;
	const prompts = await once.get('prompts', () => listAllPrompts(connection));
	const matches = nameMatcher(this, itemIndex);
	return shape(this, itemIndex, 'prompts', prompts.filter((p) => matches(p.name)));
};

const readResource: Operation = async function (itemIndex, connection) {
	const uri = String(this.getNodeParameter('uri', itemIndex, '')).trim();
	if (!uri) throw new NodeOperationError(this.getNode(), 'Resource URI is empty', { itemIndex });
	const options = this.getNodeParameter('options', itemIndex, {}) as { binaryPropertyPrefix?: string };
	const result = await connection.request(`reading resource ${uri}`, (client) => client.readResource({ uri }, connection.requestOptions()));
	const extracted = extractResourceContents(uri, result.contents as Array<{ uri: string }>, options.binaryPropertyPrefix || 'data');
	const binary = await toBinaryData(this, extracted.binaries);
	return [{ json: extracted.json as unknown as IDataObject, ...(binary ? { binary } : {}), pairedItem: { item: itemIndex } }];
};

const getPrompt: Operation = async function (itemIndex, connection) {
	const name = String(this.getNodeParameter('promptName', itemIndex, '')).trim();
	if (!name) throw new NodeOperationError(this.getNode(), 'Prompt Name is empty', { itemIndex });
	let args: unknown;
	try {
		args = parseJsonParameter(this.getNodeParameter('promptArguments', itemIndex, '{}'), 'Prompt Arguments', {});
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex });
	}
	if (!args || typeof args !== 'object' || Array.isArray(args)) {
		throw new NodeOperationError(this.getNode(), 'Prompt Arguments must be a JSON object', { itemIndex });
	}
	// MCP prompt arguments are strings; numbers typed in JSON are sent as their text.
	const stringArgs = Object.fromEntries(Object.entries(args as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
	const result = await connection.request(`getting prompt ${name}`, (client) => client.getPrompt({ name, arguments: stringArgs }, connection.requestOptions()));
	return [{ json: { name, ...(result as IDataObject) }, pairedItem: { item: itemIndex } }];
};

export const operations: Record<string, Operation> = {
	listTools,
	listResources,
	listResourceTemplates,
	listPrompts,
	readResource,
	getPrompt,
};
