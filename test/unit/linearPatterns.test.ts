import { stripCodeFence } from '../../lib/agent/step';
import { globToRegExp } from '../../lib/tools/nameFilter';

// Issue 25, point 2: patterns over server or model text run in linear time. These inputs took a
// backtracking engine minutes (the fence) or the square of a name's length (the glob).

/** The pattern stripCodeFence replaces; an oracle on short text only. */
const FENCE = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/;

describe('patterns over model and server text in linear time', () => {
	it('stripCodeFence returns what the fence pattern returned, on every short text of fence characters', () => {
		const alphabet = ['`', '`', '`', '\n', '\n', ' ', '\r', '\u2028', 'j', 's', 'o', 'n', 'x', '{'];
		let seed = 25;
		const random = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed / 2 ** 31;
		};
		const samples = ['```json\n{"a":1}\n```', '  ```\n[1, 2]\n```  ', '```\n\n```', '```\n\n\n```', '```json \n \n x \n \n ```\n', '```jsonx\n1\n```', '````\n1\n````'];
		for (let i = 0; i < 20000; i++) {
			const length = 3 + Math.floor(random() * 14);
			let text = random() < 0.5 ? '```' : '';
			for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)];
			if (random() < 0.5) text += '```';
			samples.push(text);
		}
		for (const text of samples) {
			const match = FENCE.exec(text);
			expect([text, stripCodeFence(text)]).toEqual([text, match ? match[1] : text]);
		}
	});

	it('stripCodeFence answers at once on a long answer of blank lines', () => {
		const answer = `\`\`\`\n${'\n '.repeat(50000)}x`;
		expect(stripCodeFence(answer)).toBe(answer);
		const fenced = `\`\`\`json\n${'\n'.repeat(50000)}{}\n${'\n '.repeat(50000)}\`\`\``;
		expect(stripCodeFence(fenced)).toBe('{}');
	});

	it('globs run on RE2, not on a backtracking RegExp', () => {
		const glob = globToRegExp('a*b*c*d');
		expect(glob).not.toBeInstanceOf(RegExp);
		expect(glob.test(`a${'b'.repeat(100000)}`)).toBe(false);
		expect(glob.test('a_b_c_d')).toBe(true);
	});
});
