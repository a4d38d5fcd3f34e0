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
	return tools.map((tool) => ({
		name: tool.name,
		...(tool.title !== undefined ? { title: tool.title } : {}),
		...(tool.description !== undefined ? { description: tool.description } : {}),
		inputSchema: tool.inputSchema,
		...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
		...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
		annotationsTrusted: options.trustAnnotations,
		fingerprint: fingerprintTool(tool),
		server,
		...(options.providerFormats
			? { formats: { anthropic: toAnthropicTool(tool), openAiChat: toOpenAiChatTool(tool), openAiResponses: toOpenAiResponsesTool(tool) } }
			: {}),
	}));
}
