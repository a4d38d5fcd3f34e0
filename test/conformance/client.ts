/**
 * MCP conformance client: the program the `@modelcontextprotocol/conformance` suite runs for each
 * client scenario. It talks to the suite's test server only through this package's connection core
 * (lib/mcp), configured exactly as an "MCP Server (HTTP)" credential with the Streamable HTTP
 * transport and no auth would configure it, so a passing scenario says something about the nodes.
 *
 * The suite runs:  <node> client.js <server-url>
 * with MCP_CONFORMANCE_SCENARIO=<scenario name>, MCP_CONFORMANCE_PROTOCOL_VERSION, and for some
 * scenarios MCP_CONFORMANCE_CONTEXT (JSON: e.g. the tool calls to make, with their arguments).
 *
 * Input requests: the nodes never answer on a person's behalf (MCP Call Tool declines, the Agent
 * asks a person through MCP Approval). Scenarios that need an accepted answer get one here, from
 * the requested schema's defaults (SEP-1034), the way a person accepting a pre-filled form would.
 *
 * OAuth (auth/* scenarios) goes through lib/mcp/oauth, the code the nodes use: an interactive
 * OAuthSession (discovery, registration or a Client ID Metadata Document or the pre-registered
 * client from the context, PKCE, resource, scopes, the iss check), with the headless driver
 * following the suite's authorization redirect as a browser would; the client-credentials
 * extension scenarios through clientCredentialsAuth, as the HTTP credential's client-credentials
 * option configures it. In n8n the interactive grant itself is n8n's "Connect my account"; the
 * tokens it stores reach the transport through hostTokenAuth (test/integration/oauth.test.ts).
 *
 * Exit code 0 when the scenario's flow completed, 1 (with an explained error on stderr) otherwise.
 * scripts/conformance.sh compiles this file (with lib/) and compares the suite's verdicts with
 * test/conformance/expected.json.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { callToolValidated } from '../../lib/mcp/toolCall';
import type { HttpServerConfig } from '../../lib/mcp/serverConfig';
import { clientCredentialsAuth } from '../../lib/mcp/oauth/clientCredentials';
import { headlessRedirect, OAuthSession } from '../../lib/mcp/oauth/oauthSession';
import type { McpAuth } from '../../lib/mcp/oauth/types';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { extractToolResult } from '../../lib/tools/callResult';

/** Below the suite's 30 s client timeout, so a hang ends with our explained error, not a kill. */
const TIMEOUT_MS = 15_000;

type Flow = (connection: McpConnection) => Promise<void>;

function log(message: string): void {
	process.stderr.write(`[conformance-client] ${message}\n`);
}

function configFor(url: string, auth?: McpAuth): HttpServerConfig {
	return {
		kind: 'http',
		url,
		transport: 'streamableHttp',
		headers: {},
		...(auth ? { auth } : {}),
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

/**
 * What a person accepting a pre-filled form sends: each field's default (SEP-1034), else the first
 * enum value, true, 0 or an empty string.
 */
function acceptWithDefaults(params: Record<string, unknown> | undefined): { action: 'accept'; content: Record<string, unknown> } {
	const schema = (params?.requestedSchema ?? {}) as { properties?: Record<string, Record<string, unknown>> };
	const content: Record<string, unknown> = {};
	for (const [name, field] of Object.entries(schema.properties ?? {})) {
		if (field.default !== undefined) content[name] = field.default;
		else if (Array.isArray(field.enum) && field.enum.length) content[name] = field.enum[0];
		else if (field.type === 'boolean') content[name] = true;
		else if (field.type === 'number' || field.type === 'integer') content[name] = 0;
		else content[name] = '';
	}
	return { action: 'accept', content };
}

/** The tool sends elicitation/create to the client while it runs (2025 era, SEP-1034 defaults). */
const elicitationDefaultsFlow: Flow = async (connection) => {
	connection.client.setRequestHandler('elicitation/create', (request) => acceptWithDefaults(request.params as Record<string, unknown>) as { action: 'accept'; content: Record<string, string | number | boolean> });
	const tool = findTool(await listTools(connection), 'test_client_elicitation_defaults');
	await callTool(connection, tool, {});
};

/**
 * A call through callToolInteractive (the Agent's path), answering every input_required round
 * with defaults and the request state echoed, as MCP Approval does once a person submitted the form.
 */
async function callAnswering(connection: McpConnection, name: string, args: Record<string, unknown>): Promise<string> {
	let outcome = await connection.callToolInteractive(name, args, { timeoutMs: TIMEOUT_MS });
	for (let round = 0; outcome.kind === 'input_required'; round++) {
		if (round >= 5) throw new Error(`tool "${name}" kept asking for input`);
		const inputResponses = Object.fromEntries(Object.entries(outcome.inputRequests).map(([key, request]) => [key, acceptWithDefaults(request.params)]));
		log(`${name} asked for ${Object.keys(inputResponses).join(', ')}; answering`);
		outcome = await connection.callToolInteractive(name, args, {
			timeoutMs: TIMEOUT_MS,
			continuation: { inputResponses, ...(outcome.requestState !== undefined ? { requestState: outcome.requestState } : {}) },
		});
	}
	if (outcome.kind !== 'result') throw new Error(`tool "${name}" did not finish (${outcome.kind})`);
	const output = extractToolResult(name, outcome.result);
	log(`${name} -> ${output.json.isError ? 'tool error: ' : ''}${output.json.text}`);
	if (output.json.isError) throw new Error(`tool "${name}" returned an error result: ${output.json.text}`);
	return output.json.text;
}

/** SEP-2322: the multi-round-trip tools, each completed with its request state echoed as received. */
const requestStateFlow: Flow = async (connection) => {
	const tools = await listTools(connection);
	for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
		findTool(tools, name);
		await callAnswering(connection, name, {});
	}
};

interface ScenarioContext {
	toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
	client_id?: string;
	client_secret?: string;
	private_key_pem?: string;
	signing_algorithm?: string;
}

function scenarioContext(): ScenarioContext {
	try {
		return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ScenarioContext;
	} catch {
		return {};
	}
}

/**
 * SEP-2243: the tool calls the scenario names, with its arguments (some deliberately outside the
 * schema, such as null for a boolean, so no argument validation here): marked arguments must
 * arrive as Mcp-Param-* headers, encoded.
 */
const customHeadersFlow: Flow = async (connection) => {
	const tools = await listTools(connection);
	for (const call of scenarioContext().toolCalls ?? []) {
		findTool(tools, call.name);
		await callAnswering(connection, call.name, call.arguments ?? {});
	}
};

/** SEP-2243: tools with invalid x-mcp-header declarations are left out; the valid one still works. */
const invalidToolHeadersFlow: Flow = async (connection) => {
	const tool = findTool(await listTools(connection), 'valid_tool');
	await callTool(connection, tool, { region: 'us-east1' });
};

/** SEP-1613/2106: the focal tool's inputSchema, as listed, goes back to the server verbatim. */
const schemaPreservationFlow: Flow = async (connection) => {
	const tools = await listTools(connection);
	const focal = findTool(tools, 'json_schema_2020_12_tool');
	await callTool(connection, findTool(tools, 'json_schema_echo'), { schema: focal.inputSchema });
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
	'sep-2322-client-request-state': requestStateFlow,
	'http-custom-headers': customHeadersFlow,
	'http-invalid-tool-headers': invalidToolHeadersFlow,
	'json-schema-2020-12-preservation': schemaPreservationFlow,
};

function flowFor(scenario: string): Flow {
	if (FLOWS[scenario]) return FLOWS[scenario];
	if (scenario.startsWith('auth/')) return authFlow;
	// A scenario added by a newer suite: do the basic handshake and listing so it gets a fair try.
	return initializeFlow;
}

/** The Client ID Metadata Document URL the suite's basic-cimd scenario expects as client_id. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Never contacted: the headless driver reads the code from the redirect's Location. */
const REDIRECT_URL = 'http://localhost:3000/callback';

/** Runs one connection through `flow` with the OAuth the scenario calls for (none outside auth/*). */
async function runScenario(scenario: string, url: string, flow: Flow): Promise<void> {
	const once = async (auth?: McpAuth) => {
		const connection = await McpConnection.open(configFor(url, auth));
		try {
			log(`connected: ${connection.server.name} ${connection.server.version}, protocol ${connection.protocolVersion ?? '(unknown)'}`);
			await flow(connection);
		} finally {
			await connection.close();
		}
	};
	if (!scenario.startsWith('auth/')) return once();
	const context = scenarioContext();
	if (scenario === 'auth/client-credentials-basic' || scenario === 'auth/client-credentials-jwt') {
		const authentication =
			scenario === 'auth/client-credentials-jwt'
				? { method: 'private_key_jwt' as const, privateKeyPem: context.private_key_pem ?? '', algorithm: context.signing_algorithm ?? 'ES256' }
				: { method: 'client_secret_basic' as const, clientSecret: context.client_secret ?? '' };
		return once(clientCredentialsAuth({ clientId: context.client_id ?? '', authentication }));
	}
	const session = new OAuthSession({
		serverUrl: url,
		redirectUrl: REDIRECT_URL,
		driver: headlessRedirect(),
		clientMetadataUrl: CLIENT_METADATA_URL,
		...(context.client_id ? { client: { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) } } : {}),
	});
	await session.run(() => once(session.auth));
}

async function main(): Promise<number> {
	const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
	const url = process.argv[2];
	if (!scenario || !url) {
		log('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node client.js <server-url>');
		return 2;
	}
	log(`scenario ${scenario}, server ${url}`);
	try {
		await runScenario(scenario, url, flowFor(scenario));
		log('done');
		return 0;
	} catch (error) {
		log(`failed: ${error instanceof Error ? error.message : String(error)}`);
		return 1;
	}
}

main().then(
	(code) => process.exit(code),
	(error) => {
		log(`unexpected: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
		process.exit(1);
	},
);
