import { buildCatalog, type CatalogOptions, type CatalogResult, type ServerTools } from './catalog';
import { capText } from './toolOutcome';
import { toolSchemaToJsonSchema } from './zodSchema';
import type { ToolDefinition } from '../tools/toolDefinition';
import { McpAgentError } from '../errors';

/**
 * n8n's own tool nodes on the Agent's tools input (Code Tool, Call n8n Workflow Tool, HTTP Request
 * Tool, vector-store tools, any node used as a tool). n8n hands them over as LangChain tool objects
 * (`name`, `description`, `schema`, `invoke`), or toolkits holding several. They are read by
 * duck typing: this package must not import n8n's LangChain (a second copy would not match).
 *
 * Each tool node is a source like an MCP server: its node name is the "server" in patterns
 * (`Code Tool/*`), pins and the review page. Such tools carry no MCP annotations, so nothing says
 * they are read-only: by the default policy every call waits for a person unless Never Ask For
 * names it.
 */
export interface N8nTool {
	name: string;
	description: string;
	schema?: unknown;
	invoke(input: unknown, config?: unknown): Promise<unknown>;
	metadata?: Record<string, unknown>;
}

/** The tools one n8n node supplied. */
export interface N8nToolSource {
	/** The node's name (unique in the workflow). */
	node: string;
	tools: N8nTool[];
}

export class N8nToolRefused extends McpAgentError {
	constructor(message: string, description?: string) {
		super(message, { code: 'config', ...(description !== undefined ? { description } : {}) });
		this.name = 'N8nToolRefused';
	}
}

export function isN8nTool(value: unknown): value is N8nTool {
	const tool = value as Partial<N8nTool> | null;
	return Boolean(tool && typeof tool === 'object' && typeof tool.name === 'string' && typeof tool.description === 'string' && typeof tool.invoke === 'function');
}

/** n8n's StructuredToolkit (and LangChain toolkits): `tools` plus `getTools()`. */
export function isToolkit(value: unknown): value is { tools: unknown[] } {
	const kit = value as { tools?: unknown; getTools?: unknown } | null;
	return Boolean(kit && typeof kit === 'object' && Array.isArray(kit.tools) && typeof kit.getTools === 'function');
}

/**
 * The node that supplied a tool: n8n 2.x names it in `metadata.sourceNodeName`; n8n 1.x does not,
 * so the caller's `fallback` (the node at the response's position on the tools input) is used, and
 * the tool's own name only when neither is known.
 */
function sourceNodeOf(tool: N8nTool, fallback?: string): string {
	const node = tool.metadata?.sourceNodeName;
	if (typeof node === 'string' && node) return node;
	return fallback || tool.name;
}

/**
 * The supplied tools grouped by the node that supplied them, in the order n8n gave them. n8n's
 * human-review tool nodes (which gate other tools for n8n's AI Agent and do nothing themselves) are
 * refused: their calls would silently do nothing here; this Agent's own review covers them.
 * `nodeNames[i]` names the node that supplied `entries[i]`, for tools without `metadata.sourceNodeName`
 * (n8n 1.x).
 */
export function groupN8nTools(entries: unknown[], nodeNames: ReadonlyArray<string | undefined> = []): N8nToolSource[] {
	const byNode = new Map<string, N8nTool[]>();
	const add = (tool: N8nTool, fallback: string | undefined) => {
		if (tool.metadata && typeof tool.metadata.gatedToolNodeName === 'string') {
			throw new N8nToolRefused(
				`"${sourceNodeOf(tool, fallback)}" is one of n8n's human review tool nodes, which only n8n's AI Agent can run`,
				'Connect the tool nodes directly to this Agent: its Require Approval For setting and MCP Approval review their calls.',
			);
		}
		const node = sourceNodeOf(tool, fallback);
		const list = byNode.get(node) ?? [];
		list.push(tool);
		byNode.set(node, list);
	};
	for (const [index, entry] of entries.entries()) {
		const fallback = nodeNames[index];
		if (isToolkit(entry)) {
			for (const tool of entry.tools) if (isN8nTool(tool)) add(tool, fallback);
		} else if (isN8nTool(entry)) add(entry, fallback);
	}
	return [...byNode].map(([node, tools]) => ({ node, tools }));
}

/** A tool's definition as the catalog, the fingerprint and the review page read it. */
export function n8nToolDefinition(tool: N8nTool): ToolDefinition {
	return { name: tool.name, description: tool.description, inputSchema: toolSchemaToJsonSchema(tool.schema) };
}

export interface N8nToolCatalog extends CatalogResult {
	/** The tool objects by node name and tool name, for the tool runner. */
	index: N8nToolIndex;
}

export type N8nToolIndex = Map<string, Map<string, N8nTool>>;

/**
 * The n8n tools' catalog entries: names checked, descriptions scanned, fingerprints over name,
 * description and schema, pins applied. Pins for them must name their node ("Code Tool/my_tool"):
 * an unqualified pin is meant for the only MCP server and never admits an n8n tool.
 */
export function buildN8nToolCatalog(sources: N8nToolSource[], options: CatalogOptions = {}): N8nToolCatalog {
	const servers: ServerTools[] = sources.map((source) => ({
		id: source.node,
		name: source.node,
		tools: source.tools.map(n8nToolDefinition),
		trustAnnotations: false,
		source: 'n8n',
	}));
	const pinned = options.pinned ? { entries: options.pinned.entries.filter((entry) => entry.server !== undefined) } : undefined;
	const result = buildCatalog(servers, { ...options, ...(pinned ? { pinned } : {}), appendInstructions: false });
	const index: N8nToolIndex = new Map();
	for (const source of sources) index.set(source.node, new Map(source.tools.map((tool) => [tool.name, tool])));
	return { ...result, index };
}

/** A tool's result as text for the model: strings as they are, LangChain messages by their content, anything else as JSON. */
export function n8nResultText(result: unknown): string {
	if (typeof result === 'string') return result;
	if (result === undefined || result === null) return '';
	const content = (result as { content?: unknown }).content;
	if (content !== undefined && typeof (result as { tool_call_id?: unknown }).tool_call_id === 'string') return n8nResultText(content);
	if (Array.isArray(result) && result.every((part) => part && typeof part === 'object' && (part as { type?: unknown }).type === 'text')) {
		return result.map((part) => String((part as { text?: unknown }).text ?? '')).join('\n');
	}
	try {
		return JSON.stringify(result) ?? String(result);
	} catch {
		return String(result);
	}
}

export interface N8nCallResult {
	isError: boolean;
	text: string;
}

/**
 * Runs one n8n tool with arguments already validated against its schema (the tool parses them with
 * its own schema again). Never throws: a failure or a timeout becomes an error result for the model,
 * capped at `maxChars` (0: left whole, for a caller that trims it itself, as the tool runner does). The tool node logs the call on itself in the editor's execution view
 * (n8n's tools do that when invoked).
 */
export async function invokeN8nTool(tool: N8nTool, args: Record<string, unknown>, options: { timeoutMs: number; maxChars: number }): Promise<N8nCallResult> {
	let timer: NodeJS.Timeout | undefined;
	// Given to the tool as LangChain's RunnableConfig signal: a tool that honours it (an HTTP
	// Request Tool's request, a sub-workflow) stops at the timeout instead of running on unseen
	// while the model, told the call failed, may try it again.
	const abort = new AbortController();
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => {
			const error = new McpAgentError(`the tool did not answer within ${options.timeoutMs} ms`, { code: 'tool', description: 'Raise Options > Tool Call Timeout (Ms) of the Agent if the tool needs longer.' });
			abort.abort(error);
			reject(error);
		}, options.timeoutMs);
	});
	try {
		const result = await Promise.race([Promise.resolve().then(() => tool.invoke(args, { signal: abort.signal })), timeout]);
		return { isError: false, text: capText(n8nResultText(result), options.maxChars) };
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return { isError: true, text: capText(`The tool call failed: ${message}`, options.maxChars) };
	} finally {
		clearTimeout(timer);
	}
}
