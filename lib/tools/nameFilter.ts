/**
 * Include/exclude filters over tool (or resource, prompt) names with glob patterns: `*` matches
 * any run of characters, `?` one character; matching is case-sensitive like MCP tool names,
 * everywhere (no pattern is ever compared with letter case folded).
 */
export function globToRegExp(pattern: string): RegExp {
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
	// "s": "*" and "?" also match line breaks, so that "*" in Exclude really excludes every name;
	// "u": "?" is one character, also outside the Basic Multilingual Plane.
	return new RegExp(`^${source}$`, 'su');
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
