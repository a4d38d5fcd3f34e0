import type { RequestOrigin } from './approvalRequest';

/**
 * Where a paused run comes from, for the reviewer: the workflow's and the Agent node's names and
 * what started the execution, in words. n8n's execution modes name the kind of start, not the
 * person (n8n does not tell a node who started it).
 */
const TRIGGERS: Record<string, string> = {
	manual: 'a manual run in the n8n editor',
	webhook: 'a webhook call',
	trigger: 'a trigger (a schedule or an app event)',
	chat: 'a chat message',
	retry: 'a retry of an earlier execution',
	integrated: 'another workflow',
	cli: 'the n8n command line',
	evaluation: 'an evaluation run',
};

export function triggerDescription(mode: string | undefined): string | undefined {
	if (!mode) return undefined;
	return TRIGGERS[mode] ?? `n8n execution mode "${mode}"`;
}

export function requestOrigin(workflow: string | undefined, node: string | undefined, mode: string | undefined): RequestOrigin {
	const trigger = triggerDescription(mode);
	return { ...(workflow ? { workflow } : {}), ...(node ? { node } : {}), ...(trigger ? { trigger } : {}) };
}
