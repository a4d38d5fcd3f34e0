import { createHash } from 'node:crypto';

/**
 * Provider tool names allow fewer characters than MCP names (OpenAI and Anthropic accept
 * [a-zA-Z0-9_-], 64 characters at most). A name that already fits goes through unchanged; any
 * other name is rewritten and suffixed with a short hash of the original so that two different MCP
 * names can never map to the same provider name. The caller keeps the reverse table.
 */
const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function toProviderToolName(mcpName: string): string {
	if (PROVIDER_NAME.test(mcpName)) return mcpName;
	const hash = createHash('sha256').update(mcpName).digest('hex').slice(0, 8);
	const cleaned = mcpName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64 - hash.length - 1);
	return `${cleaned}_${hash}`;
}
