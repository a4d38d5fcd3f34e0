/**
 * The error family, kept (issue 27, point 4): every error a user can see is an McpAgentError with a
 * code, a message saying what was wrong and where, and a description saying what to do; McpFailure
 * keeps the server's output in a field, not in its message; the family is recognised by its marker
 * (`isInstance`), never by `instanceof`, so two copies of the package still know each other's errors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { NodeApiError, NodeOperationError, type IExecuteFunctions, type INode } from 'n8n-workflow';
import { buildCatalog, parsePinnedFingerprints } from '../../lib/agent/catalog';
import { parseHistory } from '../../lib/agent/output';
import { connectServers } from '../../lib/agent/servers';
import { SERVER_HANDLE_KIND, type ServerHandle } from '../../lib/agent/serverHandle';
import { McpAgentError } from '../../lib/errors';
import { serverConfigFromCredential } from '../../lib/mcp/credentialData';
import { explainMcpError, failureDetails, McpFailure } from '../../lib/mcp/errors';
import { collectPages } from '../../lib/mcp/listing';
import type { McpServerConfig, StdioServerConfig } from '../../lib/mcp/serverConfig';
import { explainProviderError, ProviderError } from '../../lib/providers/errors';
import { checkHistory } from '../../lib/providers/shared';
import { anthropicMessageFromEvents } from '../../lib/providers/streamedResponses';
import { adapterFor } from '../../lib/providers/registry';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { errorItem, toNodeError } from '../../nodes/shared/nodeErrors';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(path: string): string[] {
	if (path.endsWith('.ts')) return [path];
	return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
		const child = join(path, entry.name);
		if (entry.isDirectory()) return sourceFiles(child);
		return entry.name.endsWith('.ts') ? [child] : [];
	});
}

/** The file's code without its comments (line and block), line numbers kept. */
function codeOf(file: string): string[] {
	const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '));
	return source.split('\n').map((line) => line.replace(/(^|[^:'"`\\])\/\/.*$/, '$1'));
}

interface Hit {
	file: string;
	line: number;
	code: string;
}

function occurrences(paths: string[], pattern: RegExp): Hit[] {
	return paths.flatMap((path) =>
		sourceFiles(join(ROOT, path)).flatMap((file) =>
			codeOf(file).flatMap((code, index) => (pattern.test(code) ? [{ file: relative(ROOT, file), line: index + 1, code: code.trim() }] : [])),
		),
	);
}

interface Allowed {
	file: string;
	/** A piece of the line that holds it. */
	code: string;
	reason: string;
}

const allowedBy = (list: Allowed[]) => (hit: Hit) => list.some((entry) => entry.file === hit.file && hit.code.includes(entry.code));
const where = (hit: Hit) => `${hit.file}:${hit.line}: ${hit.code}`;

/**
 * Plain Errors that may stay, each with why no input can reach it. Anything else a user could see
 * must be an McpAgentError (or a subclass) with a code and a description.
 */
const PLAIN_ERRORS_ALLOWED: Allowed[] = [
	{
		file: 'lib/tools/poisoning.ts',
		code: 'poisoning check: unsupported flag',
		reason: "a flag of the module's own check table (SOURCES), compiled when the module loads: a fault of ours that any test importing it catches",
	},
	{
		file: 'lib/mcp/processStdioTransport.ts',
		code: 'transport already started',
		reason: 'start() called twice: the SDK client starts a transport once, no input can start it again',
	},
];

/** Error classes outside the family, each with where it is caught or explained before a user sees it. */
const ERROR_CLASSES_OUTSIDE_THE_FAMILY: Allowed[] = [
	{ file: 'lib/errors.ts', code: 'class McpAgentError extends Error', reason: 'the family itself' },
	{ file: 'lib/approvals/editTree.ts', code: 'class TooManyFields', reason: 'caught in the same module (the edit form falls back to JSON)' },
	{ file: 'lib/tools/safeRegExp.ts', code: 'class UnsupportedPatternError', reason: "caught by argumentValidator.ts, which reports the tool's schema as unusable" },
	{ file: 'lib/tools/referenceBudget.ts', code: 'class ReferenceBudgetExceeded', reason: 'caught by argumentValidator.ts (a validation problem)' },
	{ file: 'lib/tools/argumentValidator.ts', code: 'class SchemaCompileError', reason: 'caught in the same module (an unusable schema)' },
	{
		file: 'lib/mcp/streamLimits.ts',
		code: 'class AnswerTooLarge',
		reason: 'explained by explainMcpError (MCP) or explainProviderError (models), or failed as the answer (leanHttpTransport.ts)',
	},
	{ file: 'lib/mcp/processStdioTransport.ts', code: 'class ProcessExitError', reason: "the stdio process's exit, explained by explainMcpError as process-exited or spawn-failed" },
];

const PLAIN_ERROR = /(?<![\w$.])Error\(/;

describe('the family is kept (a scan of lib/)', () => {
	it('raises no plain Error outside the allow-list', () => {
		expect(
			occurrences(['lib'], PLAIN_ERROR)
				.filter((hit) => !allowedBy(PLAIN_ERRORS_ALLOWED)(hit))
				.map(where),
		).toEqual([]);
		// Each entry still matches a line (one that outlives its Error is removed).
		for (const entry of PLAIN_ERRORS_ALLOWED)
			expect({ entry: entry.file, found: occurrences([entry.file], PLAIN_ERROR).some(allowedBy([entry])) }).toEqual({ entry: entry.file, found: true });
	});

	it('defines no error class outside the family except the listed internal ones', () => {
		const found = occurrences(['lib'], /\bextends\s+(?:Error|TypeError|RangeError|SyntaxError)\b/);
		expect(found.filter((hit) => !allowedBy(ERROR_CLASSES_OUTSIDE_THE_FAMILY)(hit)).map(where)).toEqual([]);
	});

	it('recognises the family by its marker only: no instanceof on a class of the family in lib/ or nodes/', () => {
		const family = new Set(['McpAgentError']);
		const classes = occurrences(['lib'], /\bclass\s+\w+\s+extends\s+\w+/).map((hit) => /class\s+(\w+)\s+extends\s+(\w+)/.exec(hit.code)!.slice(1, 3));
		// Subclasses of subclasses: repeat until nothing is added.
		for (let grown = true; grown;) {
			grown = false;
			for (const [name, base] of classes) {
				if (family.has(base) && !family.has(name)) {
					family.add(name);
					grown = true;
				}
			}
		}
		expect([...family]).toEqual(expect.arrayContaining(['McpFailure', 'ProviderError', 'AddressRefused', 'SettingsError', 'InputRequestRefused', 'RunCancelled']));
		expect(occurrences(['lib', 'nodes'], new RegExp(`\\binstanceof\\s+(?:${[...family].join('|')})\\b`)).map(where)).toEqual([]);
	});
});

describe('one way to recognise the family, across two copies of the package', () => {
	it('isInstance knows an error made by another copy of the module, and the node glue maps it with its description', () => {
		let Other: { McpFailure: typeof McpFailure; ProviderError: typeof ProviderError } | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			Other = { McpFailure: require('../../lib/mcp/errors').McpFailure, ProviderError: require('../../lib/providers/errors').ProviderError };
		});
		const foreign = new Other!.McpFailure('Connection refused by http://x/mcp', 'refused', 'stderr line', undefined, 'Start the server.');
		expect(foreign).not.toBeInstanceOf(McpFailure);
		expect(McpAgentError.isInstance(foreign)).toBe(true);
		expect(McpFailure.isInstance(foreign)).toBe(true);
		expect(ProviderError.isInstance(foreign)).toBe(false);
		expect(ProviderError.isInstance(new Other!.ProviderError('x', 429))).toBe(true);
		expect(McpFailure.isInstance(new Error('plain'))).toBe(false);
		const nodeError = toNodeError(context(), foreign);
		expect({ message: nodeError.message, description: nodeError.description }).toEqual({
			message: 'Connection refused by http://x/mcp',
			description: 'Start the server.\n\nLast output of the server:\nstderr line',
		});
	});
});

const NODE: INode = { id: '1', name: 'MCP Agent', type: 'mcpAgent', typeVersion: 1, position: [0, 0], parameters: {} };

function context(): IExecuteFunctions {
	return { getNode: () => NODE } as unknown as IExecuteFunctions;
}

/** What the function throws (synchronously or as a rejection); fails the test when it does not. */
async function thrownBy(run: () => unknown): Promise<unknown> {
	try {
		await run();
	} catch (error) {
		return error;
	}
	throw new Error('expected a failure');
}

/** The error is of the family with `code` and a description, and n8n's error carries both message and description. */
function expectUserError(error: unknown, code: McpAgentError['code'], message: RegExp): NodeOperationError | NodeApiError {
	expect(McpAgentError.isInstance(error)).toBe(true);
	const family = error as McpAgentError;
	expect(family.code).toBe(code);
	expect(family.message).toMatch(message);
	expect(family.description).toEqual(expect.any(String));
	const nodeError = toNodeError(context(), error, 0);
	expect(nodeError).toBeInstanceOf(NodeOperationError);
	expect(nodeError.message).toBe(family.message);
	expect(nodeError.description).toBe(family.description);
	expect(errorItem(nodeError, 0).json).toEqual({ error: family.message, details: family.description });
	return nodeError;
}

const stdio: StdioServerConfig = { kind: 'stdio', command: 'node', args: [], env: {}, trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000 };
const schema = { type: 'object', properties: {} };
const read: ToolDefinition = { name: 'read', description: 'Reads', inputSchema: schema };

describe('user mistakes reach n8n with a code and a description (issue 27, point 4)', () => {
	it('a malformed pinned fingerprint: not a string, a bad server, not a list, not JSON', async () => {
		expectUserError(await thrownBy(() => parsePinnedFingerprints([{ name: 'read' }])), 'config', /Pinned Fingerprints: entry 0 needs a string "name" and "fingerprint"/);
		expectUserError(
			await thrownBy(() => parsePinnedFingerprints([{ server: 7, name: 'read', fingerprint: 'sha256:1' }])),
			'config',
			/entry 0 has a "server" that is neither a name/,
		);
		expectUserError(await thrownBy(() => parsePinnedFingerprints('42')), 'config', /^Pinned Fingerprints must be an array/);
		const notJson = expectUserError(await thrownBy(() => parsePinnedFingerprints('[{oops')), 'config', /^Pinned Fingerprints is not valid JSON/);
		expect(notJson.description).toMatch(/valid JSON/);
		const pins = expectUserError(await thrownBy(() => parsePinnedFingerprints({ 'notes/read': 3 })), 'config', /"notes\/read" needs a string/);
		expect(pins.description).toMatch(/Pinned Fingerprints.*MCP List Tools/);
	});

	it('pins that cannot tell servers apart: unqualified with two servers, a reported name two servers share', async () => {
		const servers = [
			{ id: 'a', name: 'a', reportedName: 'same', tools: [read] },
			{ id: 'b', name: 'b', reportedName: 'same', tools: [read] },
		];
		expectUserError(
			await thrownBy(() => buildCatalog(servers, { pinned: parsePinnedFingerprints({ read: 'sha256:1' }) })),
			'config',
			/names no server, but 2 MCP servers are connected/,
		);
		const shared = expectUserError(
			await thrownBy(() => buildCatalog(servers, { pinned: parsePinnedFingerprints({ 'same/read': 'sha256:1' }) })),
			'config',
			/2 connected servers report the name "same"/,
		);
		expect(shared.description).toMatch(/sub-node's name/);
	});

	it('duplicate server names: refused before any connection is taken', async () => {
		const handle = (name: string): ServerHandle => ({ kind: SERVER_HANDLE_KIND, name, config: stdio, include: [], exclude: [] });
		const pool = { acquire: jest.fn() };
		const error = await thrownBy(() => connectServers([handle('Files'), handle('Files')], {}, { pool: pool as never }));
		const nodeError = expectUserError(error, 'config', /^Two MCP Server sub-nodes are named "Files"; rename one$/);
		expect(nodeError.description).toMatch(/rename one/);
		expect(pool.acquire).not.toHaveBeenCalled();
	});

	it('a Prior Conversation that is not a list of messages', async () => {
		expectUserError(await thrownBy(() => parseHistory('{"role":"user"}')), 'config', /^Prior Conversation must be a JSON array/);
		const entry = expectUserError(await thrownBy(() => checkHistory([{ content: 'no role' }])), 'config', /entry 0 must be an object with a "role"/);
		expect(entry.description).toMatch(/Prior Conversation/);
	});

	it('a credential type the package does not have', async () => {
		expectUserError(await thrownBy(() => serverConfigFromCredential('httpHeaderAuth', {})), 'config', /^Unsupported credential type "httpHeaderAuth"/);
	});

	it('a stored run naming a provider this release does not speak (own keys only)', async () => {
		for (const id of ['gemini', 'constructor']) expectUserError(await thrownBy(() => adapterFor(id as never)), 'state', new RegExp(`^Unknown provider "${id}"`));
	});
});

describe('remote failures keep their advice through the explaining layers', () => {
	it("a finding of ours about a server's answer: McpConnection's explanation names server and phase, and keeps the advice", async () => {
		const pages = ['again', 'again'];
		const repeated = await thrownBy(() => collectPages('tools', async () => ({ items: [], nextCursor: pages.shift() })));
		expect(McpAgentError.isInstance(repeated)).toBe(true);
		const failure = explainMcpError(repeated, stdio, 'listing tools');
		expect(failure.message).toBe('Error talking to MCP server local command "node" while listing tools: the server repeated the pagination cursor while listing tools');
		expect(failure.description).toMatch(/pagination does not end/);
		// Wrapped by the client on its way up: still found.
		expect(explainMcpError(new TypeError('fetch failed', { cause: repeated }), stdio, 'listing tools').description).toBe(failure.description);
		expect(toNodeError(context(), failure).description).toBe(failure.description);
	});

	it('a streamed model answer cut short: a ProviderError named with the provider, with what to do', async () => {
		async function* events() {
			yield { type: 'message_start', message: { id: 'm', role: 'assistant', content: [] } };
		}
		const cut = await thrownBy(() => anthropicMessageFromEvents(events(), () => undefined));
		const error = explainProviderError(cut, 'Anthropic');
		expect(ProviderError.isInstance(error)).toBe(true);
		expect(error.message).toBe("Anthropic: The model's streamed answer ended before it was complete (no message_stop)");
		expect(error.description).toMatch(/Retry On Fail/);
		expect(toNodeError(context(), error).description).toBe(error.description);
	});

	it("a ProviderError's advice and its retry-after wait both survive redaction", () => {
		const error = new ProviderError('OpenAI said sk-secret', 429, 2, 'Check the plan.');
		const redacted = explainProviderError(error, 'OpenAI', {
			active: true,
			text: (text: string) => text.replace('sk-secret', '[redacted]'),
			value: (value: unknown) => value,
		} as never);
		expect(redacted.message).toBe('OpenAI said [redacted]');
		expect(redacted.description).toBe(error.description);
		expect(redacted.description).toMatch(/^Check the plan\. The provider asked to wait 2 s/);
	});
});

describe("McpFailure keeps the server's output in a field", () => {
	it('out of the message; the node glue shows advice then output as the description', () => {
		const failure = new McpFailure(
			'MCP server "x" stopped while connecting: exited with code 1.',
			'process-exited',
			'Error: missing ALLOWED_DIR',
			undefined,
			'Give the server its directory.',
		);
		expect(failure.message).not.toContain('ALLOWED_DIR');
		expect(failure.serverOutput).toBe('Error: missing ALLOWED_DIR');
		expect(failureDetails(failure)).toBe('Give the server its directory.\n\nLast output of the server:\nError: missing ALLOWED_DIR');
		const nodeError = toNodeError(context(), failure, 0);
		expect(nodeError.message).toBe(failure.message);
		expect(nodeError.description).toBe(failureDetails(failure));
	});

	it('and a remote failure with a status is a NodeApiError with the same description', () => {
		const config: McpServerConfig = {
			kind: 'http',
			url: 'https://mcp.example.com/mcp',
			transport: 'streamableHttp',
			headers: {},
			trustAnnotations: false,
			connectTimeoutMs: 1,
			requestTimeoutMs: 1,
		};
		const failure = new McpFailure('answered 503', 'http-status', 'upstream down', 503);
		expect(explainMcpError(failure, config, 'x')).toBe(failure);
		const nodeError = toNodeError(context(), failure);
		expect(nodeError).toBeInstanceOf(NodeApiError);
		expect(nodeError.description).toBe('Last output of the server:\nupstream down');
		expect(nodeError.message).toBe('answered 503');
	});
});
