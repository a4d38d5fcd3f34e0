import type { ToolDefinition } from './toolDefinition';

/**
 * What this package reads of the MCP Apps extension (io.modelcontextprotocol/ui): a tool's
 * `_meta.ui.resourceUri` (the `ui://` resource that renders it; also the older flat key
 * `_meta["ui/resourceUri"]`) and `_meta.ui.visibility`, a list of "model" and "app" (both when
 * absent). A tool whose visibility leaves out "model" is for the app alone: a host must not offer it
 * to a model. The package renders no apps, so such tools are only ever called by a person's explicit
 * choice (MCP Call Tool as a node).
 */
export const APP_ONLY_REASON = 'app-only tool (MCP Apps)';

export interface McpAppsUi {
	/** `_meta.ui.visibility` leaves out "model". */
	appOnly: boolean;
	/** The `ui://` resource the tool belongs to, when the server names one. */
	resourceUri?: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The tool's MCP Apps settings. A visibility that is not a list of strings is read as the default
 * (both), except a single string, read as a list of one: a server writing `"app"` means app only.
 */
export function mcpAppsUi(tool: Pick<ToolDefinition, '_meta'>): McpAppsUi {
	const meta = record(tool._meta);
	const ui = record(meta?.ui);
	const raw = ui?.visibility;
	const visibility = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((entry) => typeof entry === 'string') ? (raw as string[]) : undefined;
	const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : typeof meta?.['ui/resourceUri'] === 'string' ? (meta['ui/resourceUri'] as string) : undefined;
	return { appOnly: visibility !== undefined && !visibility.includes('model'), ...(uri ? { resourceUri: uri } : {}) };
}

export function isAppOnlyTool(tool: Pick<ToolDefinition, '_meta'>): boolean {
	return mcpAppsUi(tool).appOnly;
}
