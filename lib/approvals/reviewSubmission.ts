import { validateArguments } from '../tools/argumentValidator';
import { APPROVAL_DECISION_KIND, type ApprovalDecisionItem, type ApprovalRequest } from './approvalRequest';
import { fieldName } from './reviewPage';

/**
 * Turns a POST from the review page (form fields) or an API client (JSON) into one decision item
 * per pending approval. Everything must line up with what is pending: an unknown approval or call,
 * a different argument hash, a missing decision or edited arguments that break the schema reject
 * the whole submission, and the execution keeps waiting.
 */
export type SubmissionResult =
	| { ok: true; decisions: ApprovalDecisionItem[] }
	| { ok: false; errors: string[]; previous: Record<string, string> };

interface JsonDecision {
	approvalId?: unknown;
	callId?: unknown;
	argsHash?: unknown;
	decision?: unknown;
	reason?: unknown;
	arguments?: unknown;
}

const MAX_REASON = 2000;

export function parseReviewSubmission(
	body: Record<string, unknown>,
	requests: ApprovalRequest[],
	options: { now: string; reviewer?: string },
): SubmissionResult {
	const previous: Record<string, string> = {};
	// Shown again after an error; a password never is.
	for (const [key, value] of Object.entries(body)) if (typeof value === 'string' && key !== 'password') previous[key] = value;
	const fromJson = Array.isArray(body.decisions) ? indexJsonDecisions(body.decisions as JsonDecision[]) : undefined;
	const errors: string[] = [];
	const reviewer = options.reviewer ?? (typeof body.reviewer === 'string' ? body.reviewer.trim().slice(0, 200) : '');
	if (!reviewer) errors.push('Enter your name as the reviewer.');
	const known = new Set(requests.flatMap((r) => r.calls.map((c) => `${r.approvalId}/${c.callId}`)));
	if (fromJson) for (const key of fromJson.keys()) if (!known.has(key)) errors.push(`The decision for ${key} does not match any pending call.`);

	const decisions: ApprovalDecisionItem[] = requests.map((request) => ({
		kind: APPROVAL_DECISION_KIND,
		approvalId: request.approvalId,
		...(reviewer ? { reviewer } : {}),
		decidedAt: options.now,
		decisions: request.calls.flatMap((call): ApprovalDecisionItem['decisions'] => {
			const label = `${call.tool} (call ${call.callId})`;
			const json = fromJson?.get(`${request.approvalId}/${call.callId}`);
			const field = (kind: 'decision' | 'reason' | 'args' | 'hash') => body[fieldName(kind, request.approvalId, call.callId)];
			const decision = json ? json.decision : field('decision');
			const hash = json ? json.argsHash : field('hash');
			const reasonRaw = json ? json.reason : field('reason');
			const reason = typeof reasonRaw === 'string' && reasonRaw.trim() ? reasonRaw.trim().slice(0, MAX_REASON) : undefined;
			if (decision !== 'approve' && decision !== 'deny' && decision !== 'edit') {
				errors.push(`Choose approve, deny or edit for ${label}.`);
				return [];
			}
			if (hash !== call.argsHash) {
				errors.push(`The decision for ${label} was made on different arguments than the ones pending.`);
				return [];
			}
			if (decision !== 'edit') return [{ callId: call.callId, argsHash: call.argsHash, decision, ...(reason ? { reason } : {}) }];
			let edited: unknown = json ? json.arguments : undefined;
			if (!json) {
				try {
					edited = JSON.parse(String(field('args') ?? ''));
				} catch (error) {
					errors.push(`The edited arguments for ${label} are not valid JSON: ${(error as Error).message}`);
					return [];
				}
			}
			const validation = validateArguments(call.inputSchema, edited);
			if (!validation.valid) {
				errors.push(`The edited arguments for ${label} do not match the tool's schema: ${validation.summary}`);
				return [];
			}
			return [{ callId: call.callId, argsHash: call.argsHash, decision, arguments: edited, ...(reason ? { reason } : {}) }];
		}),
	}));
	return errors.length ? { ok: false, errors, previous } : { ok: true, decisions };
}

function indexJsonDecisions(list: JsonDecision[]): Map<string, JsonDecision> {
	const map = new Map<string, JsonDecision>();
	for (const entry of list) if (entry && typeof entry === 'object') map.set(`${String(entry.approvalId)}/${String(entry.callId)}`, entry);
	return map;
}
