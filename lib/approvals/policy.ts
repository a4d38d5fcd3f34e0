import { globToRegExp } from '../tools/nameFilter';

/**
 * Which tool calls a person must approve. Serializable (it travels in the run state). A pattern
 * is "tool" or "server:tool" with * and ? wildcards.
 */
export interface ApprovalPolicy {
	mode: 'all' | 'notReadOnly' | 'listed' | 'none';
	listed: string[];
	alwaysAsk: string[];
	neverAsk: string[];
}

export interface ReviewableTool {
	serverName: string;
	mcpName: string;
	annotations?: Record<string, unknown>;
	annotationsTrusted: boolean;
}

export function matchesToolPattern(pattern: string, tool: { serverName: string; mcpName: string }): boolean {
	const colon = pattern.indexOf(':');
	if (colon > 0) {
		return globToRegExp(pattern.slice(0, colon)).test(tool.serverName) && globToRegExp(pattern.slice(colon + 1)).test(tool.mcpName);
	}
	return globToRegExp(pattern).test(tool.mcpName);
}

/**
 * Fail closed: "always ask" beats "never ask"; annotations count only when the server is trusted,
 * and an untrusted or missing readOnlyHint means the tool may change things.
 */
export function requiresApproval(policy: ApprovalPolicy, tool: ReviewableTool): boolean {
	const matchesAny = (patterns: string[]) => patterns.some((pattern) => matchesToolPattern(pattern, tool));
	if (matchesAny(policy.alwaysAsk)) return true;
	if (matchesAny(policy.neverAsk)) return false;
	switch (policy.mode) {
		case 'none':
			return false;
		case 'listed':
			return matchesAny(policy.listed);
		case 'notReadOnly':
			return !(tool.annotationsTrusted && tool.annotations?.readOnlyHint === true);
		default:
			return true;
	}
}

export const DEFAULT_POLICY: ApprovalPolicy = { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [] };
