import { McpAgentError } from '../errors';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../tools/fingerprint';
import { ARGUMENT_LIMITS, exceededLimit } from '../tools/schemaLimits';
import { hashArguments } from './argumentHash';
import type { AllowSimilar, PlannedCall, ReviewDecision, StandingApprovalOutcome } from './types';
import { GRANT_VERSION, type FieldCondition, type Grant, type GrantConstraint, type GrantDuration, type GrantRef, type GrantScope, type GrantStore, type WorkflowScope } from './grantTypes';

export { GRANT_VERSION, type FieldCondition, type Grant, type GrantConstraint, type GrantDuration, type GrantRef, type GrantScope, type GrantStore, type WorkflowScope };

/**
 * Standing approvals ("grants"), the pure part: what a grant is, whether one covers a call, and the
 * port of the store that keeps them (the n8n adapter is nodes/shared/grantStore.ts).
 *
 * A grant is a person's approval of a call on the review page that also allows similar calls of the
 * same Agent node in the same workflow for a time the person picked: the same tool with exactly
 * the same arguments, or with arguments meeting conditions the person picked from the call (a field
 * keeps its value, a number stays at most what it was). It is bound to the tool's definition
 * fingerprint: a changed definition (a rug pull) no longer matches, and the call goes to a person.
 *
 * Everything here fails closed: a grant that does not parse, has an unknown version, is revoked,
 * expired, longer than the longest duration, or whose condition cannot be evaluated covers nothing.
 * A grant is an approval, so it covers only calls a person could approve: a call whose approval rule
 * does not offer "approve", a call that waits for a server's input, or a call of an unpinned
 * definition (every call of it is reviewed by the builder's choice) is never covered. A refuse rule
 * refuses before any review, so no grant ever reaches a refused call.
 */
/** The durations a person may pick, in milliseconds. */
export const GRANT_DURATIONS: Readonly<Record<GrantDuration, number>> = { '1h': 3_600_000, '1d': 86_400_000, '30d': 30 * 86_400_000 };
export const GRANT_DURATION_LABELS: Record<GrantDuration, string> = { '1h': '1 hour', '1d': '1 day', '30d': '30 days' };
const LONGEST = GRANT_DURATIONS['30d'];
/** How far a grant's creation time may lie in the future of the checking process (clock skew between n8n processes). */
const CLOCK_SKEW_MS = 5 * 60_000;

export const MAX_GRANT_FIELDS = 8;
const MAX_PATH_DEPTH = 8;
const MAX_SEGMENT_CHARS = 200;
/** A grant's JSON (its equals values included) beyond this is refused: it is stored and read on every call. */
export const MAX_GRANT_BYTES = 16 * 1024;
/** Names that reach prototypes or behave specially on objects: never part of a condition's path. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isText = (value: unknown, max = 500): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

function parsePath(value: unknown): string[] | undefined {
	if (!Array.isArray(value) || value.length === 0 || value.length > MAX_PATH_DEPTH) return undefined;
	for (const segment of value) if (typeof segment !== 'string' || !segment || segment.length > MAX_SEGMENT_CHARS || FORBIDDEN_SEGMENTS.has(segment)) return undefined;
	return [...(value as string[])];
}

function parseField(value: unknown): FieldCondition | undefined {
	if (!isRecord(value)) return undefined;
	const path = parsePath(value.path);
	if (!path) return undefined;
	const keys = Object.keys(value);
	if (Object.hasOwn(value, 'equals')) {
		if (keys.some((key) => key !== 'path' && key !== 'equals')) return undefined;
		if (value.equals === undefined || exceededLimit(value.equals, ARGUMENT_LIMITS)) return undefined;
		return { path, equals: value.equals };
	}
	if (keys.some((key) => key !== 'path' && key !== 'atMost' && key !== 'atLeast')) return undefined;
	const { atMost, atLeast } = value;
	if (typeof atMost !== 'number' || !Number.isFinite(atMost)) return undefined;
	if (atLeast !== undefined && (typeof atLeast !== 'number' || !Number.isFinite(atLeast) || atLeast > atMost)) return undefined;
	return { path, atMost, ...(atLeast !== undefined ? { atLeast } : {}) };
}

export function parseConstraint(value: unknown): GrantConstraint | undefined {
	if (!isRecord(value)) return undefined;
	if (value.kind === 'exact') {
		return typeof value.argumentsHash === 'string' && /^sha256:[0-9a-f]{64}$/.test(value.argumentsHash) && Object.keys(value).length === 2 ? { kind: 'exact', argumentsHash: value.argumentsHash } : undefined;
	}
	if (value.kind !== 'fields' || !Array.isArray(value.fields) || Object.keys(value).length !== 2) return undefined;
	if (value.fields.length === 0 || value.fields.length > MAX_GRANT_FIELDS) return undefined;
	const fields: FieldCondition[] = [];
	for (const entry of value.fields) {
		const field = parseField(entry);
		if (!field) return undefined;
		fields.push(field);
	}
	return { kind: 'fields', fields };
}

/**
 * A grant as the store holds it, checked field by field; undefined for anything else (an unknown
 * version, a missing or mistyped field, a condition that cannot be used): such a row covers nothing.
 */
export function parseGrant(value: unknown): Grant | undefined {
	if (!isRecord(value) || value.v !== GRANT_VERSION) return undefined;
	const { id, workflowId, nodeId, server, tool, fingerprint, grantedBy, grantedAt, expiresAt } = value;
	if (!isText(id, 100) || !isText(workflowId, 100) || !isText(nodeId, 100) || !isText(server, 500) || !isText(tool, 500) || !isText(fingerprint, 200) || !isText(grantedBy, 500)) return undefined;
	if (!isTime(grantedAt) || !isTime(expiresAt) || expiresAt <= grantedAt || expiresAt - grantedAt > LONGEST) return undefined;
	const constraint = parseConstraint(value.constraint);
	if (!constraint) return undefined;
	const grant: Grant = { v: GRANT_VERSION, id, workflowId, nodeId, server, tool, fingerprint, constraint, grantedBy, grantedAt, expiresAt };
	if (value.approvalId !== undefined) {
		if (!isText(value.approvalId, 200)) return undefined;
		grant.approvalId = value.approvalId;
	}
	if (value.revokedAt !== undefined && value.revokedAt !== null) {
		// A revocation that cannot be read is not a lesser revocation: the row is unusable.
		if (!isTime(value.revokedAt)) return undefined;
		grant.revokedAt = value.revokedAt;
		if (typeof value.revokedBy === 'string') grant.revokedBy = value.revokedBy;
	}
	if (typeof value.uses === 'number' && Number.isSafeInteger(value.uses) && value.uses >= 0) grant.uses = value.uses;
	if (isTime(value.lastUsedAt)) grant.lastUsedAt = value.lastUsedAt;
	return grant;
}

/** Whether the grant may cover anything at `now`: not revoked, not expired, not made in the future. */
export function grantActive(grant: Grant, now: number): boolean {
	return grant.revokedAt === undefined && now < grant.expiresAt && grant.grantedAt <= now + CLOCK_SKEW_MS;
}

/** The value at `path` among the arguments' own properties; `found` false when any step is missing. */
function valueAt(args: unknown, path: string[]): { found: boolean; value?: unknown } {
	let current: unknown = args;
	for (const segment of path) {
		if (Array.isArray(current)) {
			if (!/^(0|[1-9][0-9]{0,8})$/.test(segment)) return { found: false };
			const index = Number(segment);
			if (index >= current.length) return { found: false };
			current = current[index];
		} else if (isRecord(current)) {
			if (!Object.hasOwn(current, segment)) return { found: false };
			current = current[segment];
		} else return { found: false };
	}
	return { found: true, value: current };
}

/**
 * What a call brings to every grant it is checked against, worked out once per call rather than
 * once per grant (a node may hold a thousand grants): whether the arguments are beyond the
 * package's limits, and their hash, computed when the first "exactly these arguments" grant asks.
 */
interface CallFacts {
	args: unknown;
	oversized: boolean;
	hash?: string;
}

function factsOf(args: unknown): CallFacts {
	return { args, oversized: exceededLimit(args ?? {}, ARGUMENT_LIMITS) !== undefined };
}

/** canonicalJson of a condition's value, kept per condition object: the grants of one read are checked against every call of the run. */
const canonicalEquals = new WeakMap<object, string>();

function equalsText(field: { equals: unknown }): string {
	let text = canonicalEquals.get(field);
	if (text === undefined) {
		text = canonicalJson(field.equals);
		canonicalEquals.set(field, text);
	}
	return text;
}

function holds(constraint: GrantConstraint, facts: CallFacts): boolean {
	if (facts.oversized) return false;
	if (constraint.kind === 'exact') return (facts.hash ??= hashArguments(facts.args)) === constraint.argumentsHash;
	const args = facts.args;
	if (!isRecord(args) || constraint.fields.length === 0) return false;
	return constraint.fields.every((field) => {
		const { found, value } = valueAt(args, field.path);
		if (!found) return false;
		if ('equals' in field) return sameValue(value, field);
		return typeof value === 'number' && Number.isFinite(value) && value <= field.atMost && (field.atLeast === undefined || value >= field.atLeast);
	});
}

/** canonicalJson(value) === canonicalJson(field.equals), without serializing two strings or two finite numbers (equal as JSON exactly when ===). */
function sameValue(value: unknown, field: { equals: unknown }): boolean {
	const expected = field.equals;
	if (typeof value === 'string' && typeof expected === 'string') return value === expected;
	if (typeof value === 'number' && typeof expected === 'number' && Number.isFinite(value) && Number.isFinite(expected)) return value === expected;
	return canonicalJson(value) === equalsText(field);
}

/** Whether the arguments meet the constraint. Arguments beyond the package's limits meet none. */
export function constraintHolds(constraint: GrantConstraint, args: unknown): boolean {
	return holds(constraint, factsOf(args));
}

/**
 * Whether a person could approve this call now, so that a grant may stand in for them: it waits
 * for review only (not for a server's input), its rule offers approve, and its definition is not
 * one the builder wants every call of reviewed.
 */
export function grantableCall(call: PlannedCall): boolean {
	const review = call.review;
	if (!call.tool || call.rejection || review?.status !== 'pending') return false;
	if (call.input && call.input.status !== 'answered') return false;
	if (review.askedBy === 'unpinned definition') return false;
	return review.decisions === undefined || review.decisions.includes('approve');
}

/** Whether the grant covers the call in this scope at `now`. */
export function grantCovers(grant: Grant, call: PlannedCall, scope: GrantScope, now: number): boolean {
	if (!call.tool || !grantableCall(call)) return false;
	return coversGrantable(grant, call, scope, now, () => factsOf(call.arguments));
}

/** grantCovers for a call already known to be grantable; `facts` is asked only once the grant's identity matches. */
function coversGrantable(grant: Grant, call: PlannedCall, scope: GrantScope, now: number, facts: () => CallFacts): boolean {
	const tool = call.tool;
	if (!tool || !grantActive(grant, now)) return false;
	if (grant.workflowId !== scope.workflowId || grant.nodeId !== scope.nodeId) return false;
	if (grant.server !== tool.serverName || grant.tool !== tool.mcpName || grant.fingerprint !== tool.fingerprint) return false;
	try {
		return holds(grant.constraint, facts());
	} catch {
		return false;
	}
}

/**
 * The first grant (earliest expiry first, then id: deterministic) that covers the call, if any.
 * What the call brings (its limits check, its hash) is worked out once, not once per grant.
 */
export function coveringGrant(grants: readonly Grant[], call: PlannedCall, scope: GrantScope, now: number): Grant | undefined {
	if (!call.tool || !grantableCall(call)) return undefined;
	let facts: CallFacts | undefined;
	const factsOnce = () => (facts ??= factsOf(call.arguments));
	let best: Grant | undefined;
	for (const grant of grants) {
		if (best && (grant.expiresAt > best.expiresAt || (grant.expiresAt === best.expiresAt && grant.id >= best.id))) continue;
		if (coversGrantable(grant, call, scope, now, factsOnce)) best = grant;
	}
	return best;
}

export function grantRef(grant: Grant): GrantRef {
	return { grant: grant.id, grantedBy: grant.grantedBy, grantedAt: new Date(grant.grantedAt).toISOString(), expiresAt: new Date(grant.expiresAt).toISOString() };
}

/** Whether an allowedBy names a grant (rather than an approval rule). */
export function isGrantRef(value: unknown): value is GrantRef {
	return isRecord(value) && typeof value.grant === 'string';
}

/**
 * The grant id for a call of an approval: deterministic, so a replayed decision cannot add a
 * second grant (or renew a revoked one: the store keeps the existing row).
 */
export function grantIdFor(scope: GrantScope, approvalId: string, callId: string): string {
	return `grant_${createHash('sha256').update(canonicalJson([scope.workflowId, scope.nodeId, approvalId, callId])).digest('hex').slice(0, 32)}`;
}

export interface NewGrant extends GrantScope {
	approvalId: string;
	callId: string;
	server: string;
	tool: string;
	fingerprint: string;
	/** The call's arguments as the person saw them: the constraint must hold for them. */
	arguments: unknown;
	constraint: GrantConstraint;
	duration: GrantDuration;
	grantedBy: string;
	now: number;
}

/** A new grant, checked; an Error names what is wrong (nothing is stored then). */
export function makeGrant(input: NewGrant): Grant | Error {
	if (!Object.hasOwn(GRANT_DURATIONS, input.duration)) return new McpAgentError(`unknown duration "${String(input.duration)}"; pick ${Object.values(GRANT_DURATION_LABELS).join(', ')}`, { code: 'review' });
	const constraint = parseConstraint(input.constraint);
	if (!constraint) return new McpAgentError('the condition for similar calls cannot be used', { code: 'review' });
	if (!constraintHolds(constraint, input.arguments)) return new McpAgentError('the condition for similar calls does not hold for the call it was made from', { code: 'review' });
	const grant = parseGrant({
		v: GRANT_VERSION,
		id: grantIdFor(input, input.approvalId, input.callId),
		workflowId: input.workflowId,
		nodeId: input.nodeId,
		server: input.server,
		tool: input.tool,
		fingerprint: input.fingerprint,
		constraint,
		grantedBy: input.grantedBy,
		grantedAt: input.now,
		expiresAt: input.now + GRANT_DURATIONS[input.duration],
		approvalId: input.approvalId,
	});
	if (!grant) return new McpAgentError('the standing approval is incomplete (workflow, Agent node, tool, fingerprint or reviewer missing)', { code: 'review' });
	if (Buffer.byteLength(JSON.stringify(grant), 'utf8') > MAX_GRANT_BYTES) return new McpAgentError(`the standing approval would be larger than ${MAX_GRANT_BYTES / 1024} KB; allow exactly these arguments or a smaller field instead`, { code: 'review' });
	return grant;
}

/** The result of reading the store for a run: grants, or why none can be used (the calls are asked). */
export type GrantReading = { ok: true; grants: Grant[] } | { ok: false; error: string };

/** Reads the scope's active grants fresh; any error, or a reply that is not a list, reads as "none". */
export async function readGrants(store: GrantStore | undefined, scope: GrantScope, now: number): Promise<GrantReading> {
	if (!store) return { ok: false, error: 'standing approvals are not available in this n8n' };
	try {
		const rows = await store.listActive(scope, now);
		if (!Array.isArray(rows)) return { ok: false, error: 'the grant store answered with something other than a list' };
		const grants: Grant[] = [];
		for (const row of rows) {
			const grant = parseGrant(row);
			if (grant && grantActive(grant, now) && grant.workflowId === scope.workflowId && grant.nodeId === scope.nodeId) grants.push(grant);
		}
		return { ok: true, grants };
	} catch (error) {
		return { ok: false, error: error instanceof Error ? error.message : String(error) };
	}
}

/** A grant's condition in words, for the review page, the grants page and the log. */
export function describeConstraint(constraint: GrantConstraint): string {
	if (constraint.kind === 'exact') return 'exactly the same arguments';
	return constraint.fields
		.map((field) => {
			const name = field.path.join('.');
			if ('equals' in field) return `${name} is ${truncate(canonicalJson(field.equals), 120)}`;
			return field.atLeast !== undefined ? `${name} between ${field.atLeast} and ${field.atMost}` : `${name} at most ${field.atMost}`;
		})
		.join(' and ');
}

function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The run's pending calls that a grant covers, approved by it (pure: the driver read the grants
 * fresh, and `at` is when). A covered call no longer waits for review and records the grant as
 * allowedBy; every other call is left as it is. Only calls of a turn with no open approval are
 * considered: once a person has been asked, their decision (not a grant made meanwhile) decides.
 */
export function applyGrants<P extends { calls: PlannedCall[]; outcomes: Record<string, unknown>; approval?: unknown }>(phase: P, grants: readonly Grant[], scope: GrantScope, at: number): P {
	if (phase.approval || grants.length === 0) return phase;
	let changed = false;
	const calls = phase.calls.map((call): PlannedCall => {
		if (Object.hasOwn(phase.outcomes, call.id)) return call;
		const grant = coveringGrant(grants, call, scope, at);
		if (!grant) return call;
		changed = true;
		const { review: _covered, ...rest } = call;
		return { ...rest, allowedBy: grantRef(grant) };
	});
	return changed ? { ...phase, calls } : phase;
}

/**
 * Why a decision's "allow similar calls" cannot stand (undefined when it can): only with Approve,
 * only on a call a grant could cover, with a known duration and a condition that holds for this
 * call's own arguments. The review page checks the same; this is the Agent's own check of what
 * reaches it, so the grant it stores rests on the run's state, not on the request item.
 */
export function allowSimilarProblem(call: PlannedCall, decision: Pick<ReviewDecision, 'decision' | 'allowSimilar'>): string | undefined {
	const wanted: unknown = decision.allowSimilar;
	if (decision.decision !== 'approve') return 'only an approval can allow similar calls';
	if (!grantableCall(call)) return 'its approval rule or its definition needs a person for every call';
	if (!isRecord(wanted) || Object.keys(wanted).some((key) => key !== 'duration' && key !== 'constraint')) return 'the choice is not in the expected form';
	if (typeof wanted.duration !== 'string' || !Object.hasOwn(GRANT_DURATIONS, wanted.duration)) return `unknown duration "${String(wanted.duration)}"`;
	const constraint = parseConstraint(wanted.constraint);
	if (!constraint) return 'the condition for similar calls cannot be used';
	if (!constraintHolds(constraint, call.arguments)) return 'the condition for similar calls does not hold for this call';
	return undefined;
}

/** The calls of the phase whose approval allowed similar calls, and that have no standing approval recorded yet. */
export function standingApprovalsToStore(calls: readonly PlannedCall[]): Array<PlannedCall & { review: { allowSimilar: AllowSimilar & { approvalId: string } } }> {
	return calls.filter((call) => call.review?.allowSimilar && !call.review.standingApproval) as Array<PlannedCall & { review: { allowSimilar: AllowSimilar & { approvalId: string } } }>;
}

/** The phase with what became of each call's standing approval recorded (pure; `results` by call id). */
export function recordStandingApprovals<P extends { calls: PlannedCall[] }>(phase: P, results: Record<string, StandingApprovalOutcome>): P {
	let changed = false;
	const calls = phase.calls.map((call): PlannedCall => {
		if (!call.review?.allowSimilar || call.review.standingApproval || !Object.hasOwn(results, call.id)) return call;
		changed = true;
		return { ...call, review: { ...call.review, standingApproval: { ...results[call.id] } } };
	});
	return changed ? { ...phase, calls } : phase;
}
