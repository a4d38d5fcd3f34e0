import type { AgentState, OpenApproval, PlannedCall } from '../agent/types';

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
	/** Tool results since the last user turn, scanned and flagged. */
	recentResults?: ContextToolResult[];
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

export function buildApprovalRequest(state: AgentState, approval: OpenApproval, calls: PlannedCall[], reviewUrl?: string): ApprovalRequest {
	const phase = state.phase.name === 'run_tools' ? state.phase : undefined;
	const views: PendingCallView[] = calls.map((call) => {
		const tool = state.tools.find((t) => t.serverId === call.tool?.serverId && t.mcpName === call.tool?.mcpName);
		return {
			callId: call.id,
			argsHash: call.review?.argsHash ?? '',
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
	const request: Omit<ApprovalRequest, 'summaryText' | 'summaryMarkdown'> = {
		kind: APPROVAL_REQUEST_KIND,
		approvalId: approval.id,
		requestedAt: approval.requestedAt,
		expiresAt: approval.expiresAt,
		...(reviewUrl ? { reviewUrl } : {}),
		assistantText: phase?.assistantText ?? '',
		calls: views,
	};
	return { ...request, summaryText: summaryText(request), summaryMarkdown: summaryMarkdown(request) };
}

function argsPreview(args: unknown, max = 500): string {
	const json = JSON.stringify(args, null, 2) ?? '{}';
	return json.length > max ? `${json.slice(0, max)}…` : json;
}

function summaryText(request: Omit<ApprovalRequest, 'summaryText' | 'summaryMarkdown'>): string {
	const lines = [`An AI agent asks to run ${request.calls.length} tool call${request.calls.length > 1 ? 's' : ''} that need${request.calls.length > 1 ? '' : 's'} your approval.`];
	for (const call of request.calls) {
		lines.push('', `- ${call.tool} on ${call.server}`, `  Arguments: ${argsPreview(call.arguments).replace(/\n/g, '\n  ')}`);
		for (const warning of call.warnings) lines.push(`  WARNING: ${warning}`);
	}
	if (request.reviewUrl) lines.push('', `Review and decide: ${request.reviewUrl}`);
	lines.push(`Expires: ${request.expiresAt}`);
	return lines.join('\n');
}

/** Markdown for chat tools; backticks in values cannot break out of the code spans. */
function summaryMarkdown(request: Omit<ApprovalRequest, 'summaryText' | 'summaryMarkdown'>): string {
	const fence = (text: string) => text.replace(/`/g, 'ˋ');
	const lines = [`**Approval needed:** ${request.calls.length} tool call${request.calls.length > 1 ? 's' : ''}`];
	for (const call of request.calls) {
		lines.push('', `• \`${fence(call.tool)}\` on \`${fence(call.server)}\``, '```', fence(argsPreview(call.arguments)), '```');
		for (const warning of call.warnings) lines.push(`⚠️ ${fence(warning)}`);
	}
	if (request.reviewUrl) lines.push('', `[Review and decide](${request.reviewUrl})`);
	lines.push(`_Expires ${request.expiresAt}_`);
	return lines.join('\n');
}

export function isApprovalRequest(value: unknown): value is ApprovalRequest {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === APPROVAL_REQUEST_KIND && typeof (value as { approvalId?: unknown }).approvalId === 'string');
}

export function isApprovalDecision(value: unknown): value is ApprovalDecisionItem {
	return Boolean(value && typeof value === 'object' && (value as { kind?: unknown }).kind === APPROVAL_DECISION_KIND && typeof (value as { approvalId?: unknown }).approvalId === 'string');
}
