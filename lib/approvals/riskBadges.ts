import type { PendingCallView } from './approvalRequest';
import { hasHiddenCharacters } from './html';

/**
 * What a reviewer should notice about a call before reading its arguments, as badges on its card.
 * Annotations count only when the server's credential trusts them: an untrusted server saying
 * `readOnlyHint: true` is no reason to relax, so such a call is still "may change or delete".
 * MCP's default for a tool that is not read-only is destructive.
 */
export type RiskLevel = 'high' | 'medium' | 'low' | 'info';

export interface RiskBadge {
	kind: 'flagged' | 'changed' | 'destructive' | 'not-trusted' | 'read-only' | 'n8n-tool';
	level: RiskLevel;
	label: string;
	/** One sentence for the badge's title and the screen reader. */
	explanation: string;
}

const PIN_WARNING = /^Not pinned:|definition changed since/;

export function riskBadges(call: PendingCallView): RiskBadge[] {
	const badges: RiskBadge[] = [];
	const warnings = Array.isArray(call.warnings) ? call.warnings.map(String) : [];
	const texts = [call.tool, call.server, call.title ?? '', call.description ?? '', JSON.stringify(call.arguments) ?? ''];
	if (warnings.some((w) => !PIN_WARNING.test(w)) || texts.some((t) => hasHiddenCharacters(String(t)))) {
		badges.push({ kind: 'flagged', level: 'high', label: 'Flagged', explanation: 'The scan found something suspicious in this tool or its arguments: read the warnings.' });
	}
	if (warnings.some((w) => PIN_WARNING.test(w))) {
		badges.push({ kind: 'changed', level: 'high', label: 'Changed since pinned', explanation: 'This tool\'s definition is not the one that was pinned (new or changed).' });
	}
	const annotations = call.annotations && typeof call.annotations === 'object' ? call.annotations : {};
	const trusted = call.annotationsTrusted === true;
	const readOnly = trusted && annotations.readOnlyHint === true;
	if (readOnly) {
		badges.push({ kind: 'read-only', level: 'low', label: 'Read-only (trusted)', explanation: 'A trusted server marks this tool as read-only.' });
	} else if (!(trusted && annotations.destructiveHint === false)) {
		badges.push({ kind: 'destructive', level: 'medium', label: 'May change or delete', explanation: trusted ? 'The server marks this tool as destructive.' : 'Nothing trusted says this tool is harmless, so treat it as able to change or delete data.' });
	}
	if (call.source === 'n8n') {
		badges.push({ kind: 'n8n-tool', level: 'info', label: 'n8n tool, no annotations', explanation: 'An n8n tool node of this workflow: it has no MCP annotations, so nothing says it only reads.' });
	} else if (!trusted) {
		badges.push({ kind: 'not-trusted', level: 'info', label: 'Not trusted', explanation: 'This server\'s annotations are not trusted (its credential does not trust them).' });
	}
	return badges;
}

/** The card's overall level: the highest of its badges. */
export function riskLevel(badges: RiskBadge[]): Exclude<RiskLevel, 'info'> {
	if (badges.some((b) => b.level === 'high')) return 'high';
	if (badges.some((b) => b.level === 'medium')) return 'medium';
	return 'low';
}
