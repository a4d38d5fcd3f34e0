import type { AgentState, AllowSimilar, CallReview, OpenApproval, PlannedCall } from '../agent/types';
import { REVIEWER_CHOICES, type ReviewerChoice } from '../agent/policy';
import { boundArgsHash, shownIdentity } from '../agent/review';
import { toolOfCall } from '../agent/catalog';
import { describeInputRequest, inputRequestsHash } from '../agent/callInput';
import type { ServerInputRequest } from '../mcp/inputRequests';
import { mergeInto, scanText, type PoisoningWarning } from '../tools/poisoning';
import { recentToolResults, type ContextToolResult } from './recentResults';

export type { ContextToolResult };
import { channelForm, type ChannelFormField } from './channelForm';
import { argumentsBlock, inlineText, linkTarget, telegramText } from './summaryFormat';
import { setEntry } from '../agent/ownEntry';
import { grantableCall } from '../agent/grants';

/**
 * A paused run's request for review, as an n8n item: everything a reviewer needs to decide,
 * ready-to-send summaries for Slack / e-mail / Telegram, and the review URL. It holds no secret
 * and no run state (that stays server-side in the Agent's node context).
 */
export const APPROVAL_REQUEST_KIND = 'mcp-agent.approval-request';
export const APPROVAL_DECISION_KIND = 'mcp-agent.approval-decision';

export interface PendingCallView {
	callId: string;
	argsHash: string;
	/** Short form of argsHash a person can compare between a channel message and the review page. */
	code: string;
	server: string;
	tool: string;
	title?: string;
	description?: string;
	annotations?: Record<string, unknown>;
	annotationsTrusted: boolean;
	arguments: unknown;
	inputSchema: Record<string, unknown>;
	fingerprint: string;
	warnings: string[];
	/** False when the call waits only for input, not for approval (absent in items of earlier versions: review). */
	needsReview?: boolean;
	/** The server asked for input during this call: answered only on the review page or by an API POST. */
	input?: PendingInputView;
	/** "n8n": the tool of an n8n tool node (`server` is the node's name); it has no MCP annotations. */
	source?: 'n8n';
	/** The decisions the reviewer may take, when an approval rule limits them (absent: approve, deny, edit). */
	decisions?: ReviewerChoice[];
	/** Why the call waits, in words: the approval rule that asked, the node's policy, or an unpinned definition. */
	askedBy?: string;
	/** A person may approve it and allow similar calls for a while (a standing approval, lib/agent/grants.ts). */
	grantable?: boolean;
}

/** One request of the server, as it sent it, with the warnings from scanning it. */
export interface InputRequestItem {
	key: string;
	method: string;
	params?: Record<string, unknown>;
	warnings: string[];
}

export interface PendingInputView {
	/** How many times this call asked for input so far (1 on the first request). */
	round: number;
	/** Hash of the requests: an answer must name it, and the review page checks the requests against it. */
	inputHash: string;
	requests: InputRequestItem[];
}


/** A call whose task still runs, as the item shows it (no secret: the task id is the server's handle). */
export interface TaskWaitView {
	callId: string;
	server: string;
	tool: string;
	taskId: string;
	status: string;
	statusMessage?: string;
	/** When the wait for it ends (Max Task Wait or the task's ttl): then it is cancelled. */
	waitsUntil: string;
}

export interface ApprovalRequest {
	kind: typeof APPROVAL_REQUEST_KIND;
	approvalId: string;
	requestedAt: string;
	expiresAt: string;
	reviewUrl?: string;
	/** What the model said alongside its tool calls. */
	assistantText: string;
	/** The user's request that started the run (the latest user turn). */
	userMessage?: string;
	/** Tool results since the last user turn, scanned and flagged (the most recent ones). */
	recentResults?: ContextToolResult[];
	/** How many earlier results of this run are not in recentResults. */
	omittedResults?: number;
	/** Why this request is handed out again while its calls stay pending (e.g. a channel resumed without a decision). */
	notice?: string;
	/** Where the run comes from: the workflow's and the Agent node's names and what started the execution. */
	origin?: RequestOrigin;
	/** SHA-256 (hex) of this approval's own review secret, which reviewUrl carries; MCP Approval checks it. */
	reviewTokenHash?: string;
	calls: PendingCallView[];
	/** Calls whose MCP task still runs: the run waits for them too (lib/approvals/taskWait.ts). */
	tasks?: TaskWaitView[];
	/** When the Agent checks those tasks next: MCP Approval wakes the execution then (or at the expiry, if sooner). */
	wakeAt?: string;
	/** SHA-256 of this pause's task-wake secret (lib/approvals/taskWait.ts), which only the pausing process holds. */
	taskWakeHash?: string;
	summaryText: string;
	summaryMarkdown: string;
	/** The summary in Telegram's legacy Markdown, the parse mode n8n's Telegram node sends with. */
	summaryTelegram: string;
	/**
	 * n8n's send-and-wait "Custom Form" (Define Form: Using JSON) for per-call decisions: one required
	 * Approve / Deny dropdown per call, labelled "#1 code …", and a reason box (see channelForm.ts).
	 */
	channelForm?: ChannelFormField[];
}

export interface ApprovalDecisionItem {
	kind: typeof APPROVAL_DECISION_KIND;
	approvalId: string;
	reviewer?: string;
	decidedAt: string;
	decisions: Array<{
		callId: string;
		argsHash: string;
		/** Absent for a call that waits only for input and is answered. */
		decision?: 'approve' | 'deny' | 'edit';
		reason?: string;
		arguments?: unknown;
		inputHash?: string;
		inputResponses?: Record<string, { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;
		/** With "approve", set by the review page's form only: the person also allows similar calls (the Agent stores the grant). */
		allowSimilar?: AllowSimilar;
	}>;
	/** MCP Approval's MAC over the rest of the item (decisionProof.ts); the Agent applies nothing without it. */
	proof?: string;
}

/**
 * A call's short code: the first 8 hex digits of its argument hash. Channel messages show it next to
 * the full arguments; a channel answer that names codes must name exactly the pending ones.
 */
export function callCode(argsHash: string): string {
	return argsHash.replace(/^sha256:/, '').slice(0, 8);
}

export interface RequestOrigin {
	workflow?: string;
	/** The Agent node's id: standing approvals made on the review page are scoped to it. */
	nodeId?: string;
	node?: string;
	/** What started the execution, in words (e.g. "a webhook call", "a chat message"). */
	trigger?: string;
}

export interface RequestExtras {
	origin?: RequestOrigin;
	reviewUrl?: string;
	/** Hash of the approval's review secret (the secret itself travels only inside reviewUrl). */
	reviewTokenHash?: string;
	/** Why the request is handed out again while its calls stay pending. */
	notice?: string;
}

/**
 * The decisions a page or channel offers for a call. The item may have passed through other nodes,
 * so this only shapes what is shown: the Agent checks every decision against its own state.
 */
export function offeredDecisions(call: Pick<PendingCallView, 'decisions'>): ReviewerChoice[] {
	const limited = Array.isArray(call.decisions) ? call.decisions : undefined;
	return REVIEWER_CHOICES.filter((choice) => choice === 'deny' || !limited || limited.includes(choice));
}

/** Why a call waits for a person, for the review page and channels. */
function whyItWaits(review: CallReview): string {
	if (review.askedBy === 'unpinned definition') return 'its definition does not match the pinned fingerprint (On Unpinned Tool: Send Every Call for Review)';
	if (review.askedBy) return `the approval rule "${review.askedBy.label}" (rule ${review.askedBy.rule}) asks a person`;
	return "the Agent's Require Approval For setting asks a person";
}

export function buildApprovalRequest(state: AgentState, approval: OpenApproval, calls: PlannedCall[], extras: RequestExtras | string = {}): ApprovalRequest {
	const { reviewUrl, reviewTokenHash, notice, origin } = typeof extras === 'string' ? { reviewUrl: extras } : extras;
	const phase = state.phase.name === 'run_tools' ? state.phase : undefined;
	const views: PendingCallView[] = calls.map((call) => {
		const tool = toolOfCall(state.tools, call);
		const argsHash = boundArgsHash(call);
		const input = call.input?.status === 'pending' ? inputView(call.input.round, call.input.inputRequests) : undefined;
		// What the page shows of the call: a reviewed call's hash covers it (shownIdentity).
		const shown = shownIdentity(tool, call);
		return {
			callId: call.id,
			argsHash,
			code: callCode(argsHash),
			server: shown.server,
			tool: shown.tool,
			...(shown.title ? { title: shown.title } : {}),
			...(shown.description ? { description: shown.description } : {}),
			// Copies: the catalog's definitions are shared with later executions (kept connections), and
			// a node between here and MCP Approval may edit its items in place.
			...(shown.annotations ? { annotations: structuredClone(shown.annotations) as Record<string, unknown> } : {}),
			annotationsTrusted: shown.annotationsTrusted,
			arguments: call.arguments,
			inputSchema: tool?.inputSchema ? structuredClone(tool.inputSchema) : { type: 'object' },
			fingerprint: shown.fingerprint,
			warnings: shown.warnings,
			needsReview: call.review?.status === 'pending',
			...(call.review?.status === 'pending' && call.review.decisions ? { decisions: [...call.review.decisions] } : {}),
			...(call.review?.status === 'pending' ? { askedBy: whyItWaits(call.review) } : {}),
			...(grantableCall(call) ? { grantable: true } : {}),
			...(input ? { input } : {}),
			...(shown.source ? { source: shown.source as 'n8n' } : {}),
		};
	});
	const recent = recentToolResults(state);
	const request: RequestBody = {
		kind: APPROVAL_REQUEST_KIND,
		approvalId: approval.id,
		requestedAt: approval.requestedAt,
		expiresAt: approval.expiresAt,
		...(reviewUrl ? { reviewUrl } : {}),
		...(reviewTokenHash ? { reviewTokenHash } : {}),
		...(notice ? { notice } : {}),
		...(origin && Object.keys(origin).length ? { origin } : {}),
		assistantText: phase?.assistantText ?? '',
		...(state.userMessage !== undefined ? { userMessage: state.userMessage } : {}),
		recentResults: recent.results,
		...(recent.omitted > 0 ? { omittedResults: recent.omitted } : {}),
		calls: views,
	};
	return { ...request, summaryText: summaryText(request), summaryMarkdown: summaryMarkdown(request), summaryTelegram: summaryTelegram(request), channelForm: channelForm(views) };
}

/** The requests rebuilt from their views (request keys come from the server, "__proto__" included). */
export function inputRequestsOf(view: PendingInputView): Record<string, ServerInputRequest> {
	const requests: Record<string, ServerInputRequest> = {};
	for (const item of view.requests) {
		const request: ServerInputRequest = { method: item.method, ...(item.params !== undefined ? { params: item.params } : {}) };
		setEntry(requests, item.key, request);
	}
	return requests;
}

/** Server text shown to a person: scanned like tool results, warnings phrased for the page. */
function inputWarnings(request: ServerInputRequest): string[] {
	const view = describeInputRequest(request);
	const texts = view.kind === 'form' ? [view.message, JSON.stringify(view.requestedSchema)] : view.kind === 'url' ? [view.message, view.url] : [];
	const merged: PoisoningWarning[] = [];
	for (const text of texts) mergeInto(merged, scanText(text));
	return merged.map((warning) => `This input request ${warning.message}.`);
}

function inputView(round: number, requests: Record<string, ServerInputRequest>): PendingInputView {
	return {
		round,
		inputHash: inputRequestsHash(requests),
		requests: Object.keys(requests).map((key) => {
			const request = requests[key];
			return { key, method: request.method, ...(request.params !== undefined ? { params: request.params } : {}), warnings: inputWarnings(request) };
		}),
	};
}

/**
 * One line saying what the server asks for (message on one line, a link's host only: the link itself
 * is on the review page), its server text made inert by `text` (the summary's own grammar).
 */
export function inputRequestLine(item: InputRequestItem, text: (value: unknown) => string = inlineText): string {
	const view = describeInputRequest({ method: item.method, params: item.params });
	const message = view.kind === 'unsupported' ? view.method : view.message || '(no message)';
	if (view.kind !== 'url') return `asks for input: ${text(message)}`;
	let host = '';
	try {
		// Dots bracketed: chat apps turn a bare domain into a link and fetch a preview of it.
		host = new URL(view.url).host.replace(/\./g, '[.]');
	} catch {
		host = 'an address that is not a valid link';
	}
	return `asks you to open a link on ${text(host)}: ${text(message)}`;
}

type RequestBody = Omit<ApprovalRequest, 'summaryText' | 'summaryMarkdown' | 'summaryTelegram'>;

const callsPhrase = (count: number) => `${count} tool call${count === 1 ? '' : 's'}`;

/** The opening sentences: how many calls wait for approval, how many for input, and where input is given. */
function heading(request: RequestBody): string[] {
	const review = request.calls.filter((call) => call.needsReview !== false).length;
	const input = request.calls.filter((call) => call.input).length;
	const lines: string[] = [];
	if (review > 0) lines.push(`An AI agent asks to run ${callsPhrase(review)} that need${review === 1 ? 's' : ''} your approval.`);
	if (input > 0) {
		lines.push(
			`A tool server asks a person for input on ${callsPhrase(input)}. Give it on the review page${request.reviewUrl ? ' (link below)' : ''}; approving in a chat or e-mail does not answer it.`,
		);
	}
	return lines;
}

/**
 * Plain text for e-mail and chat. Names and warnings are made inert (one line, no link); the full
 * arguments of each call are shown with its code, so what a person approves in the channel is what
 * they read, and the code can be compared with the review page.
 */
function summaryText(request: RequestBody): string {
	const lines = heading(request);
	if (request.notice) lines.push(`Note: ${inlineText(request.notice)}`);
	for (const call of request.calls) {
		lines.push('', `- ${inlineText(call.tool)} on ${inlineText(call.server)} (code ${call.code})`, '  Arguments:', argumentsBlock(call.arguments));
		for (const warning of call.warnings) lines.push(`  WARNING: ${inlineText(warning)}`);
		for (const item of call.input?.requests ?? []) {
			lines.push(`  The server ${inputRequestLine(item)}`);
			for (const warning of item.warnings) lines.push(`  WARNING: ${inlineText(warning)}`);
		}
	}
	if (request.reviewUrl) lines.push('', `${request.calls.some((call) => call.input) ? 'Review and answer' : 'Review and decide'}: ${request.reviewUrl}`);
	lines.push(`Expires: ${inlineText(request.expiresAt)}`);
	return lines.join('\n');
}

/** Markdown for chat tools: names escaped outside fences, arguments in fences the content cannot close. */
function summaryMarkdown(request: RequestBody): string {
	const review = request.calls.filter((call) => call.needsReview !== false).length;
	const input = request.calls.filter((call) => call.input).length;
	const lines = [
		[review ? `**Approval needed:** ${callsPhrase(review)}` : '', input ? `**Input needed:** ${callsPhrase(input)} (answer on the review page; approving here does not answer it)` : '']
			.filter(Boolean)
			.join(' · '),
	];
	if (request.notice) lines.push(`_${inlineText(request.notice)}_`);
	for (const call of request.calls) {
		lines.push('', `• **${inlineText(call.tool)}** on **${inlineText(call.server)}** · code **${call.code}**`, argumentsBlock(call.arguments, 'json'));
		for (const warning of call.warnings) lines.push(`⚠️ ${inlineText(warning)}`);
		for (const item of call.input?.requests ?? []) {
			lines.push(`❓ The server ${inputRequestLine(item)}`);
			for (const warning of item.warnings) lines.push(`⚠️ ${inlineText(warning)}`);
		}
	}
	if (request.reviewUrl) lines.push('', `[${input ? 'Review and answer' : 'Review and decide'}](${linkTarget(request.reviewUrl)})`);
	lines.push(`_Expires ${inlineText(request.expiresAt)}_`);
	return lines.join('\n');
}

/**
 * Telegram's legacy Markdown (n8n's Telegram send-and-wait always sends with it; its Send Message
 * defaults to it): entities cannot hold escapes, so server text is never put inside one; outside
 * them `_ * \` [` are escaped (telegramText). The arguments' pre block holds no backtick, and the
 * review link's target no `)`.
 */
function summaryTelegram(request: RequestBody): string {
	const review = request.calls.filter((call) => call.needsReview !== false).length;
	const input = request.calls.filter((call) => call.input).length;
	const lines = [
		[review ? `*Approval needed:* ${callsPhrase(review)}` : '', input ? `*Input needed:* ${callsPhrase(input)} (answer on the review page; approving here does not answer it)` : '']
			.filter(Boolean)
			.join(' · '),
	];
	if (request.notice) lines.push(`Note: ${telegramText(request.notice)}`);
	for (const call of request.calls) {
		lines.push('', `• ${telegramText(call.tool)} on ${telegramText(call.server)} · code *${call.code}*`, argumentsBlock(call.arguments));
		for (const warning of call.warnings) lines.push(`⚠️ ${telegramText(warning)}`);
		for (const item of call.input?.requests ?? []) {
			lines.push(`❓ The server ${inputRequestLine(item, telegramText)}`);
			for (const warning of item.warnings) lines.push(`⚠️ ${telegramText(warning)}`);
		}
	}
	if (request.reviewUrl) lines.push('', `[${input ? 'Review and answer' : 'Review and decide'}](${linkTarget(request.reviewUrl)})`);
	lines.push(`Expires ${telegramText(request.expiresAt)}`);
	return lines.join('\n');
}

export function isApprovalRequest(value: unknown): value is ApprovalRequest {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === APPROVAL_REQUEST_KIND && typeof (value as { approvalId?: unknown }).approvalId === 'string');
}

export function isApprovalDecision(value: unknown): value is ApprovalDecisionItem {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === APPROVAL_DECISION_KIND && typeof (value as { approvalId?: unknown }).approvalId === 'string');
}
