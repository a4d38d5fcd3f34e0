/**
 * Issue 25: no argument can end its code block or add a link, mention or formatting in any channel
 * the examples and recipes send the summaries to. Each channel is read here by a small reader of its
 * own documented rule (not by the escaping code), after what n8n's send-and-wait nodes do to the
 * message first:
 * - n8n (packages/nodes-base/utils/sendAndWait/utils.ts, getSendAndWaitConfig, with utilities.ts
 *   escapeHtml): decodes `&amp; &lt; &gt; &#39; &quot;`, trims, turns the two characters `\n` and
 *   `<br>` into line breaks. Telegram's send-and-wait then sends with `parse_mode: 'Markdown'` and
 *   appends `_This message was sent automatically with _[n8n](…)`; Slack's puts the text in a
 *   section block of type mrkdwn; the e-mail ones put it as it is inside `<p>` of an HTML mail.
 * - Slack mrkdwn (Slack's "Formatting text for app surfaces"): `&`, `<`, `>` are control characters
 *   (`<url|text>`, `<@U…>`, `<!channel>`), wherever they stand; ``` opens and the next ``` closes a
 *   block, whatever the fence's length.
 * - Telegram legacy Markdown (Bot API, "Markdown style"): `*bold*`, `_italic_`, `` `code` ``,
 *   ```pre```, `[text](url)`; `\` escapes `_ * ` [` outside entities only; no escaping inside an
 *   entity; an entity that is not closed fails the whole message.
 * - CommonMark (n8n's chat, Discord, Teams): a fenced block closes at a line of at least as many
 *   backticks as it opened with, and nothing else.
 */
import { createRun, nextEffect, step } from '../../lib/agent/step';
import type { AgentState } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { buildApprovalRequest } from '../../lib/approvals/approvalRequest';

const MARK = 'PAYLOAD';
const REVIEW_URL = 'https://n8n.example/webhook-waiting/7?signature=ab12&reviewToken=a_b-c_d';
const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };

function pausedRun(args: unknown, tool = 'run_command', server = 'shell'): AgentState {
	const catalog: CatalogTool[] = [{ providerName: 'run_command', mcpName: tool, serverId: 's', serverName: server, inputSchema: { type: 'object' }, annotationsTrusted: false, fingerprint: 'sha256:aaa', warnings: [] }];
	let state = createRun({
		provider: 'anthropic',
		settings: { model: 'm', maxIterations: 10, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 100_000, approval: { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [] } },
		tools: catalog,
		userMessage: 'go',
	});
	state = step(state, { type: 'model_turn', turn: { transcriptItems: [{ role: 'assistant', content: 'x' }], text: '', toolCalls: [{ id: 'c1', name: 'run_command', rawArguments: args }], stop: 'tool_use', usage } });
	return step(state, { type: 'approval_opened', approval: { id: 'ap1', requestedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-02T00:00:00.000Z' } });
}

function request(args: unknown, tool?: string, server?: string) {
	const state = pausedRun(args, tool, server);
	const effect = nextEffect(state);
	return buildApprovalRequest(state, { id: 'ap1', requestedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-02T00:00:00.000Z' }, effect.type === 'request_approval' ? effect.calls : [], { reviewUrl: REVIEW_URL });
}

/** What n8n's send-and-wait nodes make of the Message parameter before sending it. */
function sendAndWait(message: string): string {
	const decoded: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#39;': "'", '&quot;': '"' };
	return message
		.trim()
		.replace(/&amp;|&lt;|&gt;|&#39;|&quot;/g, (entity) => decoded[entity])
		.replace(/\\n/g, '\n')
		.replace(/<br>/g, '\n');
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** Slack mrkdwn: blocks between one ``` and the next, and every <…> control sequence. */
function readSlack(text: string) {
	const parts = text.split('```');
	return {
		blocks: parts.filter((_, index) => index % 2 === 1),
		outside: parts.filter((_, index) => index % 2 === 0).join(' '),
		unclosed: parts.length % 2 === 0,
		controls: text.match(/<[^>]*>/g) ?? [],
	};
}

interface TelegramEntity {
	type: 'bold' | 'italic' | 'code' | 'pre' | 'link';
	text: string;
	url?: string;
}

/** Telegram legacy Markdown, read as the Bot API describes it; throws as Telegram answers 400. */
function readTelegramLegacy(text: string): { plain: string; entities: TelegramEntity[] } {
	const entities: TelegramEntity[] = [];
	let plain = '';
	let at = 0;
	const closing = (end: string, from: number) => {
		const found = text.indexOf(end, from);
		if (found === -1) throw new Error(`Can't find end of the entity starting at byte offset ${from}`);
		return found;
	};
	while (at < text.length) {
		const ch = text[at];
		if (ch === '\\' && '_*`['.includes(text[at + 1] ?? '')) {
			plain += text[at + 1];
			at += 2;
		} else if (text.startsWith('```', at)) {
			const end = closing('```', at + 3);
			entities.push({ type: 'pre', text: text.slice(at + 3, end) });
			at = end + 3;
		} else if (ch === '`' || ch === '*' || ch === '_') {
			const end = closing(ch, at + 1);
			entities.push({ type: ch === '`' ? 'code' : ch === '*' ? 'bold' : 'italic', text: text.slice(at + 1, end) });
			at = end + 1;
		} else if (ch === '[') {
			const end = closing(']', at + 1);
			if (text[end + 1] === '(') {
				const urlEnd = closing(')', end + 2);
				entities.push({ type: 'link', text: text.slice(at + 1, end), url: text.slice(end + 2, urlEnd) });
				at = urlEnd + 1;
			} else {
				plain += text.slice(at, end + 1);
				at = end + 1;
			}
		} else {
			plain += ch;
			at += 1;
		}
	}
	return { plain, entities };
}

/** CommonMark fenced code blocks: the contents, and the text outside them. */
function readCommonMark(text: string) {
	const blocks: string[] = [];
	const outside: string[] = [];
	let fence: string | undefined;
	let content: string[] = [];
	for (const line of text.split('\n')) {
		if (fence === undefined) {
			const open = /^ {0,3}(`{3,})[^`]*$/.exec(line);
			if (open) {
				fence = open[1];
				content = [];
			} else outside.push(line);
		} else if (new RegExp(`^ {0,3}\`{${fence.length},} *$`).test(line)) {
			blocks.push(content.join('\n'));
			fence = undefined;
		} else content.push(line);
	}
	return { blocks, outside: outside.join('\n'), unclosed: fence !== undefined };
}

const TELEGRAM_ATTRIBUTION = '\n\n_This message was sent automatically with _[n8n](https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.telegram_1)';

const HOSTILE: Array<[string, string]> = [
	['one backtick', 'a`b'],
	['three backticks', 'a```b'],
	['four and more backticks', 'a````b```````c'],
	['a block closed and reopened', '\n```\n[Approve](https://evil.example)\n```json\n'],
	['a Slack link', '<https://x|y>'],
	['a Slack mention', '<!channel> <@U123>'],
	['Slack links as entities send-and-wait decodes', '&lt;https://x|y&gt; &lt;!channel&gt;'],
	['a Markdown link', '[a](b)'],
	['bold, italic and strike', '*bold* _it_ ~s~'],
	['an escaped entity', '&lt;'],
	['HTML tags', "<a href='https://evil.example'>Approve</a><img src=x onerror=alert(1)>"],
	['a line break send-and-wait reads', '\\n<br>&lt;br&gt;'],
	['Telegram MarkdownV2 specials', '_*[]()~`>#+-=|{}.!\\'],
];

describe.each(HOSTILE)('an argument holding %s', (_name, hostile) => {
	const args = { value: `${MARK} ${hostile} ${MARK}` };
	const req = request(args, 'delete_file', 'my_server');

	it('stays inside its block and adds no link or mention in Slack (send-and-wait, mrkdwn)', () => {
		const slack = readSlack(sendAndWait(req.summaryMarkdown));
		expect(slack.unclosed).toBe(false);
		expect(slack.blocks).toHaveLength(1);
		expect(count(slack.blocks[0], MARK)).toBe(2);
		expect(count(slack.outside, MARK)).toBe(0);
		expect(slack.controls).toEqual([]);
	});

	it('stays inside its pre block and adds no entity in Telegram (send-and-wait, legacy Markdown)', () => {
		const telegram = readTelegramLegacy(sendAndWait(req.summaryTelegram) + TELEGRAM_ATTRIBUTION);
		const pre = telegram.entities.filter((entity) => entity.type === 'pre');
		expect(pre).toHaveLength(1);
		expect(count(pre[0].text, MARK)).toBe(2);
		expect(count(telegram.plain, MARK)).toBe(0);
		expect(telegram.entities.filter((entity) => entity.type === 'link').map((link) => link.url)).toEqual([REVIEW_URL, 'https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.telegram_1']);
		expect(telegram.entities.filter((entity) => entity.type !== 'pre' && entity.type !== 'link' && entity.text.includes(MARK))).toEqual([]);
	});

	it('stays inside its fenced block in CommonMark (chat, Discord, Teams)', () => {
		for (const summary of [req.summaryMarkdown, req.summaryText]) {
			const markdown = readCommonMark(summary);
			expect(markdown.unclosed).toBe(false);
			expect(markdown.blocks).toHaveLength(1);
			expect(count(markdown.blocks[0], MARK)).toBe(2);
			expect(count(markdown.outside, MARK)).toBe(0);
		}
	});

	it('adds no HTML tag to a send-and-wait e-mail (Gmail, Send Email)', () => {
		for (const summary of [req.summaryMarkdown, req.summaryText]) expect(sendAndWait(summary)).not.toContain('<');
	});

	it('keeps its value: the block is the JSON of the arguments, and send-and-wait changes only its line breaks', () => {
		for (const summary of [req.summaryMarkdown, req.summaryText, req.summaryTelegram]) {
			const block = readCommonMark(summary).blocks[0];
			expect(JSON.parse(block)).toEqual(args);
			// No entity or <br> for send-and-wait to decode; its only \n are the value's own line breaks.
			expect(sendAndWait(block)).toBe(block.replace(/\\n/g, '\n'));
			expect(count(block, '\\n')).toBe(count(args.value, '\n'));
		}
	});
});

describe('names in Telegram and Slack', () => {
	const hostileName = 'snake_case *bold* `code` [a](b) &lt;!channel&gt; back\\nslash';

	it('Telegram: snake_case names and the underscores of a review secret neither format nor fail the message', () => {
		const req = request({ path: '/tmp/x' }, hostileName, 'my_server');
		const telegram = readTelegramLegacy(sendAndWait(req.summaryTelegram) + TELEGRAM_ATTRIBUTION);
		expect(telegram.entities.map((entity) => entity.type)).toEqual(['bold', 'bold', 'pre', 'link', 'italic', 'link']);
		expect(telegram.plain).toContain(`• snake_case *bold* \`code\` [a](b) ＆lt;!channel＆gt; back{U+005C}nslash on my_server · code`);
		expect(telegram.entities.find((entity) => entity.type === 'link')?.url).toBe(REVIEW_URL);
	});

	it('Slack and e-mail: a name holding character references or a backslash-n adds no mention, tag or line', () => {
		const req = request({ path: '/tmp/x' }, hostileName, 'my_server');
		const plain = request({ path: '/tmp/x' });
		for (const [summary, ordinary] of [[req.summaryMarkdown, plain.summaryMarkdown], [req.summaryText, plain.summaryText], [req.summaryTelegram, plain.summaryTelegram]]) {
			const sent = sendAndWait(summary);
			expect(readSlack(sent).controls).toEqual([]);
			expect(sent.split('\n')).toHaveLength(sendAndWait(ordinary).split('\n').length);
		}
	});
});
