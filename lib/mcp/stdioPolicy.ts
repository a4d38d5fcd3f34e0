import { McpFailure } from './errors';

/**
 * Local commands run with n8n's privileges, so they are off until the administrator opts in,
 * the same stance n8n 2.x takes with its Execute Command node.
 */
export const STDIO_ENABLE_VARIABLE = 'N8N_MCP_AGENT_ALLOW_STDIO';

export function isStdioAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
	return /^(true|1|yes)$/i.test((env[STDIO_ENABLE_VARIABLE] ?? '').trim());
}

export function assertStdioAllowed(env: NodeJS.ProcessEnv = process.env): void {
	if (!isStdioAllowed(env)) {
		throw new McpFailure(
			`Local command (stdio) MCP servers are disabled on this n8n. An administrator can enable them by setting the environment variable ${STDIO_ENABLE_VARIABLE}=true for n8n (and for every worker in queue mode) and restarting n8n.`,
			'disabled',
		);
	}
}
