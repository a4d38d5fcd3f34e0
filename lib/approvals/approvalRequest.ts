import type { AgentState, OpenApproval, PlannedCall } from '../agent/types';
import { recentToolResults } from './recentResults';
import { codeFence, inlineText, linkTarget, visibleJson } from './summaryFormat';

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
}

/** A tool result the model saw since the last user turn: where injected instructions usually come from. */
export interface ContextToolResult {
	callId: string;
	server: string;
	tool: string;
	isError: boolean;
	/** The result text as the model saw it (already capped by the run's limits). */
	text: string;
	/** Poisoning warnings from scanning the text, as for tool descriptions. */
	warnings: string[];
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
	/** SHA-256 (hex) of this approval's own review secret, which reviewUrl carries; MCP Approval checks it. */
	reviewTokenHash?: string;
	calls: PendingCallView[];
	summaryText: string;
	summaryMarkdown: string;
}

export interface ApprovalDecisionItem {
	kind: typeof APPROVAL_DECISION_KIND;
	approvalId: string;
	reviewer?: string;
	decidedAt: string;
	decisions: Array<{ callId: string; argsHash: string; decision: 'approve' | 'deny' | 'edit'; reason?: string; arguments?: unknown }>;
}

/**
 * A call's short code: the first 8 hex digits of its argument hash. Channel messages show it next to
 * the full arguments; a channel answer that names codes must name exactly the pending ones.
 */
export function callCode(argsHash: string): string {
	return argsHash.replace(/^sha256:/, '').slice(0, 8);
}

export interface RequestExtras {
	reviewUrl?: string;
	/** Hash of the approval's review secret (the secret itself travels only inside reviewUrl). */
	reviewTokenHash?: string;
	/** Why the request is handed out again while its calls stay pending. */
	notice?: string;
}

export function buildApprovalRequest(state: AgentState, approval: OpenApproval, calls: PlannedCall[], extras: RequestExtras | string = {}): ApprovalRequest {
	const { reviewUrl, reviewTokenHash, notice } = typeof extras === 'string' ? { reviewUrl: extras } : extras;
	const phase = state.phase.name === 'run_tools' ? state.phase : undefined;
	const views: PendingCallView[] = calls.map((call) => {
		const tool = state.tools.find((t) => t.serverId === call.tool?.serverId && t.mcpName === call.tool?.mcpName);
		const argsHash = call.review?.argsHash ?? '';
		return {
			callId: call.id,
			argsHash,
			code: callCode(argsHash),
			server: call.tool?.serverName ?? '',
			tool: call.tool?.mcpName ?? call.providerName,
			...(tool?.title ? { title: tool.title } : {}),
			...(tool?.description ? { description: tool.description } : {}),
			...(tool?.annotations ? { annotations: tool.annotations } : {}),
			annotationsTrusted: tool?.annotationsTrusted ?? false,
			arguments: call.arguments,
			inputSchema: tool?.inputSchema ?? { type: 'object' },
			fingerprint: call.tool?.fingerprint ?? '',
			warnings: call.review?.warnings ?? [],
		};
	});
	const recent = recentToolResults(state);
	const request: Omit<ApprovalRequest, 'summaryText' | 'summaryMarkdown'> = {
		kind: APPROVAL_REQUEST_KIND,
		approvalId: approval.id,
		requestedAt: approval.requestedAt,
		expiresAt: approval.expiresAt,
		...(reviewUrl ? { reviewUrl } : {}),
		...(reviewTokenHash ? { reviewTokenHash } : {}),
		...(notice ? { notice } : {}),
		assistantText: phase?.assistantText ?? '',
		...(state.userMessage !== undefined ? { userMessage: state.userMessage } : {}),
		recentResults: recent.results,
		...(recent.omitted > 0 ? { omittedResults: recent.omitted } : {}),
		calls: views,
	};
	return { ...request, summaryText: summaryText(request), summaryMarkdown: summaryMarkdown(request) };
}

type RequestBody = Omit<ApprovalRequest, 'summaryText' | 'summaryMarkdown'>;

const callsPhrase = (count: number) => `${count} tool call${count === 1 ? '' : 's'}`;

/**
 * Plain text for e-mail and chat. Names and warnings are made inert (one line, no link); the full
 * arguments of each call are shown with its code, so what a person approves in the channel is what
 * they read, and the code can be compared with the review page.
 */
function summaryText(request: RequestBody): string {
	const count = request.calls.length;
	const lines = [`An AI agent asks to run ${callsPhrase(count)} that need${count === 1 ? 's' : ''} your approval.`];
	if (request.notice) lines.push(`Note: ${inlineText(request.notice)}`);
	for (const call of request.calls) {
		lines.push('', `- ${inlineText(call.tool)} on ${inlineText(call.server)} (code ${call.code})`, '  Arguments:', codeFence(visibleJson(call.arguments)));
		for (const warning of call.warnings) lines.push(`  WARNING: ${inlineText(warning)}`);
	}
	if (request.reviewUrl) lines.push('', `Review and decide: ${request.reviewUrl}`);
	lines.push(`Expires: ${inlineText(request.expiresAt)}`);
	return lines.join('\n');
}

/** Markdown for chat tools: names escaped outside fences, arguments in fences the content cannot close. */
function summaryMarkdown(request: RequestBody): string {
	const lines = [`**Approval needed:** ${callsPhrase(request.calls.length)}`];
	if (request.notice) lines.push(`_${inlineText(request.notice)}_`);
	for (const call of request.calls) {
		lines.push('', `• **${inlineText(call.tool)}** on **${inlineText(call.server)}** · code **${call.code}**`, codeFence(visibleJson(call.arguments), 'json'));
		for (const warning of call.warnings) lines.push(`⚠️ ${inlineText(warning)}`);
	}
	if (request.reviewUrl) lines.push('', `[Review and decide](${linkTarget(request.reviewUrl)})`);
	lines.push(`_Expires ${inlineText(request.expiresAt)}_`);
	return lines.join('\n');
}

export function isApprovalRequest(value: unknown): value is ApprovalRequest {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === APPROVAL_REQUEST_KIND && typeof (value as { approvalId?: unknown }).approvalId === 'string');
}

export function isApprovalDecision(value: unknown): value is ApprovalDecisionItem {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === APPROVAL_DECISION_KIND && typeof (value as { approvalId?: unknown }).approvalId === 'string');
}
