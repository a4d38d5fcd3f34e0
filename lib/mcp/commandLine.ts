/**
 * Parsing of the stdio credential's text fields. No shell is ever involved: arguments are split
 * here, so quoting rules are ours and documented in the README.
 */

export class ConfigFormatError extends Error {
	constructor(message: string) {
		super(message);
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
		} catch (error) {
			throw new ConfigFormatError(`${field}: starts with "[" but is not a valid JSON array (${(error as Error).message})`);
		}
		if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string')) {
			throw new ConfigFormatError(`${field}: a JSON array must contain only strings`);
		}
		return parsed as string[];
	}
	return splitWords(trimmed, field);
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
		} else if (/\s/.test(ch)) {
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
 * lines starting with # are skipped; the value is everything after the first "=", verbatim).
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
		const env: Record<string, string> = {};
		for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
			checkVariableName(name, field);
			if (typeof value !== 'string') throw new ConfigFormatError(`${field}: the value of ${name} must be a string`);
			env[name] = value;
		}
		return env;
	}
	const env: Record<string, string> = {};
	trimmed.split(/\r?\n/).forEach((line, index) => {
		const content = line.trim();
		if (content === '' || content.startsWith('#')) return;
		const eq = content.indexOf('=');
		if (eq <= 0) throw new ConfigFormatError(`${field}: line ${index + 1} must look like NAME=value`);
		const name = content.slice(0, eq).trim();
		checkVariableName(name, field, index + 1);
		env[name] = content.slice(eq + 1);
	});
	return env;
}

function checkVariableName(name: string, field: string, line?: number): void {
	if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
		const where = line ? `line ${line}` : `"${name}"`;
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
		if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigFormatError(`${field}: ${where} has an invalid header name`);
		if (typeof value !== 'string') throw new ConfigFormatError(`${field}: the value of header ${name} must be a string`);
		if (/[\r\n]/.test(value)) throw new ConfigFormatError(`${field}: the value of header ${name} contains a line break`);
		headers[name] = value;
	};
	if (trimmed.startsWith('{')) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			throw new ConfigFormatError(`${field}: starts with "{" but is not a valid JSON object`);
		}
		for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) add(name, value, `"${name}"`);
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
