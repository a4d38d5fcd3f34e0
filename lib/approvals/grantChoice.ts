import { createHash } from 'node:crypto';
import { hashArguments } from '../agent/argumentHash';
import { GRANT_DURATION_LABELS, GRANT_DURATIONS, describeConstraint, type FieldCondition, type GrantConstraint, type GrantDuration } from '../agent/grants';
import type { ApprovalDecisionItem, ApprovalRequest, PendingCallView } from './approvalRequest';
import { showText } from './html';

/**
 * The review page's "allow similar calls" choice: for a call a person approves, a duration (1 hour,
 * 1 day, 30 days) and what "similar" means: exactly these arguments, or conditions picked from the
 * call's own values (a field keeps its value; a number stays at most what it is now). The page
 * offers fields by their position in a list built from the call's arguments, and the POST is read
 * against the same list, so a submission can name only fields and values the person was shown.
 *
 * Only a person's form post on the review page chooses a grant: the choice goes into the approval's
 * signed decision, and the Agent stores the grant when it applies that decision (runAgent.ts). A
 * JSON (API) post, a channel answer or anything in an item never carries one.
 */
export interface FieldCandidate {
	path: string[];
	value: string | number | boolean | null;
}

const MAX_CANDIDATES = 20;
const MAX_CANDIDATE_DEPTH = 3;
const MAX_CANDIDATE_CHARS = 500;

/** The call's scalar values a person may pick a condition from, in a fixed order. */
export function fieldCandidates(args: unknown): FieldCandidate[] {
	const out: FieldCandidate[] = [];
	const walk = (value: unknown, path: string[]) => {
		if (out.length >= MAX_CANDIDATES) return;
		if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= MAX_CANDIDATE_CHARS)) {
			if (path.length) out.push({ path, value: value as FieldCandidate['value'] });
			return;
		}
		if (value && typeof value === 'object' && !Array.isArray(value) && path.length < MAX_CANDIDATE_DEPTH) {
			for (const key of Object.keys(value)) {
				if (key === '__proto__' || key === 'constructor' || key === 'prototype' || !key || key.length > 200) continue;
				walk((value as Record<string, unknown>)[key], [...path, key]);
			}
		}
	};
	walk(args, []);
	return out;
}

type GrantField = 'grant' | 'grantScope' | 'grantSame' | 'grantMax';

/** Form field names of the choice; like fieldName, no raw ids. */
export function grantFieldName(kind: GrantField, approvalId: string, callId: string, index?: number): string {
	const key = createHash('sha256').update(JSON.stringify([approvalId, callId])).digest('hex').slice(0, 20);
	return `${kind}__${key}${index !== undefined ? `__${index}` : ''}`;
}

/** The choice under a grantable call's decision; empty when the call cannot be granted or grants are unavailable. */
export function renderGrantChoice(request: ApprovalRequest, call: PendingCallView, previous: Record<string, string>, available: boolean | string): string {
	if (!call.grantable || !request.origin?.nodeId) return '';
	if (available !== true) return `<p class="meta grant-off">Standing approvals are unavailable here${typeof available === 'string' ? `: ${showText(available)}` : ''}.</p>`;
	const f = (kind: GrantField, index?: number) => grantFieldName(kind, request.approvalId, call.callId, index);
	const chosen = previous[f('grant')] ?? '';
	const options = [`<option value=""${chosen === '' ? ' selected' : ''}>No, only this call</option>`]
		.concat((Object.keys(GRANT_DURATIONS) as GrantDuration[]).map((d) => `<option value="${d}"${chosen === d ? ' selected' : ''}>For ${GRANT_DURATION_LABELS[d]}</option>`))
		.join('');
	const scope = previous[f('grantScope')] ?? 'exact';
	const candidates = fieldCandidates(call.arguments);
	const rows = candidates
		.map((candidate, i) => {
			const label = showText(candidate.path.join('.'));
			const value = showText(JSON.stringify(candidate.value));
			const same = `<label class="grant-pick"><input type="checkbox" name="${f('grantSame', i)}" value="1"${previous[f('grantSame', i)] ? ' checked' : ''}> <code>${label}</code> is ${value}</label>`;
			const max = typeof candidate.value === 'number' ? `<label class="grant-pick"><input type="checkbox" name="${f('grantMax', i)}" value="1"${previous[f('grantMax', i)] ? ' checked' : ''}> <code>${label}</code> at most ${value}${candidate.value >= 0 ? ' (and not negative)' : ''}</label>` : '';
			return `<li>${same}${max}</li>`;
		})
		.join('');
	const radio = (value: string, label: string) => `<label class="keep"><input type="radio" name="${f('grantScope')}" value="${value}"${scope === value ? ' checked' : ''}> ${label}</label>`;
	return `<fieldset class="grant"><legend>Also allow similar calls without asking?</legend>
<p class="meta">Only with Approve. Similar calls of this Agent in this workflow then run without review until the time is up, while the tool's definition stays as it is now; it is listed at the end of every review page of this Agent, where it can be revoked.</p>
<label for="${f('grant')}">Allow</label> <select id="${f('grant')}" name="${f('grant')}">${options}</select>
<div class="grant-scope">${radio('exact', `This tool with exactly these arguments`)}${candidates.length ? `${radio('fields', 'This tool when all the conditions I tick hold:')}<ul class="grant-fields">${rows}</ul>` : ''}</div>
</fieldset>`;
}

export interface GrantChoice {
	approvalId: string;
	call: PendingCallView;
	constraint: GrantConstraint;
	duration: GrantDuration;
}

/**
 * The grant choices of a form post, for calls whose decision is approve. Errors (a choice with no
 * condition ticked, a choice on a call that is not approved or cannot be granted) reject the whole
 * submission, as other form errors do: the person sees the page again.
 */
export function readGrantChoices(body: Record<string, unknown>, requests: ApprovalRequest[], decisions: ApprovalDecisionItem[]): { choices: GrantChoice[]; errors: string[] } {
	const choices: GrantChoice[] = [];
	const errors: string[] = [];
	for (const request of requests) {
		for (const call of request.calls) {
			const f = (kind: GrantField, index?: number) => grantFieldName(kind, request.approvalId, call.callId, index);
			const duration = body[f('grant')];
			if (duration === undefined || duration === '') continue;
			const label = `${call.tool} (call ${call.callId})`;
			if (typeof duration !== 'string' || !Object.hasOwn(GRANT_DURATIONS, duration)) {
				errors.push(`Pick how long to allow similar calls for ${label}.`);
				continue;
			}
			const decision = decisions.find((d) => d.approvalId === request.approvalId)?.decisions.find((d) => d.callId === call.callId);
			if (!call.grantable || !request.origin?.nodeId) {
				errors.push(`Similar calls cannot be allowed for ${label}: its approval rule or its definition needs a person for every call.`);
				continue;
			}
			if (decision?.decision !== 'approve') {
				errors.push(`Similar calls can be allowed only with Approve, for ${label}.`);
				continue;
			}
			let constraint: GrantConstraint;
			if (body[f('grantScope')] === 'fields') {
				const candidates = fieldCandidates(call.arguments);
				const fields: FieldCondition[] = [];
				candidates.forEach((candidate, i) => {
					if (body[f('grantSame', i)] !== undefined) fields.push({ path: candidate.path, equals: candidate.value });
					if (body[f('grantMax', i)] !== undefined && typeof candidate.value === 'number') fields.push({ path: candidate.path, atMost: candidate.value, ...(candidate.value >= 0 ? { atLeast: 0 } : {}) });
				});
				if (fields.length === 0) {
					errors.push(`Tick at least one condition for similar calls of ${label}, or allow exactly these arguments.`);
					continue;
				}
				constraint = { kind: 'fields', fields };
			} else constraint = { kind: 'exact', argumentsHash: hashArguments(call.arguments) };
			choices.push({ approvalId: request.approvalId, call, constraint, duration: duration as GrantDuration });
		}
	}
	return { choices, errors };
}

/** A choice in words, for the page that confirms the decision. */
export function choiceSummary(choice: GrantChoice): string {
	return `${choice.call.tool} on ${choice.call.server} with ${describeConstraint(choice.constraint)}, for ${GRANT_DURATION_LABELS[choice.duration]}`;
}
