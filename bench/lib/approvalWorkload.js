'use strict';
// The approval workload of bench part 'approvals' (issue 28): five tools of one MCP server, a rule
// set (the Agent's Approval Rules list and its JSON form), the node's policy, standing approvals
// (grants) and 200 scripted calls; and an oracle that says, for each call, what must happen, worked
// out from these definitions alone: its own small JSON Schema evaluator (the keywords the rules
// use, JavaScript regular expressions) and the order of decision of docs/human-review.md
// ("Policies"), never the package's judgeCall, validator or grant matching.

const { TOOLS } = require('../fixtures/approval-tools-server');

/** The MCP Server sub-node's name: the "server" of every pattern and grant. */
const SERVER = 'Ops';
const ALLOWED = ['DE89370400440532013000', 'FR1420041010050500013M02606'];
const [IBAN_A, IBAN_B] = ALLOWED;
const IBAN_UNKNOWN = 'GB33BUKB20201555555555';

/** The node's policy: Require Approval For All Tools, with one tool always asked and one never. */
const POLICY = { requireApprovalFor: 'all', alwaysAsk: `${SERVER}/delete_record`, neverAsk: `${SERVER}/read_file` };

/** Rules 1-5: the node's Approval Rules list (as n8n saves the fixedCollection: tools and condition as text). */
const LIST_RULES = [
	{
		label: 'Small EUR payments',
		tools: `${SERVER}/send_money`,
		effect: 'run',
		when: { properties: { amount: { maximum: 20 }, currency: { const: 'EUR' } }, required: ['amount', 'currency'] },
	},
	{
		label: 'Large payments',
		tools: `${SERVER}/send_money`,
		effect: 'ask',
		decisions: ['approve', 'deny'],
		when: { properties: { amount: { exclusiveMinimum: 1000 } }, required: ['amount'] },
	},
	{
		label: 'Unknown recipients',
		tools: `${SERVER}/send_money`,
		effect: 'refuse',
		reason: 'Payments go only to suppliers on the allow-list.',
		when: { properties: { to: { not: { enum: ALLOWED } } } },
	},
	{
		label: 'Writes in /data/reports',
		tools: `${SERVER}/write_file`,
		effect: 'run',
		when: { properties: { path: { type: 'string', pattern: '^/data/reports/[^/]+$' } }, required: ['path'] },
	},
	{
		label: 'Config writes',
		tools: `${SERVER}/write_file`,
		effect: 'ask',
		decisions: ['edit', 'deny'],
		when: { properties: { path: { type: 'string', pattern: '^/etc/' } }, required: ['path'] },
	},
];
/** Rules 6-11: Approval Rules (JSON), judged after the list. */
const JSON_RULES = [
	{
		label: 'Read-only queries',
		tools: 'run_query',
		effect: 'run',
		when: { properties: { sql: { type: 'string', pattern: '^\\s*[Ss][Ee][Ll][Ee][Cc][Tt]\\b[^;]*$' } }, required: ['sql'] },
	},
	{
		label: 'Never drop',
		tools: 'run_query',
		effect: 'refuse',
		reason: 'Dropping tables is not allowed.',
		when: { properties: { sql: { type: 'string', pattern: '[Dd][Rr][Oo][Pp]\\s+[Tt][Aa][Bb][Ll][Ee]' } }, required: ['sql'] },
	},
	{
		label: 'Secrets',
		tools: `${SERVER}/read_file`,
		effect: 'refuse',
		reason: 'System secrets are never read.',
		when: { properties: { path: { type: 'string', pattern: '^/etc/(shadow|ssh)' } }, required: ['path'] },
	},
	{ label: 'Home directories', tools: `${SERVER}/read_file`, effect: 'ask', when: { properties: { path: { type: 'string', pattern: '^/home/' } }, required: ['path'] } },
	{
		label: 'Audit trail',
		tools: `${SERVER}/delete_record`,
		effect: 'refuse',
		reason: 'The audit table is append-only.',
		when: { properties: { table: { const: 'audit' } }, required: ['table'] },
	},
	// Always Ask For (delete_record) comes before run rules: this rule never lets a call through.
	{ label: 'Temporary rows', tools: `${SERVER}/delete_record`, effect: 'run', when: { properties: { table: { const: 'tmp' } }, required: ['table'] } },
];
const RULES = [...LIST_RULES, ...JSON_RULES];

/** The Agent's parameters for these rules: the fixedCollection entries and the JSON form. */
function ruleParameters() {
	return {
		approvalRules: {
			rule: LIST_RULES.map((r) => ({
				label: r.label,
				tools: r.tools,
				effect: r.effect,
				condition: JSON.stringify(r.when),
				...(r.reason ? { reason: r.reason } : {}),
				...(r.decisions ? { decisions: r.decisions } : {}),
			})),
		},
		rulesJson: JSON.stringify(JSON_RULES),
	};
}

/**
 * The standing approvals put into n8n's database before the run. `from` is the call a person
 * approved (the constraint must hold for it), `scope` 'other-node' / 'other-workflow' puts it
 * elsewhere, `fingerprint: 'stale'` binds it to an earlier definition of the tool (a rug pull
 * since), `revoked` revokes it after inserting, `agoMs` makes it that long ago (expired when
 * longer than its duration).
 */
const GRANTS = [
	{
		key: 'payA500',
		tool: 'send_money',
		fields: [
			{ path: ['to'], equals: IBAN_A },
			{ path: ['amount'], atMost: 500 },
		],
		from: { to: IBAN_A, amount: 500, currency: 'EUR' },
		duration: '30d',
	},
	{
		key: 'payB5000',
		tool: 'send_money',
		fields: [
			{ path: ['to'], equals: IBAN_B },
			{ path: ['amount'], atMost: 5000 },
		],
		from: { to: IBAN_B, amount: 5000, currency: 'EUR' },
		duration: '1d',
	},
	{
		key: 'payAStale',
		tool: 'send_money',
		fields: [
			{ path: ['to'], equals: IBAN_A },
			{ path: ['amount'], atMost: 1000 },
		],
		from: { to: IBAN_A, amount: 1000, currency: 'EUR' },
		duration: '30d',
		fingerprint: 'stale',
	},
	{ key: 'notesExact', tool: 'write_file', exact: { path: '/tmp/notes.txt', content: 'hello' }, duration: '1h' },
	{ key: 'configWrites', tool: 'write_file', fields: [{ path: ['path'], equals: '/etc/app.conf' }], from: { path: '/etc/app.conf', content: 'x' }, duration: '1d' },
	{
		key: 'oldExpired',
		tool: 'write_file',
		fields: [{ path: ['path'], equals: '/tmp/old.txt' }],
		from: { path: '/tmp/old.txt', content: 'x' },
		duration: '1h',
		agoMs: 2 * 3_600_000,
	},
	{ key: 'updateJob7', tool: 'run_query', exact: { sql: "UPDATE jobs SET state = 'done' WHERE id = 7" }, duration: '1d' },
	{ key: 'deleteLogsRevoked', tool: 'run_query', fields: [{ path: ['sql'], equals: 'DELETE FROM logs' }], from: { sql: 'DELETE FROM logs' }, duration: '30d', revoked: true },
	{ key: 'annHome', tool: 'read_file', fields: [{ path: ['path'], equals: '/home/ann/todo.txt' }], from: { path: '/home/ann/todo.txt' }, duration: '1d' },
	{
		key: 'bobHomeOtherNode',
		tool: 'read_file',
		fields: [{ path: ['path'], equals: '/home/bob/notes.txt' }],
		from: { path: '/home/bob/notes.txt' },
		duration: '1d',
		scope: 'other-node',
	},
	{ key: 'tmpRows', tool: 'delete_record', fields: [{ path: ['table'], equals: 'tmp' }], from: { table: 'tmp', id: 'r0' }, duration: '30d' },
	{
		key: 'usersOtherWorkflow',
		tool: 'delete_record',
		fields: [{ path: ['table'], equals: 'users' }],
		from: { table: 'users', id: 'u0' },
		duration: '30d',
		scope: 'other-workflow',
	},
	// Grants no call of the workload matches (other recipients, other files): the store is not trivially small.
	...Array.from({ length: 24 }, (_, i) => ({ key: `filler${i}`, tool: TOOLS[i % 5].name, exact: fillerArguments(TOOLS[i % 5].name, i), duration: '30d' })),
];

function fillerArguments(tool, i) {
	return {
		send_money: { to: IBAN_B, amount: 7000 + i, currency: 'CHF' },
		write_file: { path: `/srv/archive/${i}.txt`, content: 'archived' },
		run_query: { sql: `UPDATE archive SET kept = true WHERE id = ${i}` },
		read_file: { path: `/home/guest${i}/readme.txt` },
		delete_record: { table: 'sessions', id: `s${i}` },
	}[tool];
}

/** Argument variants per tool, each once or more in the workload (what each must do is the oracle's). */
const VARIANTS = {
	send_money: [
		(i) => ({ to: IBAN_A, amount: 5 + (i % 15), currency: 'EUR' }),
		(i) => ({ to: IBAN_B, amount: 12, currency: 'EUR', note: `invoice ${i}` }),
		(i) => ({ to: IBAN_A, amount: 10 + (i % 5), currency: 'USD' }),
		(i) => ({ to: IBAN_A, amount: 250 + i, currency: 'EUR' }),
		(i) => ({ to: IBAN_A, amount: 700 + i, currency: 'EUR' }),
		(i) => ({ to: IBAN_B, amount: 2500 + i, currency: 'EUR' }),
		(i) => ({ to: IBAN_B, amount: 8000 + i, currency: 'EUR' }),
		(i) => ({ to: IBAN_A, amount: 1500 + i, currency: 'EUR' }),
		(i) => ({ to: IBAN_UNKNOWN, amount: 5, currency: 'EUR' }),
		(i) => ({ to: IBAN_UNKNOWN, amount: 5000 + i, currency: 'EUR' }),
	],
	write_file: [
		(i) => ({ path: `/data/reports/q${i}.csv`, content: 'a,b' }),
		(i) => ({ path: `/data/reports/archive/q${i}.csv`, content: 'a,b' }),
		() => ({ path: '/tmp/notes.txt', content: 'hello' }),
		() => ({ content: 'hello', path: '/tmp/notes.txt' }),
		(i) => ({ path: '/tmp/notes.txt', content: `hello ${i}` }),
		() => ({ path: '/etc/app.conf', content: 'debug=true' }),
		() => ({ path: '/tmp/old.txt', content: 'x' }),
	],
	run_query: [
		(i) => ({ sql: `SELECT * FROM orders WHERE id = ${i}` }),
		(i) => ({ sql: `  select name from users limit ${i}`, limit: 10 }),
		() => ({ sql: 'SELECT 1; DROP TABLE users' }),
		() => ({ sql: 'drop table orders' }),
		() => ({ sql: "UPDATE jobs SET state = 'done' WHERE id = 7" }),
		(i) => ({ sql: `UPDATE jobs SET state = 'done' WHERE id = ${8 + i}` }),
		() => ({ sql: 'DELETE FROM logs' }),
	],
	read_file: [
		(i) => ({ path: `/data/reports/q${i}.csv` }),
		() => ({ path: '/etc/shadow' }),
		() => ({ path: '/etc/ssh/sshd_config' }),
		() => ({ path: '/home/ann/todo.txt' }),
		() => ({ path: '/home/bob/notes.txt' }),
		() => ({ path: '/etc/hostname' }),
	],
	delete_record: [
		(i) => ({ table: 'tmp', id: `r${i}` }),
		(i) => ({ table: 'audit', id: `a${i}` }),
		(i) => ({ table: 'users', id: `u${i}` }),
		(i) => ({ table: 'orders', id: `o${i}` }),
	],
};

/** mulberry32 */
function seededRandom(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The workload: `count` calls, an equal share per tool, every variant used, in a seeded shuffled order. */
function workloadCalls(count = 200, seed = 28) {
	const random = seededRandom(seed);
	const tools = Object.keys(VARIANTS);
	const calls = [];
	for (let n = 0; n < count; n++) {
		const tool = tools[n % tools.length];
		const i = Math.floor(n / tools.length);
		const variants = VARIANTS[tool];
		// Each variant at least once (the first rounds go through them in order), then drawn at random.
		const variant = i < variants.length ? variants[i] : variants[Math.floor(random() * variants.length)];
		calls.push({ tool, arguments: variant(i) });
	}
	for (let i = calls.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[calls[i], calls[j]] = [calls[j], calls[i]];
	}
	return calls.map((call, seq) => ({ seq, ...call }));
}

// ---- The oracle: independent of the package's code ----

function sameJson(a, b) {
	return canonical(a) === canonical(b);
}

function canonical(value) {
	if (value === null || typeof value !== 'object') return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	return `{${Object.keys(value)
		.sort()
		.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
		.join(',')}}`;
}

/** The JSON Schema keywords the rules use, evaluated here; any other keyword is a mistake in the workload. */
function schemaHolds(schema, value) {
	for (const [keyword, expected] of Object.entries(schema)) {
		switch (keyword) {
			case 'type':
				if (expected === 'string' && typeof value !== 'string') return false;
				if (expected === 'number' && typeof value !== 'number') return false;
				if (expected === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value))) return false;
				break;
			case 'properties':
				if (typeof value !== 'object' || value === null || Array.isArray(value)) break;
				for (const [name, sub] of Object.entries(expected)) if (Object.hasOwn(value, name) && !schemaHolds(sub, value[name])) return false;
				break;
			case 'required':
				if (typeof value !== 'object' || value === null || Array.isArray(value)) break;
				if (!expected.every((name) => Object.hasOwn(value, name))) return false;
				break;
			case 'maximum':
				if (typeof value === 'number' && !(value <= expected)) return false;
				break;
			case 'exclusiveMinimum':
				if (typeof value === 'number' && !(value > expected)) return false;
				break;
			case 'const':
				if (!sameJson(value, expected)) return false;
				break;
			case 'enum':
				if (!expected.some((option) => sameJson(value, option))) return false;
				break;
			case 'not':
				if (schemaHolds(expected, value)) return false;
				break;
			case 'pattern':
				if (typeof value === 'string' && !new RegExp(expected, 'u').test(value)) return false;
				break;
			default:
				throw new Error(`oracle: the workload uses the keyword "${keyword}", which the oracle does not evaluate`);
		}
	}
	return true;
}

/** "server/tool" or "tool", with * wildcards (the workload uses none, but a pattern may). */
function patternMatches(pattern, tool) {
	const split = pattern.lastIndexOf('/');
	const server = split < 0 ? undefined : pattern.slice(0, split);
	const name = split < 0 ? pattern : pattern.slice(split + 1);
	const glob = (p, text) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(text);
	return (server === undefined || glob(server, SERVER)) && glob(name, tool);
}

const listOf = (text) =>
	text
		? text
				.split(',')
				.map((p) => p.trim())
				.filter(Boolean)
		: [];

/**
 * What must happen to one call: { outcome: 'run' | 'ask' | 'refuse', by } where by is
 * { rule: n } (1-based position), { grant: id } or 'policy'; for 'ask' also the decisions offered.
 * `grants` are the rows as inserted: { key, id, tool, fields | exact, fingerprintCurrent, scope,
 * active (not revoked, not expired at the time of the run) }.
 */
function expectedOutcome(call, grants) {
	const firstRule = (effect) =>
		RULES.findIndex((r) => r.effect === effect && listOf(r.tools).some((p) => patternMatches(p, call.tool)) && schemaHolds(r.when ?? {}, call.arguments));
	const refuse = firstRule('refuse');
	if (refuse >= 0) return { outcome: 'refuse', by: { rule: refuse + 1 } };
	let asked;
	const ask = firstRule('ask');
	if (ask >= 0) {
		const offered = RULES[ask].decisions ?? ['approve', 'deny', 'edit'];
		asked = { by: { rule: ask + 1 }, decisions: ['approve', 'deny', 'edit'].filter((d) => d === 'deny' || offered.includes(d)) };
	} else if (listOf(POLICY.alwaysAsk).some((p) => patternMatches(p, call.tool))) {
		asked = { by: 'policy', decisions: ['approve', 'deny', 'edit'] };
	} else {
		const run = firstRule('run');
		if (run >= 0) return { outcome: 'run', by: { rule: run + 1 } };
		if (listOf(POLICY.neverAsk).some((p) => patternMatches(p, call.tool))) return { outcome: 'run', by: 'policy' };
		if (POLICY.requireApprovalFor !== 'all') throw new Error('oracle: only Require Approval For "all" is modelled');
		asked = { by: 'policy', decisions: ['approve', 'deny', 'edit'] };
	}
	// A grant stands in for a person only where a person could approve.
	if (asked.decisions.includes('approve')) {
		const covering = grants
			.filter((g) => g.active && g.scope === 'this' && g.fingerprintCurrent && g.tool === call.tool && grantHolds(g, call.arguments))
			.sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
		if (covering.length) return { outcome: 'run', by: { grant: covering[0].id } };
	}
	return { outcome: 'ask', ...asked };
}

function grantHolds(grant, args) {
	if (grant.exact) return sameJson(grant.exact, args);
	return grant.fields.every((field) => {
		let value = args;
		for (const segment of field.path) {
			if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return false;
			value = value[segment];
		}
		if ('equals' in field) return sameJson(value, field.equals);
		return typeof value === 'number' && value <= field.atMost && (field.atLeast === undefined || value >= field.atLeast);
	});
}

module.exports = { SERVER, TOOLS, POLICY, RULES, LIST_RULES, JSON_RULES, GRANTS, ruleParameters, workloadCalls, expectedOutcome, canonical, seededRandom };
