import vm from 'node:vm';
import { compileArgumentValidator, validateArguments, type ValidationOutcome } from '../../lib/tools/argumentValidator';

/**
 * Hostile input schemas from an MCP server (issue 10, points 1 and 9): none may hang n8n, crash it,
 * pass arguments unchecked, or change how another tool's arguments are checked.
 */

function summaryOf(outcome: ValidationOutcome): string {
	if (outcome.valid) throw new Error('expected the arguments to be invalid');
	return outcome.summary;
}

/**
 * Runs `check` under a watchdog: V8 stops a backtracking RegExp that runs past the timeout, so on
 * an engine that backtracks the test fails with "Script execution timed out" instead of freezing
 * the test run. On a linear-time engine the check takes microseconds; the timeout is not a
 * performance assertion.
 */
function withWatchdog<T>(check: () => T): T {
	return vm.runInNewContext('check()', { check }, { timeout: 10_000 }) as T;
}

const EVIL = `${'a'.repeat(30)}!`;

describe('patterns run on a linear-time engine', () => {
	it('checks "^(a+)+$" against 30 "a" and a "!" promptly, and still refuses the value', () => {
		const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
		const outcome = withWatchdog(() => validateArguments(schema, { name: EVIL }));
		expect(outcome).toEqual({
			valid: false,
			problems: [{ path: 'arguments.name', rule: 'pattern', message: 'must match pattern "^(a+)+$"' }],
			summary: 'arguments.name must match pattern "^(a+)+$" (rule: pattern)',
		});
		expect(validateArguments(schema, { name: 'aaaa' })).toEqual({ valid: true });
	});

	it('also in patternProperties (with additionalProperties) and propertyNames', () => {
		const byPattern = { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false };
		expect(summaryOf(withWatchdog(() => validateArguments(byPattern, { [EVIL]: 1 })))).toBe(
			`arguments.${EVIL} is not allowed by the schema (rule: additionalProperties)`,
		);
		expect(validateArguments(byPattern, { aaa: 1 })).toEqual({ valid: true });
		expect(summaryOf(validateArguments(byPattern, { aaa: 'x' }))).toBe('arguments.aaa must be number (rule: type)');

		const names = { type: 'object', propertyNames: { pattern: '^(a+)+$' } };
		expect(summaryOf(withWatchdog(() => validateArguments(names, { [EVIL]: 1 })))).toContain('must match pattern "^(a+)+$"');
		expect(validateArguments(names, { aa: 1 })).toEqual({ valid: true });
	});

	it('in a 2019-09 and a draft-07 schema as well', () => {
		for (const $schema of ['https://json-schema.org/draft/2019-09/schema', 'http://json-schema.org/draft-07/schema#']) {
			const schema = { $schema, type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
			expect(withWatchdog(() => validateArguments(schema, { name: EVIL })).valid).toBe(false);
		}
	});
});

describe('patterns the safe engine cannot run are refused for that tool', () => {
	it('names the pattern, where it is and why (lookahead)', () => {
		const schema = { type: 'object', properties: { a: { type: 'string', pattern: '(?=x)' } } };
		const outcome = validateArguments(schema, { a: 'x' });
		expect(outcome).toEqual({
			valid: false,
			problems: [
				{
					path: 'arguments',
					rule: 'schema',
					message: `the tool's inputSchema uses the pattern "(?=x)" at properties.a, which the safe regular-expression engine does not support (lookahead)`,
				},
			],
			summary: `the tool's inputSchema uses the pattern "(?=x)" at properties.a, which the safe regular-expression engine does not support (lookahead)`,
		});
		expect(() => compileArgumentValidator(schema)).toThrow(/does not support \(lookahead\)/);
	});

	it('lookbehind, backreferences, in patternProperties and propertyNames, never a silent pass', () => {
		const lookbehind = { type: 'object', properties: { list: { type: 'array', items: { pattern: '(?<!a)b' } } } };
		expect(summaryOf(validateArguments(lookbehind, { list: ['ab'] }))).toBe(
			`the tool's inputSchema uses the pattern "(?<!a)b" at properties.list.items, which the safe regular-expression engine does not support (lookbehind)`,
		);
		const backreference = { type: 'object', patternProperties: { '^(x)\\1$': { type: 'string' } } };
		expect(summaryOf(validateArguments(backreference, { xx: 1 }))).toBe(
			`the tool's inputSchema uses the pattern "^(x)\\\\1$" at patternProperties, which the safe regular-expression engine does not support (backreference)`,
		);
		const named = { type: 'object', propertyNames: { pattern: '^(?<q>x)\\k<q>$' } };
		expect(summaryOf(validateArguments(named, { xx: 1 }))).toContain('at propertyNames, which the safe regular-expression engine does not support (backreference)');
	});

	it('refuses a pattern that is not a valid ECMA-262 regular expression', () => {
		const schema = { type: 'object', properties: { a: { type: 'string', pattern: '(?i)abc' } } };
		expect(summaryOf(validateArguments(schema, { a: 'abc' }))).toMatch(/uses the pattern "\(\?i\)abc" at properties\.a, .*not a valid regular expression/);
	});
});

describe('ordinary patterns mean what ECMA-262 says', () => {
	const check = (pattern: string, value: string) => validateArguments({ type: 'object', properties: { v: { type: 'string', pattern } } }, { v: value }).valid;

	it('anchors, classes, \\d, \\w and unanchored matching', () => {
		expect(check('^[a-z]+$', 'abc')).toBe(true);
		expect(check('^[a-z]+$', 'abC')).toBe(false);
		expect(check('^[a-z]+$', 'abc\n')).toBe(false);
		expect(check('\\d{3}', 'ab123cd')).toBe(true);
		expect(check('\\d{3}', 'ab12cd')).toBe(false);
		expect(check('abc', 'xxabcxx')).toBe(true);
		expect(check('abc', 'xxabxcxx')).toBe(false);
		expect(check('^\\w+@\\w+\\.com$', 'me@example.com')).toBe(true);
		expect(check('^[^\\s]+$', 'no\u00a0break')).toBe(false);
		expect(check('^\\p{L}+$', 'Ελληνικά')).toBe(true);
		expect(check('^\\p{Lu}', 'éa')).toBe(false);
		expect(check('^.$', '\r')).toBe(false);
		expect(check('^\\u0041\\u{1F600}$', 'A😀')).toBe(true);
	});
});

describe('schemas that cannot be compiled or validated safely', () => {
	it('{"$ref": "#"} comes back as an unusable schema, not a stack overflow', () => {
		const outcome = validateArguments({ $ref: '#' }, { a: 1 });
		expect(outcome.valid).toBe(false);
		expect(summaryOf(outcome)).toBe(
			`the tool's inputSchema is unusable: validating against it recursed without end (it refers to itself without descending into the data, as {"$ref": "#"} does)`,
		);
		// Definitions that refer to each other on the same data, too; and again on a second call.
		const mutual = { $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' };
		expect(summaryOf(validateArguments(mutual, {}))).toContain('recursed without end');
		expect(summaryOf(validateArguments(mutual, {}))).toContain('recursed without end');
	});

	it('a recursive schema that descends into the data still works', () => {
		const tree = { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#' } } } };
		expect(validateArguments(tree, { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] })).toEqual({ valid: true });
		expect(summaryOf(validateArguments(tree, { children: [{ children: [{ value: 'x' }] }] }))).toBe(
			'arguments.children.0.children.0.value must be number (rule: type)',
		);
	});

	it('stops a schema whose references multiply (40 definitions that each apply the next twice)', () => {
		const $defs: Record<string, unknown> = { d40: { type: 'string' } };
		for (let i = 0; i < 40; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
		const schema = { type: 'object', $defs, properties: { a: { $ref: '#/$defs/d0' } } };
		expect(summaryOf(withWatchdog(() => validateArguments(schema, { a: 1 })))).toBe(
			"the tool's inputSchema is unusable: validating follows more than 1,000,000 references (its references multiply, as definitions that each apply the next one twice do)",
		);
		// The same trick hidden in a "default" value that a $ref points into.
		const hidden = { type: 'object', default: { d: { allOf: [{ $ref: '#/default/e' }, { $ref: '#/default/e' }] }, e: { allOf: [{ $ref: '#/default/f' }, { $ref: '#/default/f' }] } }, properties: { a: { $ref: '#/default/d' } } };
		const chain = hidden.default as Record<string, unknown>;
		for (let i = 0; i < 40; i++) chain[`f${i}`] = { allOf: [{ $ref: `#/default/f${i + 1}` }, { $ref: `#/default/f${i + 1}` }] };
		chain.f = { $ref: '#/default/f0' };
		chain.f40 = { type: 'string' };
		expect(summaryOf(withWatchdog(() => validateArguments(hidden, { a: 1 })))).toContain('validating follows more than 1,000,000 references');
	});

	it('counts references per validation: a large recursive value within the limits passes', () => {
		const list = { type: 'object', properties: { next: { $ref: '#' }, items: { type: 'array', items: { $ref: '#/$defs/item' } } }, $defs: { item: { type: 'object', properties: { n: { type: 'number' } } } } };
		// 40,000 references per validation, 1.2 million over the 30 validations.
		const items = Array.from({ length: 40_000 }, (_, n) => ({ n }));
		for (let round = 0; round < 30; round++) expect(validateArguments(list, { next: { next: {} }, items })).toEqual({ valid: true });
		expect(summaryOf(validateArguments(list, { next: { items: [{ n: 'x' }] } }))).toBe('arguments.next.items.0.n must be number (rule: type)');
	});

	it('refuses a schema nested 10,000 levels deep before compiling it', () => {
		let deep: Record<string, unknown> = { type: 'string' };
		for (let i = 0; i < 10_000; i++) deep = { type: 'object', properties: { x: deep } };
		expect(summaryOf(validateArguments(deep, { x: {} }))).toBe("the tool's inputSchema is unusable: it is nested more than 64 levels deep, more than a tool's schema may be");
	});

	it('refuses a 5 MB schema before compiling it', () => {
		const properties: Record<string, unknown> = {};
		for (let i = 0; i < 5_000; i++) properties[`field${i}`] = { type: 'string', description: 'x'.repeat(1_000) };
		const huge = { type: 'object', properties };
		expect(summaryOf(validateArguments(huge, {}))).toBe("the tool's inputSchema is unusable: it is larger than 256 KB as JSON, more than a tool's schema may be");
	});

	it('refuses a schema with too many subschemas', () => {
		const anyOf = Array.from({ length: 12_000 }, () => ({}));
		expect(summaryOf(validateArguments({ anyOf }, {}))).toBe(
			"the tool's inputSchema is unusable: it has more than 10,000 objects and arrays, more than a tool's schema may be",
		);
	});

	it('a server cannot add formats: an unknown format is ignored, known ones are ours', () => {
		const schema = { type: 'object', formats: { upper: '^[A-Z]+$' }, properties: { a: { type: 'string', format: 'upper' }, b: { type: 'string', format: 'email' } } };
		expect(validateArguments(schema, { a: 'lower', b: 'a@example.com' })).toEqual({ valid: true });
		expect(summaryOf(validateArguments(schema, { a: 'lower', b: 'nope' }))).toBe('arguments.b must match format "email" (rule: format)');
	});
});

describe('arguments too large to check', () => {
	const open = { type: 'object' };

	it('refuses arguments nested more than 64 levels', () => {
		let deep: Record<string, unknown> = {};
		for (let i = 0; i < 70; i++) deep = { x: deep };
		expect(validateArguments(open, deep)).toEqual({
			valid: false,
			problems: [{ path: 'arguments', rule: 'depth', message: 'is nested more than 64 levels deep' }],
			summary: 'arguments is nested more than 64 levels deep (rule: depth)',
		});
		let fine: Record<string, unknown> = {};
		for (let i = 0; i < 60; i++) fine = { x: fine };
		expect(validateArguments(open, fine)).toEqual({ valid: true });
	});

	it('refuses arguments over 1 MB of JSON', () => {
		expect(summaryOf(validateArguments(open, { text: 'x'.repeat(1024 * 1024 + 1) }))).toBe('arguments is larger than 1 MB as JSON (rule: size)');
		expect(validateArguments(open, { text: 'x'.repeat(1000 * 1000) })).toEqual({ valid: true });
	});
});

describe("one tool's schema does not change another's validation", () => {
	const toolA = { $id: 'https://x/a.json', type: 'object', properties: { n: { type: 'number' } } };
	const toolB = { type: 'object', properties: { a: { $ref: 'https://x/a.json' } } };
	const notIncluded = /references a schema that is not included \(.*https:\/\/x\/a\.json.*\); external references are never fetched/;

	it('an $id registered by tool A does not resolve tool B\'s external $ref, whatever the order', () => {
		for (const order of [
			[toolA, toolB],
			[toolB, toolA],
		]) {
			jest.isolateModules(() => {
				// eslint-disable-next-line @typescript-eslint/no-var-requires
				const fresh = require('../../lib/tools/argumentValidator') as typeof import('../../lib/tools/argumentValidator');
				for (const schema of order) {
					const outcome = fresh.validateArguments(schema, schema === toolA ? { n: 1 } : { a: { n: 1 } });
					if (schema === toolA) expect(outcome).toEqual({ valid: true });
					else expect(summaryOf(outcome)).toMatch(notIncluded);
				}
			});
		}
	});

	it('nor does an $id nested inside tool A\'s schema', () => {
		const nested = { type: 'object', properties: { inner: { $id: 'https://x/inner.json', type: 'string' } } };
		const user = { type: 'object', properties: { b: { $ref: 'https://x/inner.json' } } };
		expect(validateArguments(nested, { inner: 'x' })).toEqual({ valid: true });
		expect(summaryOf(validateArguments(user, { b: 'x' }))).toContain('references a schema that is not included');
	});
});
