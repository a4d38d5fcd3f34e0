import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { compileArgumentValidator } from '../tools/argumentValidator';
import type { ToolDefinition } from '../tools/toolDefinition';

/**
 * The check Client.callTool() makes when it knows a tool's output schema; ours runs on the
 * RE2-backed validator (server-supplied patterns in linear time) and is the only one: the client is
 * never given output schemas (lib/mcp/interactiveCall.ts). A tool with an outputSchema must return
 * structuredContent that matches it, unless isError. Only the tool actually called is compiled (on
 * first use, cached by schema).
 */
export function checkToolOutput(tool: Pick<ToolDefinition, 'name' | 'outputSchema'>, result: Record<string, unknown>): void {
	if (!tool.outputSchema || result.isError === true) return;
	if (result.structuredContent === undefined) {
		throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Tool ${tool.name} has an output schema but did not return structured content`);
	}
	let validate: ReturnType<typeof compileArgumentValidator>;
	try {
		validate = compileArgumentValidator(tool.outputSchema);
	} catch (error) {
		throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to validate structured content: ${(error as Error).message}`);
	}
	let valid: boolean;
	try {
		valid = validate(result.structuredContent) as boolean;
	} catch (error) {
		// An output schema that recurses without end or exhausts the reference budget (SchemaCompileError).
		throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to validate structured content: ${(error as Error).message}`);
	}
	if (!valid) {
		const details = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join(', ');
		throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${details}`);
	}
}
