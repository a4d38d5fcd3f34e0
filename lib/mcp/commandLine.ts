import { McpAgentError } from '../errors';

/**
 * Parsing of the stdio credential's text fields. No shell is ever involved: arguments are split
 * here, so quoting rules are ours and documented in docs/credentials.md.
 */

export class ConfigFormatError extends McpAgentError {
	constructor(message: string) {
		super(message, { code: 'config', description: 'Correct the field the message names (in the credential or the node\'s options), then run the workflow again. The package\'s credentials documentation shows the formats each field takes.' });
		this.name = 'ConfigFormatError';
	}
}

/**
 * Arguments are either a JSON array of strings, or words separated by whitespace where
 * "double" or 'single' quotes keep spaces together and a backslash escapes the next character
 * (outside single quotes). Newlines count as whitespace, so one argument per line also works.
 */
export function parseArguments(text: string, field = 'Arguments'): string[] {
	const trimmed = text.trim();
	if (trimmed === '') return [];
	if (trimmed.startsWith('[')) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			// Not the parser's message: it quotes the text around the mistake, often a key's value.
			throw new ConfigFormatError(`${field}: starts with "[" but is not a valid JSON array`);
		}
		if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string')) {
			throw new ConfigFormatError(`${field}: a JSON array must contain only strings`);
		}
		return checkedWords(parsed as string[], field);
	}
	return checkedWords(splitWords(trimmed, field), field);
}

function checkedWords(words: string[], field: string): string[] {
	words.forEach((word, index) => checkNoNul(word, `${field}: argument ${index + 1}`));
	return words;
}

function splitWords(text: string, field: string): string[] {
	const words: string[] = [];
	let current = '';
	let inWord = false;
	let quote: '"' | "'" | null = null;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (quote === "'") {
			if (ch === "'") quote = null;
			else current += ch;
			continue;
		}
		if (ch === '\\' && i + 1 < text.length) {
			// A backslash at the end of a line continues the command on the next, as in a shell
			// (commands copied from a README); inside double quotes too.
			const next = text[i + 1];
			if (next === '\n' || (next === '\r' && text[i + 2] === '\n')) {
				i += next === '\n' ? 1 : 2;
				continue;
			}
			current += text[++i];
			inWord = true;
			continue;
		}
		if (quote === '"') {
			if (ch === '"') quote = null;
			else current += ch;
			continue;
		}
		if (ch === '"' || ch === "'") {
			quote = ch;
			inWord = true;
		} else if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
			// Only the separators a shell knows: a no-break space or a BOM stays in its word.
			if (inWord) words.push(current);
			current = '';
			inWord = false;
		} else {
			current += ch;
			inWord = true;
		}
	}
	if (quote) throw new ConfigFormatError(`${field}: unclosed ${quote} quote`);
	if (inWord) words.push(current);
	return words;
}

/**
 * Environment variables: a JSON object of strings, or one NAME=value per line (blank lines and
 * lines starting with # are skipped; the value is everything after the first "=", verbatim but for
 * spaces at the ends of the line).
 * Error messages name the line but never echo a value, since values may be secrets.
 */
export function parseEnvironment(text: string, field = 'Environment Variables'): Record<string, string> {
	const trimmed = text.trim();
	if (trimmed === '') return {};
	if (trimmed.startsWith('{')) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			throw new ConfigFormatError(`${field}: starts with "{" but is not a valid JSON object`);
		}
		// No prototype while filling: "__proto__" is then a variable name like any other.
		const env: Record<string, string> = Object.create(null) as Record<string, string>;
		for (const [index, [name, value]] of Object.entries(parsed as Record<string, unknown>).entries()) {
			checkVariableName(name, field, `entry ${index + 1}`);
			if (typeof value !== 'string') throw new ConfigFormatError(`${field}: the value of ${name} must be a string`);
			checkNoNul(value, `${field}: the value of ${name}`);
			env[name] = value;
		}
		return { ...env };
	}
	const env: Record<string, string> = Object.create(null) as Record<string, string>;
	trimmed.split(/\r?\n/).forEach((line, index) => {
		// Spaces around the line are indentation or a slip of the editor; use JSON to keep them.
		const content = line.trim();
		if (content === '' || content.startsWith('#')) return;
		const eq = content.indexOf('=');
		if (eq <= 0) throw new ConfigFormatError(`${field}: line ${index + 1} must look like NAME=value`);
		const name = content.slice(0, eq).trim();
		checkVariableName(name, field, `line ${index + 1}`);
		const value = content.slice(eq + 1);
		checkNoNul(value, `${field}: the value of ${name}`);
		env[name] = value;
	});
	return { ...env };
}

/** `where` names the line or entry, never the name itself: a malformed name may hold the secret (API_KEY=sk-…). */
function checkVariableName(name: string, field: string, where: string): void {
	if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
		throw new ConfigFormatError(`${field}: ${where} has an invalid variable name (letters, digits and _ only)`);
	}
}

/**
 * Custom HTTP headers: a JSON object, or one "Name: value" per line. Values are secrets and are
 * never echoed in errors.
 */
export function parseHeaders(text: string, field = 'Headers'): Record<string, string> {
	const trimmed = text.trim();
	if (trimmed === '') return {};
	const headers: Record<string, string> = {};
	const add = (name: string, value: unknown, where: string) => {
		if (!isHeaderName(name)) throw new ConfigFormatError(`${field}: ${where} has an invalid header name`);
		if (typeof value !== 'string') throw new ConfigFormatError(`${field}: the value of header ${name} must be a string`);
		const problem = headerValueProblem(value);
		if (problem) throw new ConfigFormatError(`${field}: the value of header ${name} ${problem}`);
		headers[name] = value;
	};
	if (trimmed.startsWith('{')) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			throw new ConfigFormatError(`${field}: starts with "{" but is not a valid JSON object`);
		}
		// Entries are named by position: a malformed name may hold the secret ("Authorization: Bearer x").
		Object.entries(parsed as Record<string, unknown>).forEach(([name, value], index) => add(name, value, `entry ${index + 1}`));
		return headers;
	}
	trimmed.split(/\r?\n/).forEach((line, index) => {
		const content = line.trim();
		if (content === '') return;
		const colon = content.indexOf(':');
		if (colon <= 0) throw new ConfigFormatError(`${field}: line ${index + 1} must look like Name: value`);
		add(content.slice(0, colon).trim(), content.slice(colon + 1).trim(), `line ${index + 1}`);
	});
	return headers;
}

/** RFC 7230 token: the characters a header name may have. */
export function isHeaderName(name: string): boolean {
	return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

/**
 * Why a header value cannot be sent, or undefined when it can. RFC 7230 allows visible characters,
 * spaces, tabs and Latin-1 (obs-text); a line break would start a new header (fetch refuses it and
 * echoes the whole value in its error), other control characters and characters beyond Latin-1
 * are refused by fetch too. The reason never contains the value.
 */
export function headerValueProblem(value: string): string | undefined {
	if (/[\r\n]/.test(value)) return 'contains a line break';
	if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'contains a control character';
	if (/[^\x00-\xff]/.test(value)) return 'contains a character that cannot be sent in an HTTP header (such as a typographic quote or an emoji)';
	return undefined;
}

/**
 * Node's spawn refuses NUL in arguments and environment values with an error that quotes the
 * value; refuse it here first, naming the place and never the value.
 */
export function checkNoNul(value: string, where: string): void {
	if (value.includes('\u0000')) throw new ConfigFormatError(`${where} contains a NUL character (\\0); remove it`);
}
