import { hashArguments } from './argumentHash';
import type { ElicitationAnswer, ServerInputRequest } from '../mcp/inputRequests';
import { validateArguments } from '../tools/argumentValidator';
import type { CallInput, ToolInputNeeded } from './types';
import { isJsonObject } from '../util/jsonObject';

/**
 * Input a server asks a person for in the middle of a tool call (MCP 2026-07-28 `input_required`),
 * as the Agent handles it: which requests a person can answer (elicitation in form or URL mode),
 * how a new round is recorded on the call, and the check of a person's answers. Answers are
 * untrusted (they come back through a web page or an API POST), so they are checked here again
 * against the requests stored in the run, never against what a page says.
 */

/** A server that keeps asking is stopped after this many rounds on one call. */
export const MAX_INPUT_ROUNDS = 10;

/** The requests and the server's state are stored with the paused run and shown to the person. */
export const MAX_INPUT_REQUEST_BYTES = 256 * 1024;

/** One call's answers, as JSON: they are stored with the run and sent to the server. */
export const MAX_INPUT_ANSWER_BYTES = 64 * 1024;

export type InputRequestView =
	| { kind: 'form'; message: string; requestedSchema: Record<string, unknown> }
	| { kind: 'url'; message: string; url: string; elicitationId?: string }
	| { kind: 'unsupported'; method: string };

/** What a request asks for, read defensively (it comes from the server). */
export function describeInputRequest(request: ServerInputRequest | undefined): InputRequestView {
	const method = typeof request?.method === 'string' ? request.method : String(request?.method);
	const params = isJsonObject(request?.params) ? request.params : {};
	if (method !== 'elicitation/create') return { kind: 'unsupported', method };
	const message = typeof params.message === 'string' ? params.message : '';
	if (params.mode === 'url') {
		if (typeof params.url !== 'string') return { kind: 'unsupported', method: `${method} (URL mode without a URL)` };
		return { kind: 'url', message, url: params.url, ...(typeof params.elicitationId === 'string' ? { elicitationId: params.elicitationId } : {}) };
	}
	if (params.mode !== undefined && params.mode !== 'form') return { kind: 'unsupported', method: `${method} (mode ${JSON.stringify(params.mode)})` };
	if (!isJsonObject(params.requestedSchema)) return { kind: 'unsupported', method: `${method} (no requested schema)` };
	return { kind: 'form', message, requestedSchema: params.requestedSchema };
}

function jsonBytes(value: unknown): number {
	try {
		return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
	} catch {
		return Number.POSITIVE_INFINITY;
	}
}

export type InputRoundResult = { ok: true; input: CallInput } | { ok: false; error: string };

/**
 * The call's next input round, or why the call must end instead (an error result for the model):
 * too many rounds, nothing asked, a request no person can answer, or more than can be stored.
 */
export function startInputRound(previous: CallInput | undefined, needed: ToolInputNeeded): InputRoundResult {
	const round = (previous?.round ?? 0) + 1;
	if (round > MAX_INPUT_ROUNDS) {
		return { ok: false, error: `The server asked for input ${round} times during this call; after ${MAX_INPUT_ROUNDS} rounds the call was stopped and did not complete.` };
	}
	const requests = isJsonObject(needed.inputRequests) ? needed.inputRequests : {};
	const keys = Object.keys(requests);
	if (keys.length === 0) return { ok: false, error: 'The server said it needs input to complete this call but asked for nothing, so the call did not complete.' };
	for (const key of keys) {
		const view = describeInputRequest(requests[key]);
		if (view.kind === 'unsupported') {
			return { ok: false, error: `The server asked for input this Agent cannot get from a person (${view.method}), so the call did not complete.` };
		}
	}
	if (needed.requestState !== undefined && typeof needed.requestState !== 'string') {
		return { ok: false, error: 'The server asked for input with a request state that is not text, so the call did not complete.' };
	}
	if (jsonBytes(requests) + (needed.requestState?.length ?? 0) > MAX_INPUT_REQUEST_BYTES) {
		return { ok: false, error: `The server's request for input is larger than ${MAX_INPUT_REQUEST_BYTES / 1024} KB, so it was not shown to a person and the call did not complete.` };
	}
	return {
		ok: true,
		input: {
			status: 'pending',
			round,
			inputRequests: requests,
			...(needed.requestState !== undefined ? { requestState: needed.requestState } : {}),
			inputHash: inputRequestsHash(requests),
		},
	};
}

/** Binds answers to the exact requests the person saw (key order does not matter). */
export function inputRequestsHash(requests: Record<string, ServerInputRequest>): string {
	return hashArguments(requests);
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

export type AnswerCheck = { ok: true; responses: Record<string, ElicitationAnswer> } | { ok: false; problem: string };

/**
 * A person's answers checked against the pending requests: one answer per request key and no
 * other, a known action, and for an accepted form, content that matches the requested schema.
 * The result holds only `action` and `content` (nothing else a client sent is passed on).
 */
export function checkInputAnswers(input: Pick<CallInput, 'inputRequests'>, answers: unknown): AnswerCheck {
	if (!isJsonObject(answers)) return { ok: false, problem: 'the answers to the input requests are missing' };
	if (jsonBytes(answers) > MAX_INPUT_ANSWER_BYTES) return { ok: false, problem: `the answers are larger than ${MAX_INPUT_ANSWER_BYTES / 1024} KB` };
	const keys = Object.keys(input.inputRequests);
	for (const key of Object.keys(answers)) if (!Object.hasOwn(input.inputRequests, key)) return { ok: false, problem: `there is no input request ${JSON.stringify(key)}` };
	const responses: Record<string, ElicitationAnswer> = {};
	for (const key of keys) {
		const answer = Object.hasOwn(answers, key) ? answers[key] : undefined;
		const label = `input request ${JSON.stringify(key)}`;
		if (!isJsonObject(answer) || typeof answer.action !== 'string' || !ACTIONS.has(answer.action)) {
			return { ok: false, problem: `${label} has no answer (accept, decline or cancel)` };
		}
		const action = answer.action as ElicitationAnswer['action'];
		const view = describeInputRequest(input.inputRequests[key]);
		let entry: ElicitationAnswer = { action };
		if (action === 'accept' && view.kind === 'form') {
			if (!isJsonObject(answer.content)) return { ok: false, problem: `${label} was accepted without values` };
			const validation = validateArguments(view.requestedSchema, answer.content);
			if (!validation.valid) return { ok: false, problem: `the values for ${label} do not match the requested schema: ${validation.summary.replace(/\barguments\b/g, 'values')}` };
			const shapeProblem = contentProblem(view.requestedSchema, answer.content);
			if (shapeProblem) return { ok: false, problem: `the values for ${label} ${shapeProblem}` };
			entry = { action, content: answer.content };
		} else if (answer.content !== undefined) {
			return { ok: false, problem: `${label} carries values although it was ${action === 'accept' ? 'a link to open' : `answered with ${action}`}` };
		}
		defineEntry(responses, key, entry);
	}
	return { ok: true, responses };
}

/**
 * Only the fields the request asks for: a JSON Schema lets any other property through unless it
 * says otherwise, and a JSON POST may send more than the page's form ever does. Extra fields are
 * refused, not passed on, unless the server's schema itself allows them (additionalProperties).
 */
function contentProblem(schema: Record<string, unknown>, content: Record<string, unknown>): string | undefined {
	if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
	const asked = isJsonObject(schema.properties) ? schema.properties : {};
	const extra = Object.keys(content).filter((name) => !Object.hasOwn(asked, name));
	if (extra.length === 0) return undefined;
	return `include what the request does not ask for: ${extra.slice(0, 3).map((name) => JSON.stringify(name.slice(0, 64))).join(', ')}${extra.length > 3 ? ', …' : ''}`;
}

/** An own entry, also for the key "__proto__" (request keys come from the server). */
function defineEntry<T>(record: Record<string, T>, key: string, value: T): void {
	Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The person's choice per request, for the tool log and the model's note. */
export function answerActions(input: CallInput): Record<string, ElicitationAnswer['action']> | undefined {
	if (!input.responses) return undefined;
	const actions: Record<string, ElicitationAnswer['action']> = {};
	for (const key of Object.keys(input.responses)) defineEntry(actions, key, input.responses[key].action);
	return actions;
}
