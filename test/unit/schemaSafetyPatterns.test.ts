import { safeRegExp, toRe2Syntax, UnsupportedPatternError } from '../../lib/tools/safeRegExp';

/**
 * The safe engine must agree with ECMA-262 (V8's RegExp with the "u" flag, as Ajv compiles
 * patterns) on the patterns JSON Schemas use: the same verdict on every input below.
 */
const PATTERNS = [
	'^[a-z]+$',
	'\\d{3}',
	'abc',
	'^abc',
	'abc$',
	'^\\w+$',
	'^\\W',
	'\\bword\\b',
	'^\\s*$',
	'^\\S+$',
	'[\\s\\S]',
	'^[^\\s]+$',
	'^[\\s\\d]+$',
	'^.+$',
	'^.$',
	'^[A-Z]{3}-[0-9]{4,8}$',
	'^[0-9]{5}(-[0-9]{3})?$',
	'^(?:\\+?1)?\\d{10}$',
	'^(?<year>\\d{4})-(?<month>\\d{2})$',
	'^\\p{L}+$',
	'^\\p{Lu}',
	'^\\P{L}+$',
	'^\\p{Letter}+$',
	'^\\p{Script=Greek}+$',
	'^\\p{sc=Latin}+$',
	'^\\p{gc=Nd}+$',
	'^\\u0041+$',
	'^\\u{1F600}$',
	'^\\uD83D\\uDE00$',
	'^[\\u0030-\\u0039]+$',
	'^\\x41',
	'^\\cJ$',
	'^\\0$',
	'^[\\b]$',
	'^\\t\\n\\v\\f\\r$',
	'[.]',
	'\\.',
	'^a/b$',
	'^a\\/b$',
	'^[[]$',
	'^[[:alpha:]+$',
	'^[]$',
	'^[^]$',
	'^(a|ab)(c|bcd)$',
	'^a*?b+?c??$',
	'^(a+)+$',
	'^[^a-z]',
	'^[\\-+]?\\d+(\\.\\d+)?$',
	'^https?://[^/]+/',
	'😀+',
	// Anchored patterns are checked with RE2's anchored match: only when the anchors hold the whole pattern.
	'^a|b$',
	'^(a|b)$',
	'^\\$$',
	'^a\\$',
	'^$',
	'^[\\]$]$',
	'^[^]x$',
	'^[]|a$',
];

const INPUTS = [
	'',
	'abc',
	'abC',
	'abc\n',
	'xxabcxx',
	'123',
	'ab123cd',
	'ab12cd',
	'word',
	'a word here',
	'swordfish',
	' \t\n',
	'\u00a0',
	'\u2028',
	'\ufeff',
	'\v',
	'\r',
	'no\u00a0break',
	'ABC-12345',
	'12345-678',
	'+15551234567',
	'2024-05',
	'Ελληνικά',
	'Éa',
	'éa',
	'Latin',
	'٣٤',
	'AAA',
	'😀',
	'😀😀',
	'\n',
	'\0',
	'\b',
	'\t\n\v\f\r',
	'.',
	'a',
	'a/b',
	'[',
	':',
	'alpha',
	'abcd',
	'abbc',
	'aaaa',
	`${'a'.repeat(30)}!`,
	'-1.5',
	'https://example.com/x',
	'_',
	'ax',
	'xb',
	'b',
	'$',
	'a$',
	']',
	']]',
	'yx',
];

describe('the safe engine agrees with ECMA-262', () => {
	it.each(PATTERNS)('%s', (pattern) => {
		const native = new RegExp(pattern, 'u');
		const safe = safeRegExp(pattern, 'u');
		// The pathological input on a backtracking engine: only its verdict is known without running it.
		const disagreements = INPUTS.filter((input) => !(pattern === '^(a+)+$' && input.endsWith('!')) && safe.test(input) !== native.test(input));
		expect(disagreements).toEqual([]);
	});

	it('decides the pathological input the way ECMA-262 would (no match)', () => {
		expect(safeRegExp('^(a+)+$', 'u').test(`${'a'.repeat(30)}!`)).toBe(false);
	});

	it('gives different patterns different cache keys (Ajv shares compiled patterns by toString())', () => {
		expect(String(safeRegExp('a', 'u'))).not.toBe(String(safeRegExp('b', 'u')));
	});
});

describe('what the safe engine refuses', () => {
	const reasonOf = (pattern: string, flags = 'u'): string => {
		try {
			safeRegExp(pattern, flags);
		} catch (error) {
			expect(error).toBeInstanceOf(UnsupportedPatternError);
			return (error as UnsupportedPatternError).reason;
		}
		throw new Error(`expected ${pattern} to be refused`);
	};

	it('lookaround and backreferences, by name', () => {
		expect(reasonOf('(?=x)')).toBe('lookahead');
		expect(reasonOf('a(?!x)')).toBe('lookahead');
		expect(reasonOf('(?<=x)a')).toBe('lookbehind');
		expect(reasonOf('(?<!x)a')).toBe('lookbehind');
		expect(reasonOf('(a)\\1')).toBe('backreference');
		expect(reasonOf('(?<n>a)\\k<n>')).toBe('backreference');
	});

	it('not when the same characters are escaped or inside a class', () => {
		expect(safeRegExp('\\(?=x', 'u').test('(=x')).toBe(true);
		expect(safeRegExp('[(?=]', 'u').test('=')).toBe(true);
	});

	it('flags other than "u", invalid patterns, and what RE2 cannot compile', () => {
		expect(reasonOf('a', 'g')).toBe('the flags "g"');
		expect(reasonOf('(', 'u')).toMatch(/^not a valid regular expression: /);
		expect(reasonOf('((a{100}){100}){100}')).toMatch(/repeat/);
		expect(reasonOf('\\p{Script_Extensions=Greek}')).toBe('the Unicode property \\p{Script_Extensions=Greek}');
	});

	it('translates to RE2 syntax without touching what already means the same', () => {
		expect(toRe2Syntax('^[a-z]+\\d{3}(?:x|y)$')).toBe('^[a-z]+\\d{3}(?:x|y)$');
	});
});
