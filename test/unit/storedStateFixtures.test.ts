/**
 * A paused run can wait a day and be resumed by a newer release. Each fixture under
 * test/fixtures/state/ is a store exactly as a released format left it in n8n's database (written by
 * test/fixtures/state/generate.js against that release's compiled lib/): 0.1.0 (store format 1, the
 * catalog inside every state) and the current format 2. Each must open, migrate, take a reviewer's
 * decision and run to the end with today's code; a store or state from a newer release must fail
 * closed with a message saying to update the package.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog } from '../../lib/agent/catalog';
import { runAgent } from '../../lib/agent/runAgent';
import { AGENT_STATE_VERSION, migrateAgentState } from '../../lib/agent/stateSchema';
import type { PlannedCall } from '../../lib/agent/types';
import { hashArguments } from '../../lib/agent/argumentHash';
import { APPROVAL_DECISION_KIND } from '../../lib/approvals/approvalRequest';
import { openStore, peekPausedRun, reissuePausedRun, STORE_FORMAT } from '../../lib/approvals/pausedRuns';
import { actionForItem } from '../../lib/approvals/resumeInput';
import { NOTICE_DECISION_WITHOUT_PROOF } from '../../lib/approvals/decisionItemRoute';
import { reviewLink, reviewTokenInUrl } from '../../lib/approvals/reviewToken';
import { signedDecision } from '../support/approvalFixtures';
import { McpAgentError } from '../../lib/errors';

const FIXTURES = join(__dirname, '..', 'fixtures', 'state');

/** Every released store format, and the file that keeps it. Add a row for each new format; never delete one. */
const RELEASED = [
	{ label: '0.1.0 (store format 1, catalog inside each state)', file: 'store-0.1.0.json', format: undefined },
	{ label: 'store format 2 (catalogs stored once)', file: 'store-format-2.json', format: 2 },
];

function loadFixture(file: string): Record<string, unknown> {
	return JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown>;
}

/** The same two tools the fixtures were paused with, as the server lists them today. */
const currentCatalog = buildCatalog([
	{
		id: 'Notes',
		name: 'Notes',
		trustAnnotations: true,
		tools: [
			{
				name: 'read_note',
				description: 'Reads a note.',
				inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
				annotations: { readOnlyHint: true },
			},
			{
				name: 'delete_note',
				description: 'Deletes a note.',
				inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
				annotations: { destructiveHint: true },
			},
		],
	},
]).tools;

const approve = (n: number) => ({
	kind: APPROVAL_DECISION_KIND,
	approvalId: `approval-${n}`,
	reviewer: 'Ana',
	decidedAt: '2026-12-01T09:00:00.000Z',
	decisions: [{ callId: `toolu_${n}`, argsHash: hashArguments({ id: `note-${n}` }), decision: 'approve' }],
});

describe.each(RELEASED)('stored state: $label', ({ file, format }) => {
	test('the fixture is in the format it stands for', () => {
		const store = loadFixture(file).mcpAgent as Record<string, unknown>;
		expect(store.format).toBe(format);
	});

	test('opens as the current format, and every run resumes to the end with the approved call', async () => {
		const context = loadFixture(file);
		const store = openStore(context);
		expect(store.format).toBe(STORE_FORMAT);
		expect(Object.keys(store.catalogs)).toHaveLength(1);
		for (const n of [1, 2]) {
			const paused = peekPausedRun(store, `approval-${n}`);
			expect(paused?.state.version).toBe(AGENT_STATE_VERSION);
			expect(paused?.state.tools.map((tool) => tool.mcpName)).toEqual(['delete_note', 'read_note']);

			// Released formats hold no decision key: a decision item cannot prove itself, so the request
			// goes out again (a new link and key, as the Agent does), and a decision on that one resumes.
			const resumeContext = { store, catalog: currentCatalog, now: new Date('2026-12-01T09:00:01.000Z'), fromApprovalNode: true };
			expect(actionForItem(signedDecision(approve(n)), resumeContext)).toMatchObject({ kind: 'pending', notice: NOTICE_DECISION_WITHOUT_PROOF });
			const link = reviewLink('http://n8n.test/webhook-waiting/1');
			reissuePausedRun(store, `approval-${n}`, link.reviewTokenHash, undefined, link.decisionKey);
			const action = actionForItem(signedDecision(approve(n), reviewTokenInUrl(link.reviewUrl) as string), resumeContext);
			expect(action.kind).toBe('continue');
			if (action.kind !== 'continue') return;
			const ran: PlannedCall[] = [];
			const final = await runAgent(action.state, {
				model: {
					send: async () => ({
						id: 'msg',
						type: 'message',
						role: 'assistant',
						content: [{ type: 'text', text: `Deleted note ${n}.` }],
						stop_reason: 'end_turn',
						usage: { input_tokens: 5, output_tokens: 3 },
					}),
					listModels: async () => [],
				},
				runTools: async (calls) => {
					ran.push(...calls);
					return { outcomes: calls.map((call) => ({ id: call.id, isError: false, text: 'deleted', images: [] })), durations: {} };
				},
			});
			expect(ran.map((call) => [call.tool?.mcpName, call.arguments])).toEqual([['delete_note', { id: `note-${n}` }]]);
			expect(final.phase).toMatchObject({ name: 'finished', status: 'completed', text: `Deleted note ${n}.` });
			expect(final.toolLog[0]).toMatchObject({ tool: 'delete_note', review: { decision: 'approved', reviewer: 'Ana' } });
		}
		// Each approval resumes once; the shared catalog goes with the last run.
		expect(actionForItem(approve(1), { store, catalog: currentCatalog, now: new Date() })).toEqual({ kind: 'replayed' });
		expect(store.catalogs).toEqual({});
		// What n8n persists afterwards is the current format.
		expect(JSON.parse(JSON.stringify(context)).mcpAgent.format).toBe(STORE_FORMAT);
	});
});

describe('a damaged stored state fails closed', () => {
	test('one whose fields are not what the loop reads is refused with a clear error, not a TypeError later', () => {
		expect(() => migrateAgentState({ version: 1, phase: { name: 'run_tools' } }, 'approval x')).toThrow(
			/^approval x: the stored run is damaged \(no provider\), so it is not resumed$/,
		);
		const valid = { version: 1, provider: 'anthropic', settings: {}, tools: [], transcript: [], toolLog: [], iterations: 1, usage: {}, lastText: '' };
		expect(() => migrateAgentState({ ...valid, phase: { name: 'run_tools', calls: 'x' } }, 'approval x')).toThrow(/tool calls that are not a list of calls/);
		expect(() => migrateAgentState({ ...valid, phase: { name: 'waiting' } }, 'approval x')).toThrow(/an unknown phase "waiting"/);
		expect(migrateAgentState({ ...valid, phase: { name: 'run_tools', calls: [{ id: 'c1' }], outcomes: {}, durations: {}, decidedApprovals: [] } }, 'approval x').phase.name).toBe(
			'run_tools',
		);
	});
});

describe('stored state from a newer release fails closed', () => {
	test('a store of an unknown, newer format is refused with update advice', () => {
		const context = loadFixture('store-format-2.json');
		(context.mcpAgent as Record<string, unknown>).format = STORE_FORMAT + 1;
		let thrown: unknown;
		try {
			openStore(context);
		} catch (error) {
			thrown = error;
		}
		expect(McpAgentError.isInstance(thrown)).toBe(true);
		expect(thrown).toMatchObject({
			code: 'state',
			message: expect.stringMatching(/newer version of n8n-nodes-mcp-agent \(store format 3; this version reads up to 2\)/),
			description: expect.stringMatching(/^Update n8n-nodes-mcp-agent/),
		});
	});

	test('a run state of a newer schema is refused when its approval is decided, and stays paused', () => {
		const context = loadFixture('store-format-2.json');
		const store = openStore(context);
		(store.runs['approval-1'].state as { version: number }).version = AGENT_STATE_VERSION + 1;
		expect(() => actionForItem(approve(1), { store, catalog: currentCatalog, now: new Date('2026-12-01T09:00:01.000Z') })).toThrow(
			/approval approval-1: the run was paused by a newer version of n8n-nodes-mcp-agent \(run state schema 2; this version reads up to 1\)/,
		);
		expect(Object.keys(store.runs)).toContain('approval-1');
	});

	test('a state without a readable version is refused', () => {
		expect(() => migrateAgentState({ provider: 'anthropic' }, 'here')).toThrow(/here: the stored run has no readable schema version/);
		expect(() => migrateAgentState('x', 'here')).toThrow(/not an object/);
	});
});
