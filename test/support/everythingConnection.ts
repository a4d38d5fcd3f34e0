import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { everythingStdio, httpConfig, startEverythingHttp, type RunningServer } from './servers';

/** A connection to the real server-everything over stdio, or over Streamable HTTP with the server it started (stop it after). */
export async function connectEverything(transport: 'stdio' | 'streamableHttp'): Promise<{ connection: McpConnection; http?: RunningServer }> {
	if (transport === 'stdio') return { connection: await McpConnection.open(everythingStdio()) };
	const http = await startEverythingHttp();
	return { connection: await McpConnection.open(httpConfig(http.url)), http };
}

/** The listed tool of that name; a test fails when the server has none. */
export async function toolNamed(connection: McpConnection, name: string): Promise<ToolDefinition> {
	const tool = (await listAllTools(connection)).find((each) => each.name === name);
	if (!tool) throw new Error(`no tool ${name}`);
	return tool;
}
