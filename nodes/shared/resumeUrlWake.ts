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

/**
 * Whether the paused execution behind this resume URL is gone for good: n8n answers 404 "does not
 * exist" for an execution deleted, and 409 "has finished" for one that finished or was stopped
 * ("has finished with error"). Anything else says no: 409 "is running already" (a run woken now),
 * MCP Approval's own 403 to a wake that is not this pause's (still waiting), an unknown answer.
 * The probe carries no secret and decides nothing: a wake field with no value.
 */
export function executionGoneAt(resumeUrl: string): () => Promise<boolean> {
	return async () => {
		const response = await fetch(resumeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [TASK_WAKE_FIELD]: null }), signal: AbortSignal.timeout(10_000) });
		const text = await response.text().catch(() => '');
		// Only n8n's own words count: a proxy's 404 (a wrong WEBHOOK_URL) must not cancel a task.
		if (response.status === 404) return /execution .* does not exist/i.test(text);
		return response.status === 409 && /has finished/i.test(text);
	};
}
