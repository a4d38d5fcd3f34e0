import { invisibleCharacters } from './invisibleCharacters';

// Linear time on server and model text (issue 25): every pattern here is a literal, one character
// class or one run of a class with nothing after it to backtrack into: V8 runs it in one pass.

/**
 * Text that goes into the ready-to-send summaries (Slack, Teams, e-mail, Telegram). Tool and server
 * names and warnings come from MCP servers and must not be able to forge the message: no new line
 * (a fake "Review and decide: <link>"), no link, no formatting that hides text. Arguments are shown
 * in full inside a code fence the content cannot close.
 */

/** Line breaks and other control characters (C0, DEL, C1, line and paragraph separators). */
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/gu;

/** Markdown link and format syntax, and the backslash that escapes it. */
const MARKDOWN_SYNTAX = /[\\[\]()*_`~|]/g;

function label(ch: string): string {
	return `{U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`;
}

/**
 * One line of inert text, for names and warnings outside code fences: control characters become
 * spaces, invisible ones a visible `{U+XXXX}`, `<` `>` (Slack's `<url|text>`, HTML) become ‹ ›,
 * URL schemes and `www.` are defanged so no renderer links them, and Markdown syntax is escaped
 * with a backslash. An underscore inside a word (`delete_file`) formats nothing and stays as it is.
 */
export function inlineText(value: unknown): string {
	return String(value ?? '')
		.replace(CONTROL, ' ')
		.replace(invisibleCharacters(), label)
		.replace(/</g, '‹')
		.replace(/>/g, '›')
		.replace(/:\/\//g, '[:]//')
		.replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}[.]`)
		.replace(MARKDOWN_SYNTAX, (ch, offset: number, whole: string) =>
			ch === '_' && /[\p{L}\p{N}]/u.test(whole[offset - 1] ?? '') && /[\p{L}\p{N}]/u.test(whole[offset + 1] ?? '') ? ch : `\\${ch}`,
		);
}

/**
 * Pretty JSON in which every character that could end a line or hide is written as a JSON escape
 * (`\u2028`, `\u200b`): the same value, so the argument hash is unchanged, but visible. Control
 * characters below U+0020 are escaped by JSON itself.
 */
export function visibleJson(value: unknown): string {
	const json = JSON.stringify(value ?? {}, null, 2) ?? '{}';
	const escape = (text: string) => [...text].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
	return json
		.replace(/[\u007F-\u009F\u2028\u2029]/gu, escape)
		.replace(invisibleCharacters(), (ch) => ch.split('').map(escape).join(''));
}

/** A fenced block whose fence is longer than any backtick run in the content, so the content cannot close it. */
export function codeFence(content: string, info = ''): string {
	const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
	const fence = '`'.repeat(Math.max(3, longest + 1));
	return `${fence}${info}\n${content}\n${fence}`;
}

/** A URL for a Markdown link target: characters that could end the target or the line are percent-encoded. */
export function linkTarget(url: string): string {
	return url.replace(/[\s()<>[\]`"']/gu, (ch) => [...Buffer.from(ch, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}
