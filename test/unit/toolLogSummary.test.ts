/**
 * The tool log's result summary: whitespace runs collapsed, trimmed, cut to 200 characters, images
 * counted. summarize() takes shortcuts (text already normal, only a prefix of a long text); they
 * must give exactly what normalizing the whole text gives.
 */
import { summarize } from '../../lib/agent/toolLog';
import type { ToolOutcome } from '../../lib/providers/modelTypes';

/** The definition, on the whole text. */
function reference(outcome: ToolOutcome): string {
	const text = outcome.text.replace(/\s+/g, ' ').trim();
	const images = outcome.images.length ? ` [+${outcome.images.length} image${outcome.images.length > 1 ? 's' : ''}]` : '';
	return (text.length > 200 ? `${text.slice(0, 200)}…` : text) + images;
}

const outcome = (text: string, images = 0): ToolOutcome => ({ id: 'x', isError: false, text, images: Array.from({ length: images }, () => ({ mimeType: 'image/png', data: 'AA' })) });

/** Deterministic pseudo-random texts mixing words and every kind of whitespace. */
function* texts(): Generator<string> {
	const pieces = ['a', 'word', 'é', '😀', ' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u2003', '\u3000', '\ufeff', ' \n ', 'x'.repeat(50), ' '.repeat(300)];
	let seed = 42;
	const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
	for (let i = 0; i < 3000; i++) {
		const length = Math.floor(next() * (i % 3 === 0 ? 900 : 60));
		let text = '';
		for (let j = 0; j < length; j++) text += pieces[Math.floor(next() * pieces.length)];
		yield text;
	}
}

describe('summarize', () => {
	it('matches normalizing the whole text, for short, long and whitespace-heavy results', () => {
		for (const text of texts()) {
			for (const images of [0, 1, 2]) expect(summarize(outcome(text, images))).toBe(reference(outcome(text, images)));
		}
	});

	it('handles the edges of the prefix shortcut', () => {
		const cases = [
			'',
			' ',
			'ok',
			'Echo: turn 7',
			' leading',
			'trailing ',
			'a\tb',
			'a  b',
			'x'.repeat(200),
			'x'.repeat(201),
			`${'x'.repeat(199)} y`,
			`${' '.repeat(2000)}${'word '.repeat(100)}`,
			`${'ab '.repeat(400)}`,
			`${'a'.repeat(1023)} ${'b'.repeat(5000)}`,
			`${'\n'.repeat(1500)}short`,
			`${'w '.repeat(101)}${' '.repeat(5000)}`,
			`${'x'.repeat(1024)}${'\n'.repeat(10)}`,
			`${'x'.repeat(200)}${' '.repeat(2000)}`,
			`${'x'.repeat(199)}${'\t'.repeat(3000)}y`,
		];
		for (const text of cases) expect(summarize(outcome(text))).toBe(reference(outcome(text)));
	});
});
