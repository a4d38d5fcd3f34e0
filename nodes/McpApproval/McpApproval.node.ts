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
import { parseAllowedReviewers } from '../../lib/approvals/n8nSignIn';
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import { recentDecisions } from '../../lib/approvals/recentDecisions';
import { n8nGrantStore } from '../shared/grantStore';

/**
 * Waits for a person's decision on the Agent's pending tool calls (and their answers to input a
 * tool server asked for during a call: a form generated from the request's schema, or its link). While the execution waits, the
 * execution's resume URL serves the review page to holders of an approval's secret (GET never
 * decides); a valid POST resumes the execution with one decision item per decided approval. If the
 * wait limit passes first, n8n continues without a decision and the Agent denies the calls as
 * expired. A run waiting for MCP tasks wakes at their next check (the request's wakeAt), or at
 * once on a task wake from the process that paused it (lib/agent/taskWatch.ts). All the webhook's
 * logic is in lib/approvals/reviewWebhook.ts.
 */
export class McpApproval implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Approval',
		name: 'mcpApproval',
		icon: { light: 'file:mcpApproval.svg', dark: 'file:mcpApproval.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["requireLogin"] ? "Reviewers sign in to n8n" : "Anyone with the review link" }}',
		description: 'Pause until a person approves, denies or edits the MCP Agent\'s pending tool calls, or answers a tool server\'s request for input, or until the Agent\'s long-running MCP tasks end',
		defaults: { name: 'MCP Approval' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		outputNames: ['Decision'],
		// Not a tool: it waits for a person on n8n's waiting webhook, which a tool call cannot do.
		usableAsTool: undefined,
		webhooks: [
			{ name: 'default', httpMethod: 'GET', responseMode: 'onReceived', path: '', restartWebhook: true, isFullPath: true },
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: '', restartWebhook: true, isFullPath: true },
		],
		properties: [
			{
				displayName: 'Connect the "Needs Approval" output of an MCP Agent here, and this node\'s output back to the Agent\'s input. The review page is at the reviewUrl field of each pending item: the execution\'s resume URL with that approval\'s own secret, so send it only to reviewers.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Require N8n Login',
				name: 'requireLogin',
				type: 'boolean',
				default: false,
				description: 'Whether the reviewer must sign in on the review page with their account on this n8n; only accounts that may run or edit this workflow can decide, and the account is recorded as the reviewer',
			},
			{
				displayName: 'Allowed Reviewers',
				name: 'allowedReviewers',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				placeholder: 'ana@example.com, ops-lead@example.com',
				description: 'E-mails of the n8n accounts that may decide (comma or newline separated, any letter case). Empty: any account that may run or edit this workflow.',
				displayOptions: { show: { requireLogin: [true] } },
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
		// A run that waits for MCP tasks wakes when they are due for a check (n8n then passes the
		// items back to the Agent, which checks them and pauses again while they run).
		const wakes = (requests as unknown as ApprovalRequest[]).map((r) => (typeof r.wakeAt === 'string' ? Date.parse(r.wakeAt) : NaN)).filter(Number.isFinite);
		await this.putExecutionToWait(new Date(Math.min(earliest, ...wakes)));
		return [items];
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const res = this.getResponseObject();
		const requireSignIn = this.getNodeParameter('requireLogin', false) as boolean;
		const answer = await handleReviewWebhook({
			method: request.method,
			headers: request.headers,
			query: request.query,
			body: request.method === 'POST' ? this.getBodyData() : undefined,
			pending: this.getNodeParameter('pendingRequests', []),
			requireSignIn,
			allowedReviewers: requireSignIn ? parseAllowedReviewers(this.getNodeParameter('allowedReviewers', '')) : [],
			workflowId: this.getWorkflow().id,
			recentDecisions,
			grantStore: n8nGrantStore(),
		});
		res.status(answer.status);
		for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
		if (answer.asJson) res.json(answer.json);
		else res.type('html').send(answer.html);
		if (answer.wake) return { noWebhookResponse: true, workflowData: [answer.wake.map((json) => ({ json: json as never }))] };
		if (!answer.decisions) return { noWebhookResponse: true };
		const resumeWith = [...answer.decisions, ...(answer.undecided ?? [])];
		return { noWebhookResponse: true, workflowData: [resumeWith.map((json) => ({ json: json as never }))] };
	}
}
