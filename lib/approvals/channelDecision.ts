import { CHANNEL_REASON_LABEL, readPerCallChoices, type PerCallChoice } from './channelForm';
import { REVIEW_TOKEN_PARAM } from './reviewToken';
import { isJsonObject } from '../util/jsonObject';

/**
 * Answers from n8n's own channels, which approve or deny every pending call of one approval at once:
 * - send-and-wait nodes (Slack, Gmail, Telegram, Form...) output `{ data: { approved } }`; n8n signs
 *   their links and builds their buttons, so `data.approved` is theirs;
 * - a Wait node "on webhook call" outputs the request as `{ headers, params, query, body }`; only a
 *   POSTed `body.approved` decides, and only with the approval's review secret (`reviewToken` in
 *   the query, as the review URL carries it, or in the body): n8n 1.x does not sign a Wait node's
 *   resume URL, and execution ids are sequential.
 *
 * Nothing decides from a query string or from a GET: link previews (Slack, Teams, mail scanners)
 * open every URL they see, so `<resume URL>?approved=true` must change nothing. A GET has no body,
 * and the query string and the item's top level are never read. A channel answer without a decision
 * (a bare GET of the Wait node's URL, a send-and-wait form without `approved`) is still recognized,
 * so the Agent can say the calls stay pending instead of starting a new run.
 *
 * A send-and-wait "Custom Form" built from the item's `channelForm` answers per call (channelForm.ts):
 * one Approve / Deny per call, each bound to its position and code.
 */
export interface ChannelDecision {
	approved: boolean;
	reason?: string;
	approvalId?: string;
	reviewer?: string;
	/** Short call codes the person confirmed (see `callCode`); each must name a pending call. */
	codes?: string[];
	/** Argument hashes the decision names; each must be a pending call's. */
	argsHashes?: string[];
	/** Per-call choices from the custom form; `approved` is then true when any call is approved. */
	perCall?: PerCallChoice[];
	/** POSTed to a Wait node: then it must carry the approval's review secret. */
	viaWebhook?: boolean;
	/** The review secret the request carried (query or body), if any. */
	reviewToken?: string;
}

export type ChannelAnswer =
	| { kind: 'decision'; decision: ChannelDecision }
	/** A channel resumed without any decision; `approvalId` only when the POSTed body named one. */
	| { kind: 'no-decision'; approvalId?: string };

type Json = Record<string, unknown>;

/** A webhook request as n8n's Wait and Webhook nodes output it. */
export function isWebhookShaped(json: Json): boolean {
	return isJsonObject(json.headers) || isJsonObject(json.query) || isJsonObject(json.params);
}

function asBoolean(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	return undefined;
}

function text(source: Json, key: string): string | undefined {
	const value = source[key];
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** A list given as an array of strings or as one string separated by spaces or commas. */
function list(source: Json, key: string): string[] | undefined {
	const value = source[key];
	const words = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? value.split(/[\s,;]+/) : [];
	const cleaned = words.map((w) => w.trim()).filter(Boolean);
	return cleaned.length > 0 ? cleaned : undefined;
}

/** The part of the item a decision may come from: a webhook's body, or a send-and-wait's data. */
function decisionSource(json: Json): Json | undefined {
	if (isWebhookShaped(json)) return isJsonObject(json.body) ? json.body : undefined;
	return isJsonObject(json.data) ? json.data : undefined;
}

/** Undefined when the item is no channel answer at all (then it may start a new run). */
export function readChannelAnswer(json: Json): ChannelAnswer | undefined {
	const webhook = isWebhookShaped(json);
	if (!webhook && !isJsonObject(json.data)) return undefined;
	const source = decisionSource(json) ?? {};
	const approvalId = text(source, 'approvalId');
	const perCall = readPerCallChoices(source);
	const approved = perCall ? perCall.some((c) => c.choice === 'approve') : asBoolean(source.approved);
	if (approved === undefined) return { kind: 'no-decision', ...(approvalId ? { approvalId } : {}) };
	const reason = text(source, 'reason') ?? (perCall ? text(source, CHANNEL_REASON_LABEL) : undefined);
	// A Wait node's URL or body, or (for an answer that comes through other nodes) the answer itself.
	const reviewToken = (webhook && isJsonObject(json.query) ? text(json.query, REVIEW_TOKEN_PARAM) : undefined) ?? text(source, REVIEW_TOKEN_PARAM);
	const reviewer = text(source, 'reviewer');
	const codes = list(source, 'code') ?? list(source, 'codes');
	const argsHashes = list(source, 'argsHash') ?? list(source, 'argsHashes');
	return {
		kind: 'decision',
		decision: {
			approved,
			...(approvalId ? { approvalId } : {}),
			...(reason ? { reason } : {}),
			...(reviewer ? { reviewer } : {}),
			...(codes ? { codes } : {}),
			...(argsHashes ? { argsHashes } : {}),
			...(perCall ? { perCall } : {}),
			...(webhook ? { viaWebhook: true } : {}),
			...(reviewToken ? { reviewToken } : {}),
		},
	};
}

/** The decision an item carries, if any (see `readChannelAnswer` for where it may come from). */
export function readChannelDecision(json: Json): ChannelDecision | undefined {
	const answer = readChannelAnswer(json);
	return answer?.kind === 'decision' ? answer.decision : undefined;
}
