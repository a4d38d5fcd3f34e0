import type { INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { parseAllowedReviewers } from '../../lib/approvals/n8nSignIn';
import { handleStandingApprovalsPage } from '../../lib/approvals/standingApprovalsPage';
import { n8nGrantStore } from '../shared/grantStore';

/**
 * A page listing the standing approvals of this workflow's MCP Agents, where a person signed in to
 * n8n revokes them, also while nothing waits for review. Placed in the Agent's workflow, it serves
 * its production webhook URL (GET: the sign-in form, POST: sign in, list, revoke) and never starts
 * an execution: webhook() answers the request itself and returns no workflow data, which n8n (1.x
 * and 2.x) takes as "answered, nothing to run". All the logic is in
 * lib/approvals/standingApprovalsPage.ts.
 */
export class McpStandingApprovals implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Standing Approvals',
		name: 'mcpStandingApprovals',
		icon: { light: 'file:mcpStandingApprovals.svg', dark: 'file:mcpStandingApprovals.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ "Page for this workflow\'s standing approvals" }}',
		description: "A page, behind n8n sign-in, listing the standing approvals of this workflow's MCP Agents, where a person revokes them",
		defaults: { name: 'MCP Standing Approvals' },
		inputs: [],
		// Never starts an execution: nothing comes out.
		outputs: [],
		// Not a tool: a page for people.
		usableAsTool: undefined,
		webhooks: [
			{ name: 'default', httpMethod: 'GET', responseMode: 'onReceived', path: 'standing-approvals' },
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'standing-approvals' },
		],
		properties: [
			{
				displayName:
					"Publish (activate) this workflow, then open this node's Production URL in a browser and sign in with your n8n account: it lists every standing approval of the MCP Agents in this workflow (who granted it, when, until when, how often it was used) and revokes them. Only accounts that may run or edit this workflow can see it. The page never starts an execution.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Allowed Accounts',
				name: 'allowedReviewers',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				placeholder: 'ana@example.com, ops-lead@example.com',
				description:
					'E-mails of the n8n accounts that may see and revoke standing approvals here (comma or newline separated, any letter case). Empty: any account that may run or edit this workflow.',
			},
		],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const res = this.getResponseObject();
		const answer = await handleStandingApprovalsPage({
			method: request.method,
			headers: request.headers,
			body: request.method === 'POST' ? this.getBodyData() : undefined,
			workflowId: this.getWorkflow().id,
			allowedReviewers: parseAllowedReviewers(this.getNodeParameter('allowedReviewers', '')),
			grantStore: n8nGrantStore(),
		});
		res.status(answer.status);
		for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
		res.type('html').send(answer.html);
		// No workflowData: n8n answers nothing more and starts no execution.
		return { noWebhookResponse: true };
	}
}
