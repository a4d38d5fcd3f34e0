import { McpAgentError } from '../errors';
import { compileArgumentValidator, SchemaCompileError } from '../tools/argumentValidator';
import { ARGUMENT_LIMITS, exceededLimit } from '../tools/schemaLimits';
import { matchesToolPattern, requiresApproval, REVIEWER_CHOICES, type ApprovalPolicy, type ApprovalRule, type ReviewableTool, type ReviewerChoice, type RuleEffect } from './policy';

/**
 * Approval rules: which calls run without review, which ask a person, which are refused, decided
 * on the call's arguments as well as the tool. A condition is a JSON Schema over the arguments,
 * checked by the package's own validator (RE2 patterns, size limits), because the arguments are
 * model-produced and may be hostile.
 *
 * Precedence, not order, decides the effect (as in Claude Code's permission rules): a matching
 * refuse rule wins over an ask rule, an ask rule over a run rule; order only picks which rule of
 * the winning effect is named. Always Ask For sits between ask and run rules; with no rule
 * matching, the node's Require Approval For policy decides, as before rules existed.
 */
/** Which rule decided: its 1-based position and its label. */
export interface RuleRef {
	rule: number;
	label: string;
}

export type CallVerdict =
	| { effect: 'run'; by: RuleRef | 'policy' }
	| { effect: 'ask'; by: RuleRef | 'policy'; decisions: ReviewerChoice[] }
	| { effect: 'refuse'; by: RuleRef; reason: string };

const EFFECTS: readonly RuleEffect[] = ['run', 'ask', 'refuse'];
/** Strongest first: the first effect with a matching rule decides. */
const PRECEDENCE: readonly RuleEffect[] = ['refuse', 'ask', 'run'];

/** A rule that cannot be used, named by its label and position: the node fails before any model call. */
export class RuleError extends McpAgentError {
	constructor(message: string) {
		super(message, { code: 'config', description: 'Fix the rule under Approval Rules (or in Approval Rules (JSON)) in the MCP Agent node. Rules are judged on model-produced arguments, so a rule that cannot be checked is never skipped.' });
		this.name = 'RuleError';
	}
}

export function ruleLabel(rule: ApprovalRule, index: number): string {
	return rule.label?.trim() || `Rule ${index + 1}`;
}

/**
 * Checks every rule and compiles its condition, so a rule that cannot be used fails the node
 * before any model call. Throws RuleError naming the rule and what is wrong.
 */
export function checkRules(rules: readonly ApprovalRule[]): void {
	rules.forEach((rule, index) => {
		const name = `${ruleLabel(rule, index)} (approval rule ${index + 1})`;
		if (!EFFECTS.includes(rule.effect)) throw new RuleError(`${name}: unknown effect "${String(rule.effect)}"; use run, ask or refuse`);
		if (!Array.isArray(rule.tools) || rule.tools.length === 0 || rule.tools.some((p) => typeof p !== 'string' || !p.trim())) {
			throw new RuleError(`${name}: Tools is empty; name the tools it applies to, e.g. "payments/send_money" or "*"`);
		}
		if (rule.decisions !== undefined) {
			const unknown = rule.decisions.filter((d) => !REVIEWER_CHOICES.includes(d));
			if (unknown.length) throw new RuleError(`${name}: unknown reviewer decision ${JSON.stringify(unknown[0])}; use approve, deny or edit`);
			if (!rule.decisions.includes('approve') && !rule.decisions.includes('edit') && rule.effect === 'ask') {
				throw new RuleError(`${name}: a reviewer must be able to approve or edit; to refuse every call, make it a refuse rule`);
			}
		}
		if (rule.when !== undefined) {
			if (!rule.when || typeof rule.when !== 'object' || Array.isArray(rule.when)) throw new RuleError(`${name}: its condition must be a JSON Schema object`);
			try {
				compileArgumentValidator(rule.when);
			} catch (error) {
				const reason = error instanceof SchemaCompileError ? error.message.replace("the tool's inputSchema", 'the condition') : (error as Error).message;
				throw new RuleError(`${name}: ${reason}`);
			}
		}
	});
}

/**
 * Whether the rule's condition holds. A condition that cannot be evaluated (arguments beyond the
 * limits, a validation that never ends) counts as holding for refuse and ask rules and as not
 * holding for run rules: a doubt never lets a call through.
 */
function conditionHolds(rule: ApprovalRule, args: unknown, oversized: boolean): boolean {
	if (rule.when === undefined) return true;
	const failClosed = rule.effect !== 'run';
	if (oversized) return failClosed;
	try {
		return compileArgumentValidator(rule.when)(args) === true;
	} catch {
		return failClosed;
	}
}

function firstMatching(rules: readonly ApprovalRule[], effect: RuleEffect, tool: ReviewableTool, args: unknown, oversized: boolean): number {
	return rules.findIndex((rule) => rule.effect === effect && rule.tools.some((pattern) => matchesToolPattern(pattern, tool)) && conditionHolds(rule, args, oversized));
}

/** Decides one call: the strongest matching rule, else the node's policy. */
export function judgeCall(policy: ApprovalPolicy, tool: ReviewableTool, args: unknown): CallVerdict {
	const rules = policy.rules ?? [];
	const asked: CallVerdict = { effect: 'ask', by: 'policy', decisions: [...REVIEWER_CHOICES] };
	// Measured once per call, not once per rule: arguments may be a megabyte deep.
	const oversized = rules.some((rule) => rule.when !== undefined) && exceededLimit(args, ARGUMENT_LIMITS) !== undefined;
	for (const effect of PRECEDENCE) {
		// Always Ask For is an ask list: it wins over run rules, as ask rules do.
		if (effect === 'run' && policy.alwaysAsk.some((pattern) => matchesToolPattern(pattern, tool))) return asked;
		const index = firstMatching(rules, effect, tool, args, oversized);
		if (index < 0) continue;
		const rule = rules[index];
		const by = { rule: index + 1, label: ruleLabel(rule, index) };
		if (effect === 'refuse') return { effect, by, reason: rule.reason?.trim() || `refused by the approval rule "${by.label}"` };
		// Deny is always offered: saying no is never the risk.
		if (effect === 'ask') return { effect, by, decisions: REVIEWER_CHOICES.filter((choice) => choice === 'deny' || (rule.decisions ?? REVIEWER_CHOICES).includes(choice)) };
		return { effect, by };
	}
	return requiresApproval(policy, tool) ? asked : { effect: 'run', by: 'policy' };
}

/** What the model is told about a refused call (the tool was not called). */
export function refusalText(verdict: Extract<CallVerdict, { effect: 'refuse' }>): string {
	return `${verdict.reason} (The tool was not called: the approval rule "${verdict.by.label}" refuses this call.)`;
}

/**
 * Whether an approval rule refuses every call of the tool, whatever its arguments (a refuse rule
 * with no condition): such a tool is never offered by tool search, since no call of it can run.
 */
export function refusesEveryCall(policy: ApprovalPolicy | undefined, tool: ReviewableTool): boolean {
	return (policy?.rules ?? []).some((rule) => rule.effect === 'refuse' && rule.when === undefined && rule.tools.some((pattern) => matchesToolPattern(pattern, tool)));
}
