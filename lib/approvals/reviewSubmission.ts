import { validateArguments } from '../tools/argumentValidator';
import { APPROVAL_DECISION_KIND, offeredDecisions, type ApprovalDecisionItem, type ApprovalRequest } from './approvalRequest';
import type { ReviewerChoice } from '../agent/policy';
import { fieldName, MAX_REASON_CHARS } from './reviewPage';
import { readCallInput } from './inputForm';
import { fieldForProblem, readEditFields } from './editForm';

/**
 * Turns a POST from the review page (form fields) or an API client (JSON) into one decision item
 * per pending approval. Everything must line up with what is pending: an unknown approval or call,
 * a different argument hash, a missing decision or edited arguments that break the schema reject
 * the whole submission, and the execution keeps waiting.
 *
 * "Approve all" / "Deny all" are submit buttons (`bulk=approve|deny`, form posts only): they decide
 * every call the reviewer left unset and never override a call set explicitly. Edited arguments
 * come from the fields generated from the schema (editForm.ts) or, when the page had none or the
 * reviewer chose "Edit as JSON", from the JSON text.
 */
export type SubmissionResult =
	| { ok: true; decisions: ApprovalDecisionItem[] }
	| { ok: false; errors: string[]; previous: Record<string, string>; inputErrors?: Record<string, string[]>; editErrors?: Record<string, string[]> };

interface JsonDecision {
	approvalId?: unknown;
	callId?: unknown;
	argsHash?: unknown;
	decision?: unknown;
	reason?: unknown;
	arguments?: unknown;
	inputHash?: unknown;
	inputResponses?: unknown;
}

/** Edited arguments larger than this are refused: they would be validated on n8n main and stored in the run. */
export const MAX_EDITED_ARGUMENTS_BYTES = 256 * 1024;

// Shown again after an error: a password or a one-time code never is, nor the review secret (the page adds it itself).
const NOT_SHOWN_AGAIN = new Set(['password', 'mfaCode', 'reviewToken']);

export function parseReviewSubmission(
	body: Record<string, unknown>,
	requests: ApprovalRequest[],
	options: { now: string; reviewer?: string },
): SubmissionResult {
	const previous = valuesToShowAgain(body);
	const errors: string[] = [];
	const fromJson = Array.isArray(body.decisions) ? indexJsonDecisions(body.decisions as JsonDecision[], errors) : undefined;
	// A form field sent twice arrives as a list: which value the person meant is unknown, so nothing is decided.
	if (!fromJson) for (const [key, value] of Object.entries(body)) if (Array.isArray(value)) errors.push(`The form field ${key} was sent more than once.`);
	const inputErrors: Record<string, string[]> = {};
	const editErrors: Record<string, string[]> = {};
	// Only a form post has the bulk buttons; an API client names every decision.
	const bulk = !fromJson && (body.bulk === 'approve' || body.bulk === 'deny') ? body.bulk : undefined;
	const bulkReason = typeof body.bulkReason === 'string' && body.bulkReason.trim() ? body.bulkReason.trim() : undefined;
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
			const field = (kind: 'decision' | 'reason' | 'args' | 'hash' | 'inputHash') => body[fieldName(kind, request.approvalId, call.callId)];
			// Items of earlier versions carry no needsReview: every call in them waits for review.
			const needsReview = call.needsReview !== false;
			const set = json ? json.decision : field('decision');
			const unset = set === undefined || set === '';
			// A bulk approve answers no input request: a call waiting only for input keeps waiting for its answers.
			const decision = unset && bulk && (needsReview || bulk === 'deny') ? bulk : set;
			const hash = json ? json.argsHash : field('hash');
			const reasonRaw = json ? json.reason : field('reason');
			const ownReason = typeof reasonRaw === 'string' && reasonRaw.trim() ? reasonRaw.trim() : undefined;
			const reason = ownReason ?? (unset && decision === 'deny' ? bulkReason : undefined);
			if (needsReview ? decision !== 'approve' && decision !== 'deny' && decision !== 'edit' : decision !== undefined && decision !== 'approve' && decision !== 'deny') {
				errors.push(needsReview ? `Choose approve, deny or edit for ${label}.` : `A call that waits only for input can be answered, or denied, for ${label}.`);
				return [];
			}
			if (needsReview && typeof decision === 'string' && !offeredDecisions(call).includes(decision as ReviewerChoice)) {
				errors.push(`${decision === 'edit' ? 'Editing' : 'Approving'} is not offered for ${label}: its approval rule lets a reviewer ${offeredDecisions(call).join(' or ')} only.`);
				return [];
			}
			if (reason && reason.length > MAX_REASON_CHARS) {
				errors.push(`The reason for ${label} has ${reason.length} characters; at most ${MAX_REASON_CHARS} are accepted.`);
				return [];
			}
			if (hash !== call.argsHash) {
				errors.push(`The decision for ${label} was made on different arguments than the ones pending.`);
				return [];
			}
			// Input the server asked for: needed unless the call is denied or its arguments edited (it then starts over).
			let answers: Pick<ApprovalDecisionItem['decisions'][number], 'inputHash' | 'inputResponses'> = {};
			if (call.input && decision !== 'deny' && decision !== 'edit') {
				const inputHash = json ? json.inputHash : field('inputHash');
				if (inputHash !== call.input.inputHash) {
					errors.push(`The answers for ${label} were given to other input requests than the ones pending.`);
					return [];
				}
				const reading = readCallInput(body, request.approvalId, call, json ? json.inputResponses ?? null : undefined);
				if (!reading.ok) {
					errors.push(...reading.errors);
					Object.assign(inputErrors, reading.byRequest);
					return [];
				}
				answers = { inputHash: call.input.inputHash, inputResponses: reading.inputResponses };
			}
			if (decision === undefined) return [{ callId: call.callId, argsHash: call.argsHash, ...answers }];
			if (decision !== 'edit') return [{ callId: call.callId, argsHash: call.argsHash, decision: decision as 'approve' | 'deny', ...(reason ? { reason } : {}), ...answers }];
			let edited: unknown = json ? json.arguments : undefined;
			const fromFields = json ? ({ ok: 'json' } as const) : readEditFields(body, request.approvalId, call.callId, call.inputSchema, call.arguments);
			if (fromFields.ok === false) {
				errors.push(...fromFields.errors.map((e) => `The edited arguments for ${label}: ${e}`));
				Object.assign(editErrors, fromFields.fieldErrors);
				return [];
			}
			if (fromFields.ok === true) edited = fromFields.arguments;
			const size = editedSize(json || fromFields.ok === true ? edited : field('args'));
			if (size > MAX_EDITED_ARGUMENTS_BYTES) {
				errors.push(`The edited arguments for ${label} are ${Math.ceil(size / 1024)} KB of JSON; at most ${MAX_EDITED_ARGUMENTS_BYTES / 1024} KB are accepted.`);
				return [];
			}
			if (!json && fromFields.ok === 'json') {
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
				if (fromFields.ok === true) {
					for (const problem of validation.problems) {
						const name = fieldForProblem(request.approvalId, call.callId, call.inputSchema, call.arguments, problem.path);
						if (name) (editErrors[name] ??= []).push(`${problem.path.replace(/^arguments\.?/, '')} ${problem.message}`);
					}
				}
				return [];
			}
			return [{ callId: call.callId, argsHash: call.argsHash, decision, arguments: edited, ...(reason ? { reason } : {}) }];
		}),
	}));
	return errors.length
		? { ok: false, errors, previous, ...(Object.keys(inputErrors).length ? { inputErrors } : {}), ...(Object.keys(editErrors).length ? { editErrors } : {}) }
		: { ok: true, decisions };
}

/** The form values to fill in again after an error. */
export function valuesToShowAgain(body: Record<string, unknown>): Record<string, string> {
	const previous: Record<string, string> = {};
	for (const [key, value] of Object.entries(body)) if (typeof value === 'string' && !NOT_SHOWN_AGAIN.has(key)) previous[key] = value;
	return previous;
}

/** The API's decisions by approval and call; a call named twice is an error (which one was meant?). */
function indexJsonDecisions(list: JsonDecision[], errors: string[]): Map<string, JsonDecision> {
	const map = new Map<string, JsonDecision>();
	for (const entry of list) {
		if (!entry || typeof entry !== 'object') continue;
		const key = `${String(entry.approvalId)}/${String(entry.callId)}`;
		if (map.has(key)) errors.push(`The call ${key} has more than one decision.`);
		map.set(key, entry);
	}
	return map;
}

/** UTF-8 bytes of the edited arguments as JSON text (the form sends the text, the API a value). */
function editedSize(value: unknown): number {
	if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
	try {
		return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
	} catch {
		return Number.POSITIVE_INFINITY; // not serializable (e.g. circular): never accepted
	}
}
