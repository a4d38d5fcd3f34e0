/**
 * Which paused approval a channel answer belongs to (pickApproval), as a table: each row's inputs
 * and the approval picked, or none (the route then refuses or starts a new run). The rows cover
 * every rule and, where two rules could both answer, which one wins.
 */
import { createRun } from '../../lib/agent/step';
import { openStore, savePausedRun, type PausedRunStore } from '../../lib/approvals/pausedRuns';
import { pickApproval, type AnswerClues, type PickContext } from '../../lib/approvals/pickApproval';
import { hashReviewToken } from '../../lib/approvals/reviewToken';

const SECRET = { apA: 'secret-of-apA-0123456789abcdef', apB: 'secret-of-apB-0123456789abcdef' };

const state = createRun({
	provider: 'anthropic',
	settings: { model: 'm', maxIterations: 1, maxOutputTokens: 1, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1 },
	tools: [],
	userMessage: 'x',
});

/**
 * Paused runs with their review secrets, and the order the last "Needs Approval" output had.
 * `shared`: both runs have apA's secret (a copied store; no secret then names one of them).
 */
function store(paused: Array<keyof typeof SECRET>, lastOrder: string[], shared = false): PausedRunStore {
	const result = openStore({});
	for (const id of paused) savePausedRun(result, id, state, '2030-01-01T00:00:00.000Z', hashReviewToken(shared ? SECRET.apA : SECRET[id]));
	result.lastOrder = lastOrder;
	return result;
}

const BOTH = () => store(['apA', 'apB'], ['apA', 'apB']);
const ONE = () => store(['apA'], ['apA']);
/** Legacy order: apA paused in an earlier pass of the Agent, missing from the last output's order. */
const EARLIER_PASS = () => store(['apA', 'apB'], ['apB']);

type Row = [rule: string, clues: AnswerClues, context: Omit<PickContext, 'store'> & { store: () => PausedRunStore }, picked: string | undefined];

const straight = (pairedIndex: number) => ({ pairedIndex, pairedStraight: true });

const TABLE: Row[] = [
	// 1. The approval the answer names.
	['named', { named: 'apB' }, { store: BOTH }, 'apB'],
	['named, even one not paused here (resume refuses it later)', { named: 'apX' }, { store: BOTH }, 'apX'],
	['named beats a secret', { named: 'apA', reviewToken: SECRET.apB }, { store: BOTH }, 'apA'],
	['named beats a position', { named: 'apB' }, { store: BOTH, ...straight(0) }, 'apB'],
	['named holds in the legacy order with untrusted positions', { named: 'apA' }, { store: EARLIER_PASS, legacyOrder: true }, 'apA'],
	// 2. The one approval whose review secret the answer carries.
	['secret', { reviewToken: SECRET.apB }, { store: BOTH }, 'apB'],
	['secret beats a position', { reviewToken: SECRET.apB }, { store: BOTH, ...straight(0) }, 'apB'],
	['secret holds in the legacy order with untrusted positions', { reviewToken: SECRET.apA }, { store: EARLIER_PASS, legacyOrder: true }, 'apA'],
	['a secret no run has: positions decide', { reviewToken: 'guessed-0123456789abcdefghijkl' }, { store: BOTH, ...straight(1) }, 'apB'],
	['a secret two runs share names neither: positions decide', { reviewToken: SECRET.apA }, { store: () => store(['apA', 'apB'], ['apA', 'apB'], true), ...straight(1) }, 'apB'],
	['a secret two runs share names neither, nor does a single order then', { reviewToken: SECRET.apA }, { store: () => store(['apA', 'apB'], ['apA', 'apB'], true) }, undefined],
	// 3. Legacy order with a run from an earlier pass missing from the last order: no position counts.
	['untrusted positions: not the paired one', {}, { store: EARLIER_PASS, legacyOrder: true, ...straight(0) }, undefined],
	['untrusted positions: not the single one of the last order', {}, { store: EARLIER_PASS, legacyOrder: true }, undefined],
	['legacy order with every run in the last order: positions count', {}, { store: BOTH, legacyOrder: true, ...straight(1) }, 'apB'],
	['v1 order with a run missing from the last order: positions count', {}, { store: EARLIER_PASS, ...straight(0) }, 'apB'],
	// 4. The paired position, when the answering node sits straight on "Needs Approval".
	['paired position', {}, { store: BOTH, ...straight(0) }, 'apA'],
	['paired position, second', {}, { store: BOTH, ...straight(1) }, 'apB'],
	['a position through another node (not straight) does not count', {}, { store: BOTH, pairedIndex: 1 }, undefined],
	['a position past the last order does not count', {}, { store: BOTH, ...straight(2) }, undefined],
	['a negative position does not count', {}, { store: BOTH, ...straight(-1) }, undefined],
	// 5. The only approval of the last order.
	['single', {}, { store: ONE }, 'apA'],
	['single, when the position is not straight', {}, { store: ONE, pairedIndex: 0 }, 'apA'],
	['single, when the position is out of range', {}, { store: ONE, ...straight(3) }, 'apA'],
	// No rule answers: refused.
	['two pending and nothing to tell them apart', {}, { store: BOTH }, undefined],
	['nothing paused', {}, { store: () => store([], []) }, undefined],
];

describe('pickApproval', () => {
	it.each(TABLE)('%s', (_rule, clues, { store: makeStore, ...position }, picked) => {
		expect(pickApproval(clues, { store: makeStore(), ...position })).toBe(picked);
	});
});
