import { checkRules, judgeCall, RuleError } from '../../lib/agent/approvalRules';
import type { ApprovalPolicy, ApprovalRule } from '../../lib/agent/policy';

const sendMoney = { serverName: 'payments', mcpName: 'send_money', annotationsTrusted: false };
const readFile = { serverName: 'files', mcpName: 'read_file', annotations: { readOnlyHint: true }, annotationsTrusted: true };

/** The example: small EUR payments run, larger ones ask, unknown recipients are refused. */
const PAYMENT_RULES: ApprovalRule[] = [
	{ label: 'small EUR payments', tools: ['payments/send_money'], effect: 'run', when: { type: 'object', properties: { amount: { type: 'number', maximum: 20 }, currency: { const: 'EUR' } }, required: ['amount', 'currency'] } },
	{
		label: 'larger payments',
		tools: ['payments/send_money'],
		effect: 'ask',
		decisions: ['approve', 'deny'],
		// Ask wins over run, so this rule says where "small" ends rather than catching every payment.
		when: { anyOf: [{ required: ['amount'], properties: { amount: { exclusiveMinimum: 20 } } }, { required: ['currency'], properties: { currency: { not: { const: 'EUR' } } } }] },
	},
	{
		label: 'unknown recipients',
		tools: ['payments/send_money'],
		effect: 'refuse',
		reason: 'Payments go only to the suppliers on the allow-list.',
		when: { type: 'object', properties: { to: { not: { enum: ['DE89370400440532013000', 'FR1420041010050500013M02606'] } } }, required: ['to'] },
	},
];

function policy(rules: ApprovalRule[], extra: Partial<ApprovalPolicy> = {}): ApprovalPolicy {
	return { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [], rules, ...extra };
}

describe('approval rules: three rules make a payment policy', () => {
	const known = 'DE89370400440532013000';
	test.each([
		['a small EUR payment runs', { amount: 12, currency: 'EUR', to: known }, { effect: 'run', by: { rule: 1, label: 'small EUR payments' } }],
		['a payment above the limit asks, without edit', { amount: 21, currency: 'EUR', to: known }, { effect: 'ask', by: { rule: 2, label: 'larger payments' }, decisions: ['approve', 'deny'] }],
		['a small payment in USD asks', { amount: 5, currency: 'USD', to: known }, { effect: 'ask', by: { rule: 2, label: 'larger payments' }, decisions: ['approve', 'deny'] }],
		[
			'a small payment to an unknown recipient is refused (refuse wins over run)',
			{ amount: 5, currency: 'EUR', to: 'GB00HACK00000000000000' },
			{ effect: 'refuse', by: { rule: 3, label: 'unknown recipients' }, reason: 'Payments go only to the suppliers on the allow-list.' },
		],
	])('%s', (_name, args, verdict) => {
		expect(judgeCall(policy(PAYMENT_RULES), sendMoney, args)).toEqual(verdict);
	});

	test('precedence, not order: the same rules reversed give the same effects', () => {
		const reversed = policy([...PAYMENT_RULES].reverse());
		expect(judgeCall(reversed, sendMoney, { amount: 12, currency: 'EUR', to: known }).effect).toBe('run');
		expect(judgeCall(reversed, sendMoney, { amount: 5, currency: 'EUR', to: 'GB00' }).effect).toBe('refuse');
		expect(judgeCall(reversed, sendMoney, { amount: 50, currency: 'EUR', to: known }).effect).toBe('ask');
	});

	test('among rules of the winning effect the first is named', () => {
		const rules: ApprovalRule[] = [
			{ label: 'first', tools: ['send_*'], effect: 'ask' },
			{ label: 'second', tools: ['*'], effect: 'ask' },
		];
		expect(judgeCall(policy(rules), sendMoney, {})).toMatchObject({ by: { rule: 1, label: 'first' } });
	});

	test('an unlabelled rule is named by its position; a refusal without a reason still says which rule', () => {
		const rules: ApprovalRule[] = [{ tools: ['*'], effect: 'run' }, { tools: ['send_money'], effect: 'refuse' }];
		expect(judgeCall(policy(rules), sendMoney, {})).toEqual({ effect: 'refuse', by: { rule: 2, label: 'Rule 2' }, reason: 'refused by the approval rule "Rule 2"' });
	});
});

describe('approval rules and the node policy', () => {
	test('no matching rule: Require Approval For decides as before', () => {
		const rules: ApprovalRule[] = [{ tools: ['payments/*'], effect: 'run' }];
		expect(judgeCall(policy(rules, { mode: 'notReadOnly' }), readFile, {})).toEqual({ effect: 'run', by: 'policy' });
		expect(judgeCall(policy(rules, { mode: 'all' }), readFile, {})).toEqual({ effect: 'ask', by: 'policy', decisions: ['approve', 'deny', 'edit'] });
	});

	test('a run rule overrides the mode and Never Ask For does not beat an ask rule', () => {
		expect(judgeCall(policy([{ tools: ['send_money'], effect: 'run' }], { mode: 'all' }), sendMoney, {})).toEqual({ effect: 'run', by: { rule: 1, label: 'Rule 1' } });
		expect(judgeCall(policy([{ tools: ['read_file'], effect: 'ask' }], { mode: 'none', neverAsk: ['read_*'] }), readFile, {}).effect).toBe('ask');
	});

	test('Always Ask For wins over a run rule (an ask list), and loses to a refuse rule', () => {
		const rules: ApprovalRule[] = [{ tools: ['send_money'], effect: 'run' }];
		expect(judgeCall(policy(rules, { alwaysAsk: ['send_money'] }), sendMoney, {})).toEqual({ effect: 'ask', by: 'policy', decisions: ['approve', 'deny', 'edit'] });
		expect(judgeCall(policy([{ tools: ['send_money'], effect: 'refuse' }], { alwaysAsk: ['send_money'] }), sendMoney, {}).effect).toBe('refuse');
	});

	test('a policy without rules (runs stored by earlier versions) behaves as before', () => {
		const old: ApprovalPolicy = { mode: 'listed', listed: ['send_money'], alwaysAsk: [], neverAsk: [] };
		expect(judgeCall(old, sendMoney, {}).effect).toBe('ask');
		expect(judgeCall(old, readFile, {}).effect).toBe('run');
	});
});

describe('approval rule conditions on hostile arguments', () => {
	const deep = (depth: number): unknown => (depth === 0 ? 1 : { a: deep(depth - 1) });
	const huge = { text: 'x'.repeat(2 * 1024 * 1024) };

	test('arguments beyond the limits never satisfy a run rule, and always a refuse or ask rule', () => {
		const when = { type: 'object' };
		for (const args of [huge, deep(200)]) {
			expect(judgeCall(policy([{ tools: ['*'], effect: 'run', when }], { mode: 'all' }), sendMoney, args)).toMatchObject({ effect: 'ask', by: 'policy' });
			expect(judgeCall(policy([{ tools: ['*'], effect: 'refuse', when }]), sendMoney, args).effect).toBe('refuse');
		}
	});

	test('a pattern condition runs in linear time on a catastrophic input (RE2)', () => {
		const when = { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } };
		const started = process.hrtime.bigint();
		const verdict = judgeCall(policy([{ tools: ['*'], effect: 'run', when }], { mode: 'all' }), sendMoney, { q: `${'a'.repeat(50_000)}!` });
		expect(verdict.effect).toBe('ask');
		// Backtracking would take astronomically long; RE2 is linear. The bound is generous on purpose.
		expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
	});

	test('non-object arguments are judged too (a condition on an object does not hold)', () => {
		const rules: ApprovalRule[] = [{ tools: ['*'], effect: 'run', when: { type: 'object', properties: { amount: { maximum: 20 } } } }];
		for (const args of [null, 'text', [1, 2], 7]) expect(judgeCall(policy(rules), sendMoney, args).effect).toBe('ask');
	});

	test('a condition cannot be satisfied through prototype keys', () => {
		const rules: ApprovalRule[] = [{ tools: ['*'], effect: 'run', when: { type: 'object', required: ['approved'], properties: { approved: { const: true } } } }];
		const args = JSON.parse('{"__proto__": {"approved": true}}');
		expect(judgeCall(policy(rules), sendMoney, args).effect).toBe('ask');
	});
});

describe('checkRules: a rule that cannot be used fails the node before any model call', () => {
	test.each<[string, ApprovalRule, RegExp]>([
		['unknown effect', { tools: ['*'], effect: 'allow' as never }, /Rule 1 \(approval rule 1\): unknown effect "allow"; use run, ask or refuse/],
		['no tools', { label: 'payments', tools: [], effect: 'run' }, /payments \(approval rule 1\): Tools is empty/],
		['blank tool pattern', { tools: [' '], effect: 'run' }, /Tools is empty/],
		['unknown decision', { tools: ['*'], effect: 'ask', decisions: ['approve', 'skip' as never] }, /unknown reviewer decision "skip"/],
		['ask with deny only', { tools: ['*'], effect: 'ask', decisions: ['deny'] }, /must be able to approve or edit; to refuse every call, make it a refuse rule/],
		['condition not an object', { tools: ['*'], effect: 'run', when: [] as never }, /its condition must be a JSON Schema object/],
		['unsupported pattern', { tools: ['*'], effect: 'run', when: { properties: { q: { pattern: '(a)\\1' } } } }, /Rule 1 \(approval rule 1\): the condition uses the pattern "\(a\)\\\\1"/],
		['external reference', { tools: ['*'], effect: 'run', when: { $ref: 'https://example.com/schema.json' } }, /the condition references a schema that is not included/],
	])('%s', (_name, rule, message) => {
		expect(() => checkRules([rule])).toThrow(RuleError);
		expect(() => checkRules([rule])).toThrow(message);
	});

	test('the rule is named by position among several', () => {
		expect(() => checkRules([...PAYMENT_RULES, { tools: ['*'], effect: 'nope' as never }])).toThrow(/Rule 4 \(approval rule 4\)/);
		expect(() => checkRules(PAYMENT_RULES)).not.toThrow();
	});
});
