import { RE2JS } from 're2js';

/**
 * Runs the regular expressions of a server's JSON Schema (`pattern`, `patternProperties`) on RE2,
 * whose matching time is linear in the input: a backtracking engine such as V8's RegExp can be made
 * to take exponential time by a pattern like `^(a+)+$`, and that blocks n8n's event loop.
 *
 * JSON Schema patterns are ECMA-262 regular expressions, RE2 has its own syntax: each pattern is
 * translated so that it means what ECMA-262 says (with the "u" flag Ajv passes), and a pattern RE2
 * cannot run at all (lookaround, backreferences) is refused rather than approximated.
 */
export class UnsupportedPatternError extends Error {
	constructor(
		readonly pattern: string,
		/** Why, in a few words: "lookahead", "backreference", RE2's own parse error... */
		readonly reason: string,
	) {
		super(`the pattern ${JSON.stringify(pattern)} is not supported by the safe regular-expression engine (${reason})`);
		this.name = 'UnsupportedPatternError';
	}
}

/** The only flag Ajv passes; RE2 always works on code points, as ECMA-262 does with "u". */
const SUPPORTED_FLAGS = /^u?$/;

/** ECMA-262 WhiteSpace and LineTerminator: what `\s` means there (RE2's `\s` is ASCII only). */
const WHITESPACE_RANGES: Array<[number, number]> = [
	[0x09, 0x0d],
	[0x20, 0x20],
	[0xa0, 0xa0],
	[0x1680, 0x1680],
	[0x2000, 0x200a],
	[0x2028, 0x2029],
	[0x202f, 0x202f],
	[0x205f, 0x205f],
	[0x3000, 0x3000],
	[0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

function hex(codePoint: number): string {
	return `\\x{${codePoint.toString(16)}}`;
}

function rangesText(ranges: Array<[number, number]>): string {
	return ranges.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('');
}

function complement(ranges: Array<[number, number]>): Array<[number, number]> {
	const result: Array<[number, number]> = [];
	let next = 0;
	for (const [from, to] of ranges) {
		if (from > next) result.push([next, from - 1]);
		next = to + 1;
	}
	if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
	return result;
}

/** Class contents (without brackets), so that they also work inside a class such as `[\s\d]`. */
const SPACE_CLASS_BODY = rangesText(WHITESPACE_RANGES);
const NOT_SPACE_CLASS_BODY = rangesText(complement(WHITESPACE_RANGES));
/** ECMA-262's `.` without the "s" flag: anything but a line terminator (RE2's excludes only \n). */
const DOT = `[^${rangesText([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]])}]`;
const ANYTHING = `[\\x{0}-\\x{10ffff}]`;
const NOTHING = `[^\\x{0}-\\x{10ffff}]`;

/** ECMA-262's long General_Category names that RE2 knows only by their short form. */
const CATEGORY_ALIASES: Record<string, string> = {
	Letter: 'L',
	Uppercase_Letter: 'Lu',
	Lowercase_Letter: 'Ll',
	Titlecase_Letter: 'Lt',
	Modifier_Letter: 'Lm',
	Other_Letter: 'Lo',
	Mark: 'M',
	Number: 'N',
	Decimal_Number: 'Nd',
	digit: 'Nd',
	Letter_Number: 'Nl',
	Other_Number: 'No',
	Punctuation: 'P',
	punct: 'P',
	Symbol: 'S',
	Separator: 'Z',
	Space_Separator: 'Zs',
	Other: 'C',
	Control: 'Cc',
	cntrl: 'Cc',
};

function unicodeProperty(body: string, pattern: string): string {
	const [name, value] = body.includes('=') ? body.split('=', 2) : ['', body];
	if (name === '' || name === 'General_Category' || name === 'gc' || name === 'Script' || name === 'sc') {
		return CATEGORY_ALIASES[value] ?? value;
	}
	throw new UnsupportedPatternError(pattern, `the Unicode property \\p{${body}}`);
}

/** Reads `\uXXXX` (a surrogate pair of two such escapes is one code point) or `\u{X...}`. */
function unicodeEscape(pattern: string, at: number): { codePoint: number; length: number } | undefined {
	const braced = /^\\u\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(at, at + 10));
	if (braced) return { codePoint: parseInt(braced[1], 16), length: braced[0].length };
	const four = /^\\u([0-9a-fA-F]{4})(?:\\u([0-9a-fA-F]{4}))?/.exec(pattern.slice(at, at + 12));
	if (!four) return undefined;
	const high = parseInt(four[1], 16);
	const low = four[2] === undefined ? undefined : parseInt(four[2], 16);
	if (high >= 0xd800 && high <= 0xdbff && low !== undefined && low >= 0xdc00 && low <= 0xdfff) {
		return { codePoint: 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00), length: 12 };
	}
	return { codePoint: high, length: 6 };
}

/** Translates the escape at `at` (a backslash); returns RE2 text and how many characters it used. */
function translateEscape(pattern: string, at: number, inClass: boolean): [string, number] {
	const letter = pattern[at + 1];
	switch (letter) {
		case undefined:
			throw new UnsupportedPatternError(pattern, 'a trailing backslash');
		case 's':
			return [inClass ? SPACE_CLASS_BODY : `[${SPACE_CLASS_BODY}]`, 2];
		case 'S':
			return [inClass ? NOT_SPACE_CLASS_BODY : `[${NOT_SPACE_CLASS_BODY}]`, 2];
		case 'b':
			// In a class, \b is the backspace character; outside, a word boundary in both syntaxes.
			return [inClass ? hex(8) : '\\b', 2];
		case '0':
			return [hex(0), 2];
		case 'c': {
			const control = pattern[at + 2];
			if (control === undefined || !/[A-Za-z]/.test(control)) throw new UnsupportedPatternError(pattern, 'an incomplete \\c escape');
			return [hex(control.charCodeAt(0) % 32), 3];
		}
		case 'u': {
			const escape = unicodeEscape(pattern, at);
			if (!escape) throw new UnsupportedPatternError(pattern, 'an incomplete \\u escape');
			return [hex(escape.codePoint), escape.length];
		}
		case 'p':
		case 'P': {
			const end = pattern.indexOf('}', at);
			if (pattern[at + 2] !== '{' || end < 0) throw new UnsupportedPatternError(pattern, `an incomplete \\${letter} escape`);
			return [`\\${letter}{${unicodeProperty(pattern.slice(at + 3, end), pattern)}}`, end - at + 1];
		}
		case 'k':
			throw new UnsupportedPatternError(pattern, 'backreference');
		default:
			if (letter >= '1' && letter <= '9') throw new UnsupportedPatternError(pattern, 'backreference');
			// \d \D \w \W \B \t \n \v \f \r \xHH and escaped punctuation mean the same in RE2.
			return [`\\${letter}`, 2];
	}
}

/** ECMA-262 pattern (as compiled with the "u" flag) -> RE2 pattern with the same meaning. */
export function toRe2Syntax(pattern: string): string {
	let out = '';
	let inClass = false;
	let at = 0;
	while (at < pattern.length) {
		const char = pattern[at];
		if (char === '\\') {
			const [text, used] = translateEscape(pattern, at, inClass);
			out += text;
			at += used;
		} else if (inClass) {
			if (char === ']') inClass = false;
			// A "[" in an ECMA-262 class is literal; RE2 would read "[:alpha:]" as a POSIX class.
			out += char === '[' ? '\\[' : char;
			at += 1;
		} else if (char === '[') {
			if (pattern.startsWith('[]', at)) {
				out += NOTHING;
				at += 2;
			} else if (pattern.startsWith('[^]', at)) {
				out += ANYTHING;
				at += 3;
			} else {
				inClass = true;
				const negated = pattern[at + 1] === '^';
				out += negated ? '[^' : '[';
				at += negated ? 2 : 1;
			}
		} else if (char === '(' && pattern[at + 1] === '?') {
			const kind = pattern.slice(at + 2, at + 4);
			if (kind[0] === '=' || kind[0] === '!') throw new UnsupportedPatternError(pattern, 'lookahead');
			if (kind === '<=' || kind === '<!') throw new UnsupportedPatternError(pattern, 'lookbehind');
			out += '(?';
			at += 2;
		} else if (char === '.') {
			out += DOT;
			at += 1;
		} else {
			out += char;
			at += 1;
		}
	}
	return out;
}

/**
 * "^body$" without a top-level "|": the body, which RE2's anchored check matches several times
 * faster than its unanchored search for "^...$"; undefined otherwise. Most schema patterns look so.
 */
export function anchoredBody(re2Pattern: string): string | undefined {
	if (!re2Pattern.startsWith('^') || !re2Pattern.endsWith('$') || re2Pattern.length < 2) return undefined;
	let depth = 0;
	let inClass = false;
	for (let at = 1; at < re2Pattern.length - 1; at++) {
		const char = re2Pattern[at];
		if (char === '\\') {
			// The final "$" is escaped (a literal dollar): not an anchor.
			if (at === re2Pattern.length - 2) return undefined;
			at += 1;
		} else if (inClass) inClass = char !== ']';
		else if (char === '[') {
			inClass = true;
			// "[]..." and "[^]..." : RE2 reads a "]" right after the opening as a literal.
			if (re2Pattern[at + 1] === '^') at += 1;
			if (re2Pattern[at + 1] === ']') at += 1;
		} else if (char === '(') depth += 1;
		else if (char === ')') depth -= 1;
		else if (char === '|' && depth === 0) return undefined;
	}
	return inClass ? undefined : re2Pattern.slice(1, -1);
}

/** What Ajv calls `.test()` on; `toString()` is Ajv's cache key for the pattern, so it must be unique. */
class SafeRegExp {
	private readonly exact: boolean;
	private readonly compiled: RE2JS;

	constructor(
		re2Pattern: string,
		private readonly source: string,
		private readonly flags: string,
	) {
		const body = anchoredBody(re2Pattern);
		this.exact = body !== undefined;
		this.compiled = RE2JS.compile(body ?? re2Pattern);
	}

	test(text: string): boolean {
		return this.exact ? this.compiled.testExact(text) : this.compiled.test(text);
	}

	toString(): string {
		return `/${this.source}/${this.flags} (RE2)`;
	}
}

/**
 * Ajv's `code.regExp` option: compiles `pattern` for RE2, or throws UnsupportedPatternError.
 * The pattern must also be valid ECMA-262 (checked by V8's parser, which only parses here and
 * never matches), so that a schema is not accepted here that other validators would refuse.
 */
export function safeRegExp(pattern: string, flags: string): SafeRegExp {
	if (!SUPPORTED_FLAGS.test(flags)) throw new UnsupportedPatternError(pattern, `the flags "${flags}"`);
	try {
		new RegExp(pattern, flags);
	} catch (error) {
		throw new UnsupportedPatternError(pattern, `not a valid regular expression: ${(error as Error).message}`);
	}
	const translated = toRe2Syntax(pattern);
	try {
		return new SafeRegExp(translated, pattern, flags);
	} catch (error) {
		const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
		throw new UnsupportedPatternError(pattern, reason);
	}
}
/** Only used by Ajv's standalone code generation, which this package never runs. */
safeRegExp.code = 'safeRegExp';
