import { describeInputRequest, legacyInputDeclinedNote, quoteServerText } from '../../lib/mcp/inputRequestMessages';

describe('input request messages', () => {
	it('keeps a server message on one line and short, so it cannot add lines or flood a note', () => {
		expect(quoteServerText('Delete\n/etc?\r\n\u2028ok')).toBe('Delete /etc? ok');
		expect(quoteServerText('x'.repeat(500))).toHaveLength(301);
	});

	it('describes each kind of request', () => {
		expect(describeInputRequest('elicitation/create', { message: 'Your name?' })).toBe('"Your name?"');
		expect(describeInputRequest('elicitation/create', { mode: 'url', message: 'Sign in' })).toBe('"Sign in" (a link to open)');
		expect(describeInputRequest('elicitation/create', {})).toBe('input without a message');
		expect(describeInputRequest('sampling/createMessage', undefined)).toBe('a model completion (sampling)');
		expect(legacyInputDeclinedNote('"Your name?"')).toMatch(/^The server asked for input \("Your name\?"\) during this call; it was declined because/);
	});
});
