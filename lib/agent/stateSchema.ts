import { McpAgentError } from '../errors';
import type { AgentState } from './types';
import { isJsonObject } from '../util/jsonObject';
import { isRunningTask } from '../mcp/toolTask';
import { toolLoadingProblem } from './toolLoading';

/**
 * The schema version of a stored AgentState. A paused run can wait a day and be resumed by a newer
 * release of the package (or by another queue-mode worker on another release), so a stored state is
 * checked on load: an older version is migrated step by step, a newer one is refused.
 *
 * Released versions: 1 (0.1.0 and since; later fields are optional additions: userMessage, a call's
 * `input`, a tool's `source`, the run's `toolLoading`). When a change is not an optional addition, raise AGENT_STATE_VERSION,
 * add the migration from the previous version below, and keep a fixture of the old format under
 * test/fixtures/state/ (test/unit/storedStateFixtures.test.ts resumes each of them).
 */
export const AGENT_STATE_VERSION = 1;

/** Migrations by the version they start from: MIGRATIONS[n] turns a version-n state into version n+1. */
const MIGRATIONS: Record<number, (state: Record<string, unknown>) => Record<string, unknown>> = {};

/** Update advice for a store or state written by a newer release. */
export const UPDATE_THE_PACKAGE =
	'Update n8n-nodes-mcp-agent, on every n8n instance and queue-mode worker, to the release that paused the run or a later one; then resume it again.';

export class StoredStateError extends McpAgentError {
	constructor(message: string, description?: string) {
		super(message, { code: 'state', ...(description !== undefined ? { description } : {}) });
		this.name = 'StoredStateError';
	}
}

/**
 * A stored state as the current code reads it. Fails closed: a state from a newer release, or one
 * without a readable version, is refused with a message naming `where` it came from.
 */
export function migrateAgentState(stored: unknown, where: string): AgentState {
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) throw new StoredStateError(`${where}: the stored run is not an object`);
	let state = stored as Record<string, unknown>;
	const version = state.version;
	if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
		throw new StoredStateError(`${where}: the stored run has no readable schema version (found ${JSON.stringify(version) ?? 'none'})`);
	}
	if (version > AGENT_STATE_VERSION) {
		throw new StoredStateError(
			`${where}: the run was paused by a newer version of n8n-nodes-mcp-agent (run state schema ${version}; this version reads up to ${AGENT_STATE_VERSION})`,
			UPDATE_THE_PACKAGE,
		);
	}
	for (let from = version; from < AGENT_STATE_VERSION; from++) {
		const migrate = MIGRATIONS[from];
		if (!migrate) throw new StoredStateError(`${where}: no migration from run state schema ${from}`);
		state = { ...migrate(state), version: from + 1 };
	}
	const problem = shapeProblem(state);
	if (problem) throw new StoredStateError(`${where}: the stored run is damaged (${problem}), so it is not resumed`);
	return state as unknown as AgentState;
}

/**
 * What is wrong with the shape of a stored run, or undefined: the fields the loop reads are of the
 * kind it reads them as. A state that was cut or edited fails here with a clear error instead of a
 * TypeError somewhere in the loop. (Values are not judged: that is what the review checks do.)
 */
function shapeProblem(state: Record<string, unknown>): string | undefined {
	if (typeof state.provider !== 'string') return 'no provider';
	if (!isJsonObject(state.settings)) return 'no settings';
	for (const field of ['tools', 'transcript', 'toolLog'] as const) if (!Array.isArray(state[field])) return `no ${field} list`;
	if (typeof state.iterations !== 'number') return 'no iteration count';
	if (!isJsonObject(state.usage)) return 'no usage';
	const loading = toolLoadingProblem(state.toolLoading, state.provider);
	if (loading) return loading;
	const phase = state.phase;
	if (!isJsonObject(phase)) return 'no phase';
	if (phase.name === 'call_model' || phase.name === 'finished') return undefined;
	if (phase.name !== 'run_tools') return `an unknown phase ${JSON.stringify(phase.name)}`;
	if (!Array.isArray(phase.calls) || !phase.calls.every((call) => isJsonObject(call) && typeof call.id === 'string')) return 'tool calls that are not a list of calls';
	if (!phase.calls.every((call) => call.task === undefined || isRunningTask(call.task))) return 'a running task without its id, protocol, deadline or poll interval';
	for (const field of ['outcomes', 'durations'] as const) if (!isJsonObject(phase[field])) return `no ${field}`;
	if (phase.progress !== undefined && !isJsonObject(phase.progress)) return 'progress that is not an object';
	if (phase.tasks !== undefined && !isJsonObject(phase.tasks)) return 'tasks that are not an object';
	if (!Array.isArray(phase.decidedApprovals)) return 'no list of decided approvals';
	return undefined;
}
