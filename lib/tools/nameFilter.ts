import { RE2JS } from 're2js';

/** A compiled glob: whether a whole name matches. */
export interface NamePattern {
	test(name: string): boolean;
}

/**
 * Include/exclude filters over tool (or resource, prompt) names with glob patterns: `*` matches
 * any run of characters, `?` one character; matching is case-sensitive like MCP tool names,
 * everywhere (no pattern is ever compared with letter case folded).
 *
 * The names are a server's choice (of any length when they break the MCP rule), and on a
 * backtracking engine "a*b*c" costs the square of a name's length: the glob runs on RE2 (re2js),
 * in time linear in the name. The escapes below are literal characters in both syntaxes; the
 * one-character-class `replace` over the builder's pattern is linear on V8.
 */
export function globToRegExp(pattern: string): NamePattern {
	let source = '';
	let previous = '';
	for (const ch of pattern) {
		// "**" means the same as "*"; collapsing keeps a pattern like "*********x" from backtracking.
		if (ch === '*') {
			if (previous !== '*') source += '.*';
		} else if (ch === '?') source += '.';
		else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
		previous = ch;
	}
	// DOTALL: "*" and "?" also match line breaks, so that "*" in Exclude really excludes every name;
	// RE2 works on code points: "?" is one character, also outside the Basic Multilingual Plane.
	const compiled = RE2JS.compile(source, RE2JS.DOTALL);
	return { test: (name: string) => compiled.testExact(name) };
}

/** Splits "a, b*\nc" into patterns; commas and newlines both separate. */
export function parsePatternList(text: string | string[] | undefined): string[] {
	if (!text) return [];
	const parts = Array.isArray(text) ? text : text.split(/[,\n]/);
	return parts.map((part) => part.trim()).filter(Boolean);
}

export interface NameFilter {
	include: string[];
	exclude: string[];
}

export function createNameMatcher(filter: Partial<NameFilter>): (name: string) => boolean {
	const include = (filter.include ?? []).map(globToRegExp);
	const exclude = (filter.exclude ?? []).map(globToRegExp);
	return (name) => (include.length === 0 || include.some((re) => re.test(name))) && !exclude.some((re) => re.test(name));
}
