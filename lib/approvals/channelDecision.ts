/**
 * Decisions from n8n's own channels: send-and-wait nodes (Slack, Gmail, Telegram, Form...) output
 * { data: { approved } }; a Wait node "on webhook call" outputs the request as { body, query }.
 * They approve or deny every pending call of one approval at once.
 */
export interface ChannelDecision {
	approved: boolean;
	reason?: string;
	approvalId?: string;
	reviewer?: string;
}

function asBoolean(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	return undefined;
}

export function readChannelDecision(json: Record<string, unknown>): ChannelDecision | undefined {
	const candidates = [json.data, json.body, json.query, json].filter((c): c is Record<string, unknown> => Boolean(c) && typeof c === 'object');
	for (const candidate of candidates) {
		const approved = asBoolean(candidate.approved);
		if (approved === undefined) continue;
		const text = (key: string) => (typeof candidate[key] === 'string' && (candidate[key] as string).trim() ? (candidate[key] as string).trim() : typeof json[key] === 'string' ? (json[key] as string) : undefined);
		const approvalId = text('approvalId');
		const reason = text('reason');
		const reviewer = text('reviewer');
		return { approved, ...(approvalId ? { approvalId } : {}), ...(reason ? { reason } : {}), ...(reviewer ? { reviewer } : {}) };
	}
	return undefined;
}
