// Linear time on server and model text (issue 25): every pattern here is a literal, one character
// class or one run of a class with nothing after it to backtrack into: V8 runs it in one pass.
/**
 * Characters a person cannot see but a model reads: every format character (Unicode category Cf:
 * zero-width and bidirectional controls, invisible operators, number signs, hieroglyph and
 * shorthand format controls, tags) and every default-ignorable code point (fillers, variation
 * selectors, unassigned ignorable ranges), plus the line and paragraph separators. The ranges
 * below name the usual suspects; the two property classes cover the rest of the standard.
 * One definition, used both to flag text (poisoning scan) and to make it visible on the review page.
 */
const RANGES = [
	'\\p{Cf}',
	'\\p{Default_Ignorable_Code_Point}',
	'\\u00AD', // soft hyphen
	'\\u034F', // combining grapheme joiner
	'\\u061C', // Arabic letter mark
	'\\u115F\\u1160', // Hangul fillers
	'\\u17B4\\u17B5', // Khmer inherent vowels
	'\\u180B-\\u180F', // Mongolian variation selectors and vowel separator
	'\\u200B-\\u200F', // zero-width space, joiners, LRM/RLM
	'\\u2028-\\u202E', // line/paragraph separators, bidi embeddings and overrides
	'\\u2060-\\u206F', // word joiner, invisible operators, bidi isolates, deprecated format characters
	'\\u3164', // Hangul filler
	'\\uFE00-\\uFE0F', // variation selectors
	'\\uFEFF', // zero-width no-break space (BOM)
	'\\uFFA0', // halfwidth Hangul filler
	'\\uFFF9-\\uFFFB', // interlinear annotation
	'\\u{1D173}-\\u{1D17A}', // musical formatting
	'\\u{E0000}-\\u{E007F}', // tag characters
	'\\u{E0100}-\\u{E01EF}', // variation selectors supplement
];

const CLASS = `[${RANGES.join('')}]`;

/** Tests whether text holds at least one invisible character. */
export const INVISIBLE_CHARACTER = new RegExp(CLASS, 'u');

/** Global form, for replacing every invisible character. */
export function invisibleCharacters(): RegExp {
	return new RegExp(CLASS, 'gu');
}

/** "[U+200B]" for one character. */
export function codePointLabel(ch: string): string {
	return `[U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`;
}
