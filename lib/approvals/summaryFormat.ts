import { invisibleCharacters } from '../tools/invisibleCharacters';

// Linear time on server and model text (issue 25): every pattern here is a literal, one character
// class or one run of a class with nothing after it to backtrack into: V8 runs it in one pass.

/**
 * Text that goes into the ready-to-send summaries (Slack, Teams, e-mail, Telegram). Tool and server
 * names and warnings come from MCP servers and must not be able to forge the message: no new line
 * (a fake "Review and decide: <link>"), no link, no formatting that hides text. Arguments are shown
 * in full inside a code block the content cannot close in any of the channels' grammars.
 *
 * What the channels do with the text (docs/human-review.md has the rules and their sources):
 * - n8n's send-and-wait nodes first decode `&amp; &lt; &gt; &quot; &#39;` and turn the two
 *   characters `\n` and `<br>` into line breaks (getSendAndWaitConfig), then Slack reads mrkdwn,
 *   Telegram legacy Markdown, e-mail HTML.
 * - Slack mrkdwn: `<…>` is a link or mention everywhere, code blocks included; ``` ends a block
 *   wherever it stands, whatever the opening fence's length.
 * - Telegram legacy Markdown (what n8n's Telegram node sends): ``` ends a pre block wherever it
 *   stands; `_ * \` [` open entities anywhere, even inside a word; a backslash escapes them only
 *   outside entities.
 */

/** Line breaks and other control characters (C0, DEL, C1, line and paragraph separators). */
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/gu;

/** Markdown link and format syntax, and the backslash that escapes it. */
const MARKDOWN_SYNTAX = /[\\[\]()*_`~|]/g;

function label(ch: string): string {
	return `{U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`;
}

/** An HTML character reference, which n8n's send-and-wait nodes (some of them) and e-mail clients decode. */
const CHARACTER_REFERENCE = /&(?=#?[A-Za-z0-9]+;)/g;

/**
 * One line of text no channel reads as markup, before each grammar's own escaping: control
 * characters become spaces, invisible ones a visible `{U+XXXX}`, `<` `>` (Slack's `<url|text>`, HTML)
 * become ‹ ›, an `&` that starts a character reference becomes ＆ (send-and-wait decodes `&lt;` into
 * `<`), a backslash before `n` becomes `{U+005C}` (send-and-wait turns `\n` into a line break), and
 * URL schemes and `www.` are defanged so no renderer links them.
 */
function inertText(value: unknown): string {
	return String(value ?? '')
		.replace(CONTROL, ' ')
		.replace(invisibleCharacters(), label)
		.replace(/\\(?=n)/g, label)
		.replace(/</g, '‹')
		.replace(/>/g, '›')
		.replace(CHARACTER_REFERENCE, '＆')
		.replace(/:\/\//g, '[:]//')
		.replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}[.]`);
}

/**
 * One line of inert text for Markdown (and plain text), for names and warnings outside code blocks:
 * `inertText`, with Markdown syntax escaped by a backslash. An underscore inside a word
 * (`delete_file`) formats nothing in CommonMark and stays as it is.
 */
export function inlineText(value: unknown): string {
	return inertText(value).replace(MARKDOWN_SYNTAX, (ch, offset: number, whole: string) =>
		ch === '_' && /[\p{L}\p{N}]/u.test(whole[offset - 1] ?? '') && /[\p{L}\p{N}]/u.test(whole[offset + 1] ?? '') ? ch : `\\${ch}`,
	);
}

/**
 * One line of inert text for Telegram's legacy Markdown, outside entities: `inertText`, with the four
 * characters that open an entity (`_ * \` [`) escaped by a backslash everywhere, inside words too.
 * No other backslash is added: legacy Markdown would show it.
 */
export function telegramText(value: unknown): string {
	return inertText(value).replace(/[_*`[]/g, (ch) => `\\${ch}`);
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

/** A fenced block whose fence is longer than any backtick run in the content (CommonMark's rule; other grammars ignore it). */
export function codeFence(content: string, info = ''): string {
	const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
	const fence = '`'.repeat(Math.max(3, longest + 1));
	return `${fence}${info}\n${content}\n${fence}`;
}

/**
 * `visibleJson` for a message: the same value (so the same hash), with every character a channel
 * could read as markup inside a code block written as a JSON escape: the backtick (\u0060: no ```
 * can end the block in Slack or Telegram), `<` and `>` (\u003c, \u003e: no Slack link or mention,
 * no HTML tag), an `&` that starts a character reference (\u0026: send-and-wait decodes `&lt;`), and
 * a backslash written before an `n` (\u005c: send-and-wait would read `\n` as a line break).
 */
export function channelJson(value: unknown): string {
	return visibleJson(value)
		.replace(/\\(?:u[0-9a-fA-F]{4}|.)/g, (escape, offset: number, whole: string) => (escape === '\\\\' && whole[offset + 2] === 'n' ? '\\u005c' : escape))
		.replace(/`/g, '\\u0060')
		.replace(/</g, '\\u003c')
		.replace(/>/g, '\\u003e')
		.replace(CHARACTER_REFERENCE, '\\u0026');
}

/** A call's arguments as a code block: `channelJson` holds no backtick, so a plain ``` fence is safe in every grammar. */
export function argumentsBlock(value: unknown, info = ''): string {
	return codeFence(channelJson(value), info);
}

/** A URL for a Markdown link target: characters that could end the target or the line are percent-encoded. */
export function linkTarget(url: string): string {
	return url.replace(/[\s()<>[\]`"']/gu, (ch) => [...Buffer.from(ch, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}
