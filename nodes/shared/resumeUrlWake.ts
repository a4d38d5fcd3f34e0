import { TASK_WAKE_FIELD } from '../../lib/approvals/taskWait';

/**
 * The task wake of a paused execution (lib/agent/taskWatch.ts): a POST of the pause's wake secret
 * to the execution's resume URL, where MCP Approval waits. True once n8n accepted it or refused it
 * for good (then no retry).
 */
export function wakeAtResumeUrl(resumeUrl: string, secret: string): () => Promise<boolean> {
	return async () => {
		const response = await fetch(resumeUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ [TASK_WAKE_FIELD]: secret }),
			signal: AbortSignal.timeout(10_000),
		});
		await response.arrayBuffer().catch(() => undefined);
		// 403: the execution waits for a later pause now (another wake); anything else but OK: not waiting yet, try again.
		return response.ok || response.status === 403;
	};
}
