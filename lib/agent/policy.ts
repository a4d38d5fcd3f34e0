import { globToRegExp, type NamePattern } from '../tools/nameFilter';

/**
 * Which tool calls a person must approve. Serializable (it travels in the run state).
 *
 * A pattern is "tool" or "server/tool" ("server:tool" is the same), with * and ? wildcards on
 * both sides. "server" is the name of the MCP Server sub-node. An unqualified pattern matches that
 * tool name on every server: "read_*" in Never Ask For exempts read_file of one server and
 * read_and_wipe of another alike, so qualify patterns that exempt. Tool names cannot contain "/"
 * or ":" (the Agent refuses such names), so the last "/" or ":" splits the pattern and a
 * sub-node name may itself contain either. Matching is case-sensitive, like MCP names.
 */
export interface ApprovalPolicy {
	mode: 'all' | 'notReadOnly' | 'listed' | 'none';
	listed: string[];
	alwaysAsk: string[];
	neverAsk: string[];
	/** Rules on the call's arguments, judged before the lists and the mode (lib/agent/approvalRules.ts). */
	rules?: ApprovalRule[];
}

export type RuleEffect = 'run' | 'ask' | 'refuse';
export type ReviewerChoice = 'approve' | 'deny' | 'edit';

export const REVIEWER_CHOICES: readonly ReviewerChoice[] = ['approve', 'deny', 'edit'];

export interface ApprovalRule {
	/** Shown in the audit log and on the review page; "Rule N" when empty. */
	label?: string;
	/** `server/tool` patterns as in Require Approval For; empty matches no tool. */
	tools: string[];
	/** A JSON Schema the arguments must match for the rule to apply; absent: any arguments. */
	when?: Record<string, unknown>;
	effect: RuleEffect;
	/** For refuse: what the model is told (and the log says). */
	reason?: string;
	/** For ask: the decisions a reviewer may take; absent: all three. Deny is always offered. */
	decisions?: ReviewerChoice[];
}

export interface ReviewableTool {
	serverName: string;
	mcpName: string;
	annotations?: Record<string, unknown>;
	annotationsTrusted: boolean;
}

/** Splits a pattern into its server part (undefined: every server) and its tool part. */
export function parseToolPattern(pattern: string): { server?: string; tool: string } {
	const split = Math.max(pattern.lastIndexOf('/'), pattern.lastIndexOf(':'));
	if (split < 0) return { tool: pattern };
	const server = pattern.slice(0, split);
	// "/tool" with nothing before the separator means any server, as "tool" does.
	return server ? { server, tool: pattern.slice(split + 1) } : { tool: pattern.slice(split + 1) };
}

const compiled = new Map<string, { server?: NamePattern; tool: NamePattern }>();

function compile(pattern: string): { server?: NamePattern; tool: NamePattern } {
	let entry = compiled.get(pattern);
	if (!entry) {
		const { server, tool } = parseToolPattern(pattern);
		entry = { ...(server !== undefined ? { server: globToRegExp(server) } : {}), tool: globToRegExp(tool) };
		if (compiled.size > 1000) compiled.clear();
		compiled.set(pattern, entry);
	}
	return entry;
}

export function matchesToolPattern(pattern: string, tool: { serverName: string; mcpName: string }): boolean {
	const { server, tool: toolPattern } = compile(pattern);
	return (!server || server.test(tool.serverName)) && toolPattern.test(tool.mcpName);
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
