import { parseJsonParameter } from '../util/jsonParameter';
import { parsePatternList } from '../tools/nameFilter';
import { checkRules, RuleError } from './approvalRules';
import { REVIEWER_CHOICES, type ApprovalRule, type ReviewerChoice, type RuleEffect } from './policy';

/** One entry of the node's Approval Rules list, as n8n hands it over. */
export interface RawRuleEntry {
	label?: string;
	tools?: string;
	effect?: string;
	condition?: unknown;
	reason?: string;
	decisions?: string[];
}

/**
 * The Agent's rules from its two parameters: the list a builder fills in, then the JSON form (for
 * many rules, or rules kept in a file), in that order. Everything is checked here, so a rule that
 * cannot be used fails the node before any model call.
 */
export function readApprovalRules(entries: RawRuleEntry[] | undefined, json: unknown): ApprovalRule[] {
	const listed = (entries ?? []).map((entry, index) => fromEntry(entry, index));
	const rules = [...listed, ...fromJson(json, listed.length)];
	checkRules(rules);
	return rules;
}

function fromEntry(entry: RawRuleEntry, index: number): ApprovalRule {
	const name = `${entry.label?.trim() || `Rule ${index + 1}`} (approval rule ${index + 1})`;
	let when: unknown;
	try {
		when = parseJsonParameter(entry.condition, 'Condition');
	} catch (error) {
		throw new RuleError(`${name}: ${(error as Error).message}`);
	}
	return ruleOf({ label: entry.label, tools: parsePatternList(entry.tools), effect: entry.effect, when, reason: entry.reason, decisions: entry.decisions }, name);
}

function fromJson(json: unknown, offset: number): ApprovalRule[] {
	let parsed: unknown;
	try {
		parsed = parseJsonParameter(json, 'Approval Rules (JSON)');
	} catch (error) {
		throw new RuleError((error as Error).message);
	}
	if (parsed === undefined) return [];
	if (!Array.isArray(parsed)) throw new RuleError('Approval Rules (JSON) must be an array of rules, e.g. [{"tools": "payments/send_money", "effect": "ask"}]');
	return parsed.map((raw, index) => {
		const name = `approval rule ${offset + index + 1} (Approval Rules (JSON) entry ${index + 1})`;
		if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new RuleError(`${name} must be an object with tools and effect`);
		const rule = raw as Record<string, unknown>;
		const known = new Set(['label', 'tools', 'when', 'effect', 'reason', 'decisions']);
		const unknownKey = Object.keys(rule).find((key) => !known.has(key));
		// A misspelt "when" would silently widen the rule: refuse keys we do not read.
		if (unknownKey !== undefined) throw new RuleError(`${name}: unknown key "${unknownKey}"; a rule has label, tools, when, effect, reason and decisions`);
		const tools = typeof rule.tools === 'string' ? parsePatternList(rule.tools) : rule.tools;
		return ruleOf({ ...rule, tools }, name);
	});
}

/** Shapes one rule; the deeper checks (effects, conditions) are checkRules'. */
function ruleOf(raw: Record<string, unknown>, name: string): ApprovalRule {
	const text = (value: unknown, field: string): string | undefined => {
		if (value === undefined || value === null || value === '') return undefined;
		if (typeof value !== 'string') throw new RuleError(`${name}: ${field} must be text`);
		return value;
	};
	if (!Array.isArray(raw.tools) || raw.tools.some((pattern) => typeof pattern !== 'string')) throw new RuleError(`${name}: tools must be a list of "server/tool" patterns`);
	const effect = text(raw.effect, 'effect') ?? '';
	const decisions = raw.decisions;
	if (decisions !== undefined && (!Array.isArray(decisions) || decisions.some((d) => typeof d !== 'string'))) {
		throw new RuleError(`${name}: decisions must be a list of ${REVIEWER_CHOICES.join(', ')}`);
	}
	const when = raw.when === undefined || raw.when === null || (typeof raw.when === 'object' && !Array.isArray(raw.when) && Object.keys(raw.when).length === 0) ? undefined : raw.when;
	const label = text(raw.label, 'label');
	const reason = text(raw.reason, 'reason');
	return {
		...(label !== undefined ? { label } : {}),
		tools: raw.tools as string[],
		effect: effect as RuleEffect,
		...(when !== undefined ? { when: when as Record<string, unknown> } : {}),
		...(reason !== undefined && effect === 'refuse' ? { reason } : {}),
		...(decisions !== undefined && effect === 'ask' ? { decisions: decisions as ReviewerChoice[] } : {}),
	};
}
