/**
 * Where a tool call shows in the n8n editor: as input and output data on the sub-node that supplied
 * the tool (as n8n's AI Agent shows its calls). An MCP Server sub-node puts one on its handle, made
 * from its own supplyData context (nodes/McpAgent/subNodeCallLog.ts); n8n's tool nodes log their
 * calls on themselves when invoked.
 */
export interface ToolCallLog {
	/** A call starts; the function returned is told how it ended. */
	start(call: { tool: string; arguments: unknown }): (end: ToolCallEnd) => void;
}

export interface ToolCallEnd {
	isError: boolean;
	/** The result text as the model gets it (already capped). */
	text: string;
	durationMs: number;
	/** The server asked a person for input first: the call waits on the review page. */
	waitingForInput?: boolean;
	/** The call became an MCP task that still runs: the run waits for it (the execution pauses). */
	waitingForTask?: boolean;
}

export function isToolCallLog(value: unknown): value is ToolCallLog {
	return Boolean(value && typeof value === 'object' && typeof (value as { start?: unknown }).start === 'function');
}
