import type { McpServerConfig } from '../mcp/serverConfig';
import type { ToolCallLog } from './callLog';

/**
 * What an MCP Server sub-node hands the Agent through n8n's ai_tool input: a plain object, so it
 * survives n8n's connection plumbing untouched. `kind` tells it apart from LangChain tools that
 * n8n's own tool nodes supply on the same input.
 */
export const SERVER_HANDLE_KIND = 'n8n-nodes-mcp-agent.server';

export interface ServerHandle {
	kind: typeof SERVER_HANDLE_KIND;
	/** The sub-node's name, unique within a workflow: used to namespace and label tools. */
	name: string;
	config: McpServerConfig;
	include: string[];
	exclude: string[];
	/**
	 * Shows each call of this server's tools on the sub-node in the editor's execution view. Made by
	 * the sub-node from its own supplyData context with subNodeCallLog(this); absent in handles of
	 * sub-nodes that do not provide it (their calls are then only in the Agent's output and log).
	 */
	callLog?: ToolCallLog;
}

export function isServerHandle(value: unknown): value is ServerHandle {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === SERVER_HANDLE_KIND);
}
