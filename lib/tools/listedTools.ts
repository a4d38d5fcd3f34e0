import type { ServerIdentity } from './toolDefinition';
import { fingerprintTool } from './fingerprint';
import { toAnthropicTool, toOpenAiChatTool, toOpenAiResponsesTool } from './providerFormats';
import type { ToolDefinition } from './toolDefinition';
import { mcpAppsUi } from './mcpApps';

/** One tool as the MCP List Tools node outputs it. */
export interface ListedTool {
	name: string;
	title?: string;
	description?: string;
	inputSchema: Record<string, unknown>;
	outputSchema?: Record<string, unknown>;
	annotations?: Record<string, unknown>;
	/** The tool's `_meta` as listed (redacted as every server answer is): MCP Apps settings among others. */
	_meta?: Record<string, unknown>;
	/** MCP Apps: the tool is for the app alone (`_meta.ui.visibility` leaves out "model"); the Agent never offers it to a model. */
	appOnly?: true;
	/** MCP Apps: the `ui://` resource the tool belongs to (`_meta.ui.resourceUri`). */
	uiResourceUri?: string;
	/** Whether the credential says this server's annotations may be believed. */
	annotationsTrusted: boolean;
	fingerprint: string;
	server: ServerIdentity;
	formats?: { anthropic: unknown; openAiChat: unknown; openAiResponses: unknown };
}

export function describeTools(
	tools: ToolDefinition[],
	server: ServerIdentity,
	options: { trustAnnotations: boolean; providerFormats: boolean },
): ListedTool[] {
	// Copies: the definitions are a kept connection's cached listing, shared with later executions,
	// and a node downstream may edit its input items in place.
	return tools.map((tool) => ({
		name: tool.name,
		...(tool.title !== undefined ? { title: tool.title } : {}),
		...(tool.description !== undefined ? { description: tool.description } : {}),
		inputSchema: structuredClone(tool.inputSchema),
		...(tool.outputSchema !== undefined ? { outputSchema: structuredClone(tool.outputSchema) } : {}),
		...(tool.annotations !== undefined ? { annotations: structuredClone(tool.annotations) } : {}),
		...appsFields(tool),
		annotationsTrusted: options.trustAnnotations,
		fingerprint: fingerprintTool(tool),
		server,
		...(options.providerFormats
			? { formats: { anthropic: toAnthropicTool(tool), openAiChat: toOpenAiChatTool(tool), openAiResponses: toOpenAiResponsesTool(tool) } }
			: {}),
	}));
}

function appsFields(tool: ToolDefinition): Pick<ListedTool, '_meta' | 'appOnly' | 'uiResourceUri'> {
	if (tool._meta === undefined) return {};
	const ui = mcpAppsUi(tool);
	return {
		_meta: structuredClone(tool._meta),
		...(ui.appOnly ? { appOnly: true as const } : {}),
		...(ui.resourceUri !== undefined ? { uiResourceUri: ui.resourceUri } : {}),
	};
}
