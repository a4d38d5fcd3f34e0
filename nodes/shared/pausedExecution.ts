import type { IExecuteFunctions } from 'n8n-workflow';
import { watchTasks, type WatchedTask } from '../../lib/agent/taskWatch';
import { requestOrigin } from '../../lib/approvals/requestOrigin';
import type { RequestOrigin } from '../../lib/approvals/approvalRequest';
import { sharedPool } from '../../lib/mcp/pool/sharedPool';
import { nodeOf } from './nodeOf';
import { executionGoneAt, wakeAtResumeUrl } from './resumeUrlWake';

/**
 * What the MCP Agent and MCP Call Tool read of the execution they pause, and the follow-up of the
 * tasks they pause for: one place for both nodes.
 */

/** n8n's id of this execution (absent on hosts and test doubles without the lookup). */
export function executionIdOf(context: IExecuteFunctions): string | undefined {
	return typeof context.getExecutionId === 'function' ? context.getExecutionId() : undefined;
}

/** The execution's resume URL, where MCP Approval waits (n8n 2.x signs it). */
export function resumeUrlOf(context: IExecuteFunctions, itemIndex: number): string | undefined {
	return String(context.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '') || undefined;
}

/** Where a request for a person (or a task wait) comes from: workflow, node (its id too) and trigger. */
export function requestOriginOf(context: IExecuteFunctions): RequestOrigin {
	const node = nodeOf(context);
	return { ...requestOrigin(context.getWorkflow().name, node.name, context.getMode()), ...(node.id ? { nodeId: node.id } : {}) };
}

/**
 * The paused tasks followed on in this process (lib/agent/taskWatch.ts): the execution is woken
 * with the pause's secret as soon as one ends, and a task whose execution was stopped meanwhile is
 * cancelled on the server (n8n runs no node code on that Stop). The wait timer and the check stand
 * in when this process is gone or cannot reach the resume URL.
 */
export function followPausedTasks(executionId: string, pause: { resumeUrl: string; secret: string }, tasks: WatchedTask[], timeoutMs: number): void {
	watchTasks({
		executionId,
		tasks,
		pool: sharedPool(),
		timeoutMs,
		wake: wakeAtResumeUrl(pause.resumeUrl, pause.secret),
		gone: executionGoneAt(pause.resumeUrl),
	});
}
