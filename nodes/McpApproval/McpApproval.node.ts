import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { isApprovalRequest, type ApprovalRequest } from '../../lib/approvals/approvalRequest';
import { renderMessagePage, renderReviewPage } from '../../lib/approvals/reviewPage';
import { parseReviewSubmission } from '../../lib/approvals/reviewSubmission';
import { verifyN8nSignIn } from '../../lib/approvals/n8nSignIn';

/**
 * Waits for a person's decision on the Agent's pending tool calls. While the execution waits, the
 * execution's resume URL serves the review page (GET never decides); a valid POST resumes the
 * execution with one decision item per paused run. If the wait limit passes first, n8n continues
 * without a decision and the Agent denies the calls as expired.
 */
export class McpApproval implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Approval',
		name: 'mcpApproval',
		icon: 'file:mcp.svg',
		group: ['transform'],
		version: 1,
		description: 'Pause until a person approves, denies or edits the MCP Agent\'s pending tool calls',
		defaults: { name: 'MCP Approval' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		outputNames: ['Decision'],
		webhooks: [
			{ name: 'default', httpMethod: 'GET', responseMode: 'onReceived', path: '', restartWebhook: true, isFullPath: true },
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: '', restartWebhook: true, isFullPath: true },
		],
		properties: [
			{
				displayName: 'Connect the "Needs Approval" output of an MCP Agent here, and this node\'s output back to the Agent\'s input. The review page is at the execution\'s resume URL (the reviewUrl field of each pending item).',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Require N8n Login',
				name: 'requireLogin',
				type: 'boolean',
				default: false,
				description: 'Whether the reviewer must sign in on the review page with their account on this n8n; that account is recorded as the reviewer',
			},
			{
				displayName: 'Pending Requests',
				name: 'pendingRequests',
				type: 'hidden',
				// The webhook sees the waiting node's input only through expressions.
				default: '={{ $input.all().map(item => item.json) }}',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const requests = items.map((item) => item.json);
		const invalid = requests.findIndex((request) => !isApprovalRequest(request));
		if (invalid !== -1) {
			throw new NodeOperationError(this.getNode(), 'This node expects the pending approvals from an MCP Agent\'s "Needs Approval" output', { itemIndex: invalid });
		}
		const earliest = Math.min(...(requests as unknown as ApprovalRequest[]).map((r) => Date.parse(r.expiresAt)));
		if (!Number.isFinite(earliest)) throw new NodeOperationError(this.getNode(), 'A pending approval has no valid expiry time');
		await this.putExecutionToWait(new Date(earliest));
		return [items];
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const res = this.getResponseObject();
		const raw = this.getNodeParameter('pendingRequests', []) as unknown;
		const requests = (Array.isArray(raw) ? raw : []).filter(isApprovalRequest);
		const wantsJson = /json/i.test(String(request.headers['content-type'] ?? '')) || /json/i.test(String(request.headers.accept ?? ''));
		const send = (status: number, html: string, json: unknown) => {
			res.status(status);
			res.setHeader('Cache-Control', 'no-store');
			res.setHeader('X-Frame-Options', 'DENY');
			res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
			if (wantsJson) res.json(json);
			else res.type('html').send(html);
		};

		if (requests.length === 0) {
			send(404, renderMessagePage('Nothing to review', 'There are no pending tool calls here.'), { error: 'nothing pending' });
			return { noWebhookResponse: true };
		}
		const requireSignIn = this.getNodeParameter('requireLogin', false) as boolean;
		if (request.method !== 'POST') {
			send(200, renderReviewPage(requests, { requireSignIn }), { pending: requests });
			return { noWebhookResponse: true };
		}
		const body = (this.getBodyData() ?? {}) as Record<string, unknown>;
		let reviewer: string | undefined;
		if (requireSignIn) {
			const signIn = await verifyN8nSignIn(body);
			if (!signIn.ok) {
				const previous = Object.fromEntries(Object.entries(body).filter(([k, v]) => typeof v === 'string' && k !== 'password')) as Record<string, string>;
				send(401, renderReviewPage(requests, { errors: [signIn.error ?? 'Sign-in failed.'], previous, requireSignIn }), { errors: [signIn.error] });
				return { noWebhookResponse: true };
			}
			reviewer = signIn.reviewer;
		}
		const result = parseReviewSubmission(body, requests, { now: new Date().toISOString(), reviewer });
		if (!result.ok) {
			send(400, renderReviewPage(requests, { errors: result.errors, previous: result.previous, requireSignIn }), { errors: result.errors });
			return { noWebhookResponse: true };
		}
		const count = result.decisions.reduce((n, d) => n + d.decisions.length, 0);
		send(200, renderMessagePage('Decision recorded', `${count} decision${count === 1 ? '' : 's'} recorded. The workflow continues; you can close this page.`), { recorded: count });
		return { noWebhookResponse: true, workflowData: [result.decisions.map((decision) => ({ json: decision as never }))] };
	}
}
