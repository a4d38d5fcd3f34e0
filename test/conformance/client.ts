/**
 * MCP conformance client: the program the `@modelcontextprotocol/conformance` suite runs for each
 * client scenario. It talks to the suite's test server only through this package's connection core
 * (lib/mcp), configured exactly as an "MCP Server (HTTP)" credential with the Streamable HTTP
 * transport and no auth would configure it, so a passing scenario says something about the nodes.
 *
 * The suite runs:  <node> client.js <server-url>
 * with MCP_CONFORMANCE_SCENARIO=<scenario name> (and, for some auth scenarios, MCP_CONFORMANCE_CONTEXT).
 *
 * Exit code 0 when the scenario's flow completed, 1 (with an explained error on stderr) otherwise.
 * scripts/conformance.sh compiles this file (with lib/) and compares the suite's verdicts with
 * test/conformance/expected.json.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { callToolValidated } from '../../lib/mcp/toolCall';
import type { HttpServerConfig } from '../../lib/mcp/serverConfig';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { extractToolResult } from '../../lib/tools/callResult';

/** Below the suite's 30 s client timeout, so a hang ends with our explained error, not a kill. */
const TIMEOUT_MS = 15_000;

type Flow = (connection: McpConnection) => Promise<void>;

function log(message: string): void {
	process.stderr.write(`[conformance-client] ${message}\n`);
}

function configFor(url: string): HttpServerConfig {
	return {
		kind: 'http',
		url,
		transport: 'streamableHttp',
		headers: {},
		trustAnnotations: false,
		connectTimeoutMs: TIMEOUT_MS,
		requestTimeoutMs: TIMEOUT_MS,
	};
}

async function listTools(connection: McpConnection): Promise<ToolDefinition[]> {
	const tools = await listAllTools(connection);
	log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
	return tools;
}

function findTool(tools: ToolDefinition[], name: string): ToolDefinition {
	const tool = tools.find((t) => t.name === name);
	if (!tool) throw new Error(`the server did not list the tool "${name}"`);
	return tool;
}

/** Calls through the same validated path the MCP Call Tool node uses; a tool error fails the flow. */
async function callTool(connection: McpConnection, tool: ToolDefinition, args: Record<string, unknown>): Promise<string> {
	const raw = await callToolValidated(connection, tool, args);
	const output = extractToolResult(tool.name, raw);
	log(`${tool.name} -> ${output.json.isError ? 'tool error: ' : ''}${output.json.text}`);
	if (output.json.isError) throw new Error(`tool "${tool.name}" returned an error result: ${output.json.text}`);
	return output.json.text;
}

/** initialize (connect), then tools/list: what every node does first. */
const initializeFlow: Flow = async (connection) => {
	await listTools(connection);
};

const toolsCallFlow: Flow = async (connection) => {
	const tool = findTool(await listTools(connection), 'add_numbers');
	const text = await callTool(connection, tool, { a: 2, b: 3 });
	if (!/\b5\b/.test(text)) throw new Error(`add_numbers(2, 3) answered "${text}", expected the sum 5`);
};

/** The result arrives only after the client resumes the SSE stream the server closed (SEP-1699). */
const sseRetryFlow: Flow = async (connection) => {
	const tool = findTool(await listTools(connection), 'test_reconnection');
	await callTool(connection, tool, {});
};

/** The tool sends elicitation/create to the client while it runs (SEP-1034 defaults). */
const elicitationDefaultsFlow: Flow = async (connection) => {
	const tool = findTool(await listTools(connection), 'test_client_elicitation_defaults');
	await callTool(connection, tool, {});
};

/** The auth scenarios' test server offers one tool, "test-tool", behind OAuth. */
const authFlow: Flow = async (connection) => {
	const tools = await listTools(connection);
	const tool = tools.find((t) => t.name === 'test-tool');
	if (tool) await callTool(connection, tool, {});
};

const FLOWS: Record<string, Flow> = {
	initialize: initializeFlow,
	tools_call: toolsCallFlow,
	'sse-retry': sseRetryFlow,
	'elicitation-sep1034-client-defaults': elicitationDefaultsFlow,
};

function flowFor(scenario: string): Flow {
	if (FLOWS[scenario]) return FLOWS[scenario];
	if (scenario.startsWith('auth/')) return authFlow;
	// A scenario added by a newer suite: do the basic handshake and listing so it gets a fair try.
	return initializeFlow;
}

async function main(): Promise<number> {
	const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
	const url = process.argv[2];
	if (!scenario || !url) {
		log('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node client.js <server-url>');
		return 2;
	}
	log(`scenario ${scenario}, server ${url}`);
	let connection: McpConnection | undefined;
	try {
		connection = await McpConnection.open(configFor(url));
		log(`connected: ${connection.server.name} ${connection.server.version}, protocol ${connection.protocolVersion ?? '(unknown)'}`);
		await flowFor(scenario)(connection);
		log('done');
		return 0;
	} catch (error) {
		log(`failed: ${error instanceof Error ? error.message : String(error)}`);
		return 1;
	} finally {
		await connection?.close();
	}
}

main().then(
	(code) => process.exit(code),
	(error) => {
		log(`unexpected: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
		process.exit(1);
	},
);
