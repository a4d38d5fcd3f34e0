import { readApprovalRules } from '../../lib/agent/approvalRulesInput';
import { RuleError } from '../../lib/agent/approvalRules';
import { McpAgentError } from '../../lib/errors';

describe('readApprovalRules: the node list, then the JSON form', () => {
	test('list entries as n8n hands them over, then JSON rules, in that order', () => {
		const rules = readApprovalRules(
			[
				{ label: 'Small EUR payments', tools: 'Payments/send_money', effect: 'run', condition: '{"properties": {"amount": {"maximum": 20}}}', reason: 'ignored for run', decisions: ['approve'] },
				{ tools: 'Payments/send_money, Payments/refund', effect: 'ask', condition: '', decisions: ['approve', 'deny'] },
			],
			'[{"tools": "DB/drop_table", "effect": "refuse", "reason": "Never drop tables"}, {"label": "reads", "tools": ["DB/select_*"], "effect": "run", "when": {}}]',
		);
		expect(rules).toEqual([
			{ label: 'Small EUR payments', tools: ['Payments/send_money'], effect: 'run', when: { properties: { amount: { maximum: 20 } } } },
			{ tools: ['Payments/send_money', 'Payments/refund'], effect: 'ask', decisions: ['approve', 'deny'] },
			{ tools: ['DB/drop_table'], effect: 'refuse', reason: 'Never drop tables' },
			{ label: 'reads', tools: ['DB/select_*'], effect: 'run' },
		]);
	});

	test('nothing given: no rules', () => {
		expect(readApprovalRules(undefined, '')).toEqual([]);
		expect(readApprovalRules([], undefined)).toEqual([]);
	});

	test('an expression may give the JSON rules as a value', () => {
		expect(readApprovalRules(undefined, [{ tools: '*', effect: 'ask' }])).toEqual([{ tools: ['*'], effect: 'ask' }]);
	});

	test.each<[string, Parameters<typeof readApprovalRules>, RegExp]>([
		['a condition that is not JSON', [[{ label: 'caps', tools: '*', effect: 'run', condition: '{amount: 1' }], ''], /^caps \(approval rule 1\): Condition is not valid JSON/],
		['JSON rules that are not JSON', [[], '[{'], /^Approval Rules \(JSON\) is not valid JSON/],
		['JSON rules that are not an array', [[], '{"tools": "*"}'], /must be an array of rules/],
		['a JSON rule that is not an object', [[{ tools: '*', effect: 'ask' }], '["ask"]'], /^approval rule 2 \(Approval Rules \(JSON\) entry 1\) must be an object/],
		['a misspelt key, which would widen the rule', [[], '[{"tools": "*", "effect": "run", "whenn": {"maxProperties": 0}}]'], /unknown key "whenn"/],
		['tools that are not patterns', [[], '[{"tools": 7, "effect": "run"}]'], /tools must be a list of "server\/tool" patterns/],
		['decisions that are not a list', [[], '[{"tools": "*", "effect": "ask", "decisions": "approve"}]'], /decisions must be a list/],
		['an unknown effect (checked with the other rules)', [[], '[{"tools": "*", "effect": "allow"}]'], /Rule 1 \(approval rule 1\): unknown effect "allow"/],
		['an empty tools field in the list', [[{ label: 'x', tools: ' , ', effect: 'run' }], ''], /x \(approval rule 1\): Tools is empty/],
	])('%s fails the node naming the rule', (_name, args, message) => {
		let caught: unknown;
		try {
			readApprovalRules(...args);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(RuleError);
		expect((caught as Error).message).toMatch(message);
		expect(McpAgentError.isInstance(caught) && caught.code).toBe('config');
		expect((caught as McpAgentError).description).toMatch(/Approval Rules/);
	});
});
