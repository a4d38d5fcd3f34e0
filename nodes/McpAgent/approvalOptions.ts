/** The Agent's "Approval Options" parameter, as n8n returns it (every field optional). */
export interface ApprovalOptions {
	alwaysAsk?: string;
	neverAsk?: string;
	timeoutHours?: number;
	pinnedFingerprints?: unknown;
	onDrift?: 'block' | 'review';
	withholdFlagged?: boolean;
	rulesJson?: unknown;
}
