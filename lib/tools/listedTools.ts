import type { ServerIdentity } from '../mcp/connection';
import { fingerprintTool } from './fingerprint';
import { toAnthropicTool, toOpenAiChatTool, toOpenAiResponsesTool } from './providerFormats';
import type { ToolDefinition } from './toolDefinition';

/** One tool as the MCP List Tools node outputs it. */
export interface ListedTool {
	name: string;
	title?: string;
	description?: string;
	inputSchema: Record<string, unknown>;
	outputSchema?: Record<string, unknown>;
	annotations?: Record<string, unknown>;
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
		annotationsTrusted: options.trustAnnotations,
		fingerprint: fingerprintTool(tool),
		server,
		...(options.providerFormats
			? { formats: { anthropic: toAnthropicTool(tool), openAiChat: toOpenAiChatTool(tool), openAiResponses: toOpenAiResponsesTool(tool) } }
			: {}),
	}));
}
