import type { IExecuteFunctions } from 'n8n-workflow';
import type { AgentDrivers } from '../../lib/agent/runAgent';
import { n8nGrantStore } from '../shared/grantStore';
import { nodeOf } from '../shared/nodeOf';

/**
 * The Agent's standing approvals: this workflow's and this Agent node's grants, read fresh from
 * n8n's database before the run stops for a person. A workflow without an id (never saved) has
 * none. When the store cannot be read the calls are asked, and the log says why once per run.
 * `currentFingerprints` lists the servers again before a grant lets a call through (runAgent.ts).
 */
export function grantDriver(context: IExecuteFunctions, currentFingerprints?: NonNullable<AgentDrivers['grants']>['currentFingerprints']): AgentDrivers['grants'] {
	const workflowId = context.getWorkflow().id;
	const node = nodeOf(context);
	if (!workflowId || !node.id) return undefined;
	let warned = false;
	return {
		store: n8nGrantStore(),
		scope: { workflowId: String(workflowId), nodeId: node.id },
		...(currentFingerprints ? { currentFingerprints } : {}),
		onUnavailable(reason) {
			if (warned) return;
			warned = true;
			context.logger.warn(`MCP Agent "${node.name}": standing approvals could not be read (${reason}); the calls they might cover go to a person`);
		},
	};
}
