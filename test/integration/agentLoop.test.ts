/**
 * The agent loop over REAL MCP servers (server-everything twice, server-filesystem on a temp dir,
 * all over stdio) with a scripted fake provider behind the real SDK clients: catalog building
 * across servers, name collisions resolved to the right server, tool results flowing back into
 * the conversation, and the resume property (a run serialized and restored at every step ends
 * exactly like the uninterrupted run).
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { buildCatalog, type ServerTools } from '../../lib/agent/catalog';
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { runAgent, type AgentDrivers } from '../../lib/agent/runAgent';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { AgentState, RunSettings } from '../../lib/agent/types';
import { createModelClient } from '../../lib/providers/clients';
import type { ApiProviderId } from '../../lib/providers/types';
import { replies, startFakeProvider, toolNamesIn, toolResultsIn, type FakeProvider, type FakeScript } from '../support/fakeProviders';
import { everythingStdio, FILESYSTEM_BIN, fixtureStdio, stdioConfig } from '../support/servers';
import { buildApprovalRequest, type ApprovalDecisionItem } from '../../lib/approvals/approvalRequest';
import { openStore, savePausedRun } from '../../lib/approvals/pausedRuns';
import { actionForItem } from '../../lib/approvals/resumeInput';
import { decisionKeyFor } from '../../lib/approvals/decisionProof';
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import { hashReviewToken } from '../../lib/approvals/reviewToken';
import { inputFieldName } from '../../lib/approvals/inputForm';
import { browserPost } from '../support/approvalFixtures';
import { spyOnToolCalls } from '../support/toolCallSpy';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const KINDS: ApiProviderId[] = ['anthropic', 'openaiChat', 'openaiResponses'];

const SETTINGS: RunSettings = {
	model: 'model-under-test',
	maxIterations: 10,
	maxOutputTokens: 2048,
	tokenBudget: 0,
	toolChoice: { type: 'auto' },
	parallelToolCalls: true,
	promptCaching: true,
	maxToolResultChars: 50_000,
};

let dir: string;
let alpha: McpConnection;
let beta: McpConnection;
let files: McpConnection;
let tools: { alpha: ServerTools['tools']; beta: ServerTools['tools']; files: ServerTools['tools'] };
const fakes: FakeProvider[] = [];

beforeAll(async () => {
	dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-agent-loop-')));
	[alpha, beta, files] = await Promise.all([
		McpConnection.open(everythingStdio({ env: { AGENT_TEST_MARK: 'alpha' } })),
		McpConnection.open(everythingStdio({ env: { AGENT_TEST_MARK: 'beta' } })),
		McpConnection.open(stdioConfig(process.execPath, [FILESYSTEM_BIN, dir])),
	]);
	const [a, b, f] = await Promise.all([listAllTools(alpha), listAllTools(beta), listAllTools(files)]);
	tools = { alpha: a, beta: b, files: f };
});

afterAll(async () => {
	await Promise.all([alpha?.close(), beta?.close(), files?.close()]);
	if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
	jest.restoreAllMocks();
	await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

function clearDir(): void {
	for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
}

async function startFake(kind: ApiProviderId, script: FakeScript): Promise<FakeProvider> {
	const fake = await startFakeProvider(kind, script);
	fakes.push(fake);
	return fake;
}

function drivers(kind: ApiProviderId, fake: FakeProvider, connections: Map<string, McpConnection>): AgentDrivers {
	return {
		model: createModelClient({ provider: kind, apiKey: 'test-key', baseUrl: fake.baseUrl, maxRetries: 0, timeoutMs: 10_000 }),
		runTools: (calls) => runToolCalls(calls, { connections, concurrency: 4, timeoutMs: 15_000, limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: SETTINGS.maxToolResultChars } }),
	};
}

function finished(state: AgentState) {
	if (state.phase.name !== 'finished') throw new Error(`run not finished: ${state.phase.name}`);
	return state.phase;
}

describe.each(KINDS)('%s: everything + filesystem', (kind) => {
	const r = replies(kind);

	it('calls echo and the filesystem (write, then read) and answers from the results', async () => {
		clearDir();
		const catalog = buildCatalog([
			{ id: 'srv-everything', name: 'everything', tools: tools.alpha },
			{ id: 'srv-files', name: 'files', tools: tools.files },
		]).tools;
		// No name is shared between the two servers: every tool keeps its own name.
		expect(catalog.map((t) => t.providerName)).toEqual([...tools.alpha, ...tools.files].map((t) => t.name).sort());
		const file = path.join(dir, 'notes.txt');
		const fake = await startFake(kind, [
			r.toolCalls(
				[
					{ id: 'c_echo', name: 'echo', args: { message: 'hello' } },
					{ id: 'c_write', name: 'write_file', args: { path: file, content: 'remember the milk' } },
				],
				{ input: 100, output: 10 },
			),
			r.toolCalls([{ id: 'c_read', name: 'read_text_file', args: { path: file } }], { input: 200, output: 20 }),
			// The "model" answers from what the tool sent back.
			(body) => r.text(`The note says: ${toolResultsIn(kind, body).at(-1)?.text}`, { input: 300, output: 30, cacheRead: 7 }),
		]);
		const connections = new Map([
			['srv-everything', alpha],
			['srv-files', files],
		]);
		const final = await runAgent(createRun({ provider: kind, settings: SETTINGS, tools: catalog, userMessage: 'Note something down.' }), drivers(kind, fake, connections));

		expect(fake.rejected).toEqual([]);
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'The note says: remember the milk' });
		expect(readFileSync(file, 'utf8')).toBe('remember the milk');
		expect(toolNamesIn(kind, fake.requests[0])).toEqual(catalog.map((t) => t.providerName));
		expect(toolResultsIn(kind, fake.requests[2])).toEqual([
			{ id: 'c_echo', isError: false, text: 'Echo: hello' },
			{ id: 'c_write', isError: false, text: `Successfully wrote to ${file}` },
			{ id: 'c_read', isError: false, text: 'remember the milk' },
		]);
		expect(final.toolLog).toEqual([
			{ iteration: 1, id: 'c_echo', server: 'everything', tool: 'echo', arguments: { message: 'hello' }, isError: false, resultSummary: 'Echo: hello', durationMs: expect.any(Number), allowedBy: { by: 'policy' } },
			{ iteration: 1, id: 'c_write', server: 'files', tool: 'write_file', arguments: { path: file, content: 'remember the milk' }, isError: false, resultSummary: `Successfully wrote to ${file}`, durationMs: expect.any(Number), allowedBy: { by: 'policy' } },
			{ iteration: 2, id: 'c_read', server: 'files', tool: 'read_text_file', arguments: { path: file }, isError: false, resultSummary: 'remember the milk', durationMs: expect.any(Number), allowedBy: { by: 'policy' } },
		]);
		for (const entry of final.toolLog) expect(entry.durationMs).toBeGreaterThanOrEqual(0);
		// Summed over the three calls; OpenAI counts cached tokens inside the prompt tokens and the
		// adapter splits them out again, so every provider ends with the same numbers.
		expect(final.usage).toEqual({ inputTokens: 600, outputTokens: 60, cacheReadTokens: 7, cacheWriteTokens: 0 });
	});

	it('reports a filesystem refusal (path outside the allowed directory) as an error result', async () => {
		const catalog = buildCatalog([{ id: 'srv-files', name: 'files', tools: tools.files }]).tools;
		const fake = await startFake(kind, [r.toolCalls([{ id: 'c_out', name: 'read_text_file', args: { path: '/etc/hostname' } }]), r.text('not allowed')]);
		const final = await runAgent(
			createRun({ provider: kind, settings: SETTINGS, tools: catalog, userMessage: 'Read it.' }),
			drivers(kind, fake, new Map([['srv-files', files]])),
		);
		expect(fake.rejected).toEqual([]);
		const [result] = toolResultsIn(kind, fake.requests[1]);
		expect(result).toMatchObject({ id: 'c_out', isError: true });
		expect(result.text).toMatch(/outside allowed directories|Access denied/i);
		expect(final.toolLog[0]).toMatchObject({ server: 'files', tool: 'read_text_file', isError: true });
		expect(finished(final).status).toBe('completed');
	});
});

describe('three servers with colliding tool names', () => {
	const SERVERS = (): ServerTools[] => [
		{ id: 'id-alpha', name: 'alpha', tools: tools.alpha },
		{ id: 'id-beta', name: 'beta', tools: tools.beta },
		{ id: 'id-files', name: 'files', tools: tools.files },
	];

	it('namespaces shared names by server and sends each call to the right server', async () => {
		clearDir();
		const catalog = buildCatalog(SERVERS()).tools;
		const names = catalog.map((t) => t.providerName);
		// Every server-everything tool exists twice: both copies are prefixed with their server.
		for (const tool of tools.alpha) {
			expect(names).toContain(`alpha__${tool.name}`);
			expect(names).toContain(`beta__${tool.name}`);
			expect(names).not.toContain(tool.name);
		}
		// Filesystem names are unique and stay as they are.
		for (const tool of tools.files) expect(names).toContain(tool.name);
		expect(names).toEqual([...names].sort());
		expect(new Set(names).size).toBe(names.length);
		expect(catalog.find((t) => t.providerName === 'beta__echo')).toMatchObject({ serverId: 'id-beta', serverName: 'beta', mcpName: 'echo' });

		const alphaCalls = spyOnToolCalls(alpha.client);
		const betaCalls = spyOnToolCalls(beta.client);
		const filesCalls = spyOnToolCalls(files.client);
		const kind: ApiProviderId = 'openaiChat';
		const r = replies(kind);
		const fake = await startFake(kind, [
			r.toolCalls([
				{ id: 'x_alpha_env', name: 'alpha__get-env', args: {} },
				{ id: 'x_beta_env', name: 'beta__get-env', args: {} },
				{ id: 'x_beta_echo', name: 'beta__echo', args: { message: 'to beta' } },
				{ id: 'x_list', name: 'list_directory', args: { path: dir } },
				{ id: 'x_plain', name: 'echo', args: { message: 'ambiguous' } },
			]),
			r.text('checked'),
		]);
		const connections = new Map([
			['id-alpha', alpha],
			['id-beta', beta],
			['id-files', files],
		]);
		const final = await runAgent(createRun({ provider: kind, settings: SETTINGS, tools: catalog, userMessage: 'Which server is which?' }), drivers(kind, fake, connections));

		expect(fake.rejected).toEqual([]);
		expect(toolNamesIn(kind, fake.requests[0])).toEqual(names);
		expect(alphaCalls.calls()).toEqual([{ name: 'get-env', arguments: {} }]);
		expect(betaCalls.calls()).toEqual([
			{ name: 'get-env', arguments: {} },
			{ name: 'echo', arguments: { message: 'to beta' } },
		]);
		expect(filesCalls.calls()).toEqual([{ name: 'list_directory', arguments: { path: dir } }]);

		const results = toolResultsIn(kind, fake.requests[1]);
		expect(results.map((x) => x.id)).toEqual(['x_alpha_env', 'x_beta_env', 'x_beta_echo', 'x_list', 'x_plain']);
		// Each server-everything process reports its own environment.
		expect(JSON.parse(results[0].text).AGENT_TEST_MARK).toBe('alpha');
		expect(JSON.parse(results[1].text).AGENT_TEST_MARK).toBe('beta');
		expect(results[2]).toEqual({ id: 'x_beta_echo', isError: false, text: 'Echo: to beta' });
		expect(results[3]).toMatchObject({ isError: false });
		// The bare name is ambiguous once it is namespaced: the model is told which names exist.
		expect(results[4].isError).toBe(true);
		expect(results[4].text).toMatch(/^Unknown tool "echo"\. Available tools: .*alpha__echo.*beta__echo/);

		expect(final.toolLog.map((e) => [e.server, e.tool, e.isError])).toEqual([
			['alpha', 'get-env', false],
			['beta', 'get-env', false],
			['beta', 'echo', false],
			['files', 'list_directory', false],
			[undefined, 'echo', true],
		]);
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'checked' });
	});
});

describe.each(KINDS)('%s: resuming from serialized state', (kind) => {
	const r = replies(kind);
	const file = () => path.join(dir, 'resume.txt');

	/**
	 * The script depends on the request only (how many tool results it carries), never on a
	 * counter in the fake, so a resumed run meets the same "model".
	 */
	const script = (): FakeScript => (body) => {
		const results = toolResultsIn(kind, body);
		switch (results.length) {
			case 0:
				return r.toolCalls(
					[
						{ id: 'r_echo', name: 'alpha__echo', args: { message: 'first' } },
						{ id: 'r_write', name: 'write_file', args: { path: file(), content: 'line one' } },
					],
					{ input: 11, output: 3 },
					'Starting.',
				);
			case 2:
				return r.toolCalls([{ id: 'r_read', name: 'read_text_file', args: { path: file() } }], { input: 22, output: 4 });
			case 3:
				return r.toolCalls(
					[
						{ id: 'r_sum', name: 'beta__get-sum', args: { a: 40, b: 2 } },
						{ id: 'r_unknown', name: 'not_a_tool', args: {} },
						{ id: 'r_bad', name: 'beta__get-sum', args: { a: 'x' } },
					],
					{ input: 33, output: 5, cacheRead: 2 },
					'Almost there.',
				);
			default:
				return r.text(`Final: ${results.map((x) => `${x.id}=${x.isError ? 'error' : x.text}`).join(' | ')}`, { input: 44, output: 6 });
		}
	};

	const withoutDurations = (state: AgentState) => ({ ...state, toolLog: state.toolLog.map((entry) => ({ ...entry, durationMs: 0 })) });

	it('ends exactly like the uninterrupted run when stopped, serialized and restored after every step', async () => {
		const catalog = buildCatalog([
			{ id: 'id-alpha', name: 'alpha', tools: tools.alpha },
			{ id: 'id-beta', name: 'beta', tools: tools.beta },
			{ id: 'id-files', name: 'files', tools: tools.files },
		]).tools;
		const connections = () =>
			new Map([
				['id-alpha', alpha],
				['id-beta', beta],
				['id-files', files],
			]);
		const initial = () => createRun({ provider: kind, settings: { ...SETTINGS, system: 'Use the tools.' }, tools: catalog, userMessage: 'Do the three steps.' });

		// Uninterrupted.
		clearDir();
		const straightFake = await startFake(kind, script());
		const straightSteps: AgentState[] = [];
		const straight = await runAgent(initial(), { ...drivers(kind, straightFake, connections()), onStep: (s) => straightSteps.push(s) });
		expect(straightFake.rejected).toEqual([]);
		expect(finished(straight).status).toBe('completed');
		expect(straight.iterations).toBe(4);
		expect(straightSteps).toHaveLength(7);

		// Stopped after every step: serialized, parsed back, continued with fresh drivers.
		clearDir();
		const resumedFake = await startFake(kind, script());
		const STOP = new Error('stop after one step');
		let stored = JSON.stringify(initial());
		let resumes = 0;
		const phases: string[] = [];
		for (;;) {
			const state = JSON.parse(stored) as AgentState;
			if (nextEffect(state).type === 'finish') break;
			if (resumes > 20) throw new Error('the resumed run does not finish');
			resumes++;
			let after: AgentState | undefined;
			await expect(
				runAgent(state, {
					...drivers(kind, resumedFake, connections()),
					onStep: (next) => {
						after = next;
						throw STOP;
					},
				}),
			).rejects.toBe(STOP);
			stored = JSON.stringify(after);
			phases.push((JSON.parse(stored) as AgentState).phase.name);
		}
		const resumed = JSON.parse(stored) as AgentState;

		expect(resumes).toBe(straightSteps.length);
		expect(phases).toEqual(straightSteps.map((s) => s.phase.name));
		expect(withoutDurations(resumed)).toEqual(withoutDurations(straight));
		// The provider saw byte-identical conversations.
		expect(resumedFake.requests).toEqual(straightFake.requests);
		expect(resumedFake.rejected).toEqual([]);

		// And the run did what the script asked.
		expect(finished(resumed).text).toBe(
			'Final: r_echo=Echo: first | r_write=Successfully wrote to ' +
				file() +
				' | r_read=line one | r_sum=The sum of 40 and 2 is 42. | r_unknown=error | r_bad=error',
		);
		expect(resumed.toolLog.map((e) => [e.iteration, e.server, e.tool, e.isError])).toEqual([
			[1, 'alpha', 'echo', false],
			[1, 'files', 'write_file', false],
			[2, 'files', 'read_text_file', false],
			[3, 'beta', 'get-sum', false],
			[3, undefined, 'not_a_tool', true],
			[3, 'beta', 'get-sum', true],
		]);
		expect(resumed.usage).toEqual({ inputTokens: 110, outputTokens: 18, cacheReadTokens: 2, cacheWriteTokens: 0 });
		expect(readFileSync(file(), 'utf8')).toBe('line one');
	});
});

describe.each(KINDS)('%s: a 2026-07-28 server asks a person for input in the middle of a run', (kind) => {
	const r = replies(kind);
	let modern: McpConnection;

	beforeAll(async () => {
		modern = await McpConnection.open(fixtureStdio('modern-server.js'));
	});
	afterAll(async () => {
		await modern?.close();
	});

	it.each([
		['accepts with "yes"', 'accept', 'true', 'deleted /data/old'],
		['declines', 'decline', 'true', 'not deleted (decline)'],
	])('pauses, the person %s on the review page, the run resumes on another worker and the server completes the call', async (_label, action, confirm, expected) => {
		const catalog = buildCatalog([{ id: 'srv-modern', name: 'modern', tools: await listAllTools(modern) }]).tools;
		const fake = await startFake(kind, [
			r.toolCalls([{ id: 'c_del', name: 'confirm_delete', args: { path: '/data/old' } }]),
			(body) => r.text(`Result: ${toolResultsIn(kind, body).at(-1)?.text}`),
		]);
		const connections = new Map([['srv-modern', modern]]);
		const paused = await runAgent(createRun({ provider: kind, settings: SETTINGS, tools: catalog, userMessage: 'Delete /data/old.' }), drivers(kind, fake, connections));
		expect(nextEffect(paused)).toMatchObject({
			type: 'request_approval',
			calls: [{ id: 'c_del', input: { status: 'pending', round: 1, requestState: 'confirm:/data/old', inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Delete /data/old?' } } } } }],
		});

		// As the Agent node pauses: an approval, the run saved server-side, the Needs Approval item out.
		const approval = { id: 'ap-input', requestedAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 3_600_000).toISOString() };
		const opened = step(paused, { type: 'approval_opened', approval });
		const nodeContext: Record<string, unknown> = {};
		savePausedRun(openStore(nodeContext), approval.id, opened, approval.requestedAt, hashReviewToken('secret-token-0123456789'), undefined, decisionKeyFor('secret-token-0123456789'));
		const effect = nextEffect(opened);
		if (effect.type !== 'request_approval') throw new Error(effect.type);
		const item = JSON.parse(JSON.stringify(buildApprovalRequest(opened, approval, effect.calls, { reviewUrl: 'http://n8n/w/1?reviewToken=secret-token-0123456789', reviewTokenHash: hashReviewToken('secret-token-0123456789') })));

		// The review page: the form from the requested schema, filled and posted as a browser would.
		const review = (method: 'GET' | 'POST', body: Record<string, unknown> = {}) =>
			handleReviewWebhook({ method, headers: {}, query: { reviewToken: 'secret-token-0123456789' }, body, pending: [item], requireSignIn: false, allowedReviewers: [], workflowId: 'wf' });
		const page = await review('GET');
		expect(page.html).toContain('Delete /data/old?');
		const confirmField = inputFieldName('value', approval.id, 'c_del', 'confirm', 'confirm');
		// SEP-1034: the schema's default (false) is pre-selected.
		expect(page.html).toContain(`<input type="radio" name="${confirmField}" value="false" checked> No`);
		const posted = await review('POST', browserPost(page.html, { reviewer: 'Ana', [confirmField]: confirm, [inputFieldName('action', approval.id, 'c_del', 'confirm')]: action }));
		expect(posted.status).toBe(200);

		// Another worker: the node context as n8n stored it, the decision item as MCP Approval resumed with it.
		const store = openStore(JSON.parse(JSON.stringify(nodeContext)));
		const resumed = actionForItem(JSON.parse(JSON.stringify(posted.decisions?.[0])) as ApprovalDecisionItem as never, { store, catalog, now: new Date(), fromApprovalNode: true });
		if (resumed.kind !== 'continue') throw new Error(resumed.kind);
		const final = await runAgent(resumed.state, drivers(kind, fake, connections));

		expect(fake.rejected).toEqual([]);
		// The model gets the server's own result, with a note that a person answered (and how).
		expect(finished(final)).toMatchObject({
			status: 'completed',
			text: `Result: Note: during this call the server asked a person for input; they answered (${action}) and the call went on with their answer.\n${expected}`,
		});
		expect(final.toolLog).toMatchObject([{ id: 'c_del', server: 'modern', tool: 'confirm_delete', isError: false, input: { status: 'answered', rounds: 1, actions: { confirm: action }, reviewer: 'Ana' } }]);
	});
});
