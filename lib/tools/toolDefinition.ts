/** The parts of an MCP tool definition this package reads (a subset of the SDK's Tool type). */
export interface ToolAnnotations {
	title?: string;
	readOnlyHint?: boolean;
	destructiveHint?: boolean;
	idempotentHint?: boolean;
	openWorldHint?: boolean;
	[key: string]: unknown;
}

export interface ToolDefinition {
	name: string;
	title?: string;
	description?: string;
	inputSchema: Record<string, unknown>;
	outputSchema?: Record<string, unknown>;
	annotations?: ToolAnnotations;
	/** How the tool may be called (MCP 2025-11-25): `taskSupport` 'forbidden' (default), 'optional' or 'required' (lib/mcp/toolTask.ts). */
	execution?: { taskSupport?: string; [key: string]: unknown };
	/** The tool's `_meta` as listed (MCP Apps settings among others: lib/tools/mcpApps.ts). */
	_meta?: Record<string, unknown>;
}

/** Who a listing came from, as the server introduced itself at initialization. */
export interface ServerIdentity {
	name: string;
	version: string;
	title?: string;
}
