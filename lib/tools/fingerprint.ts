import { createHash } from 'node:crypto';
import type { ToolDefinition } from './toolDefinition';

/**
 * JSON with object keys sorted at every level, so that two servers (or two runs) that send the
 * same definition with keys in another order get the same fingerprint.
 */
export function canonicalJson(value: unknown): string {
	if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	const entries = Object.keys(value as Record<string, unknown>)
		.filter((key) => (value as Record<string, unknown>)[key] !== undefined)
		.sort()
		.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
	return `{${entries.join(',')}}`;
}

/**
 * A stable hash of everything that changes what a tool does or what the model is told about it:
 * name, title, description, both schemas and the annotations. Pinning compares these, so any
 * change (a "rug pull") shows up as a different fingerprint.
 */
export function fingerprintTool(tool: ToolDefinition): string {
	const material = canonicalJson({
		name: tool.name,
		title: tool.title ?? null,
		description: tool.description ?? null,
		inputSchema: tool.inputSchema ?? null,
		outputSchema: tool.outputSchema ?? null,
		annotations: tool.annotations ?? null,
	});
	return `sha256:${createHash('sha256').update(material).digest('hex')}`;
}

/** The name under which a server's instructions are listed (MCP List Tools), pinned and withheld; never a valid tool name. */
export const INSTRUCTIONS_PIN_NAME = '(server instructions)';

/**
 * A stable hash of a server's `instructions` (from initialize), which the Agent can append to the
 * system prompt: pinned like a tool, so a server cannot change what it tells the model unnoticed.
 * The kind is part of the material, so it can never equal a tool's fingerprint.
 */
export function fingerprintInstructions(text: string): string {
	const material = canonicalJson({ kind: 'instructions', text: text.trim() });
	return `sha256:${createHash('sha256').update(material).digest('hex')}`;
}
