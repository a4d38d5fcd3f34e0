import { LegacyInputRequests, MAX_DECLINED_NOTES } from '../../lib/mcp/legacyInputRequests';

/**
 * lib/mcp/legacyInputRequests.ts with the client's request handlers captured: what a 2025-era
 * server asks in the middle of a call is declined at once and noted on the calls open then.
 */
function installed() {
	const handlers: Record<string, (request: unknown) => unknown> = {};
	const client = { setRequestHandler: (method: string, handler: (request: unknown) => unknown) => (handlers[method] = handler), fallbackRequestHandler: undefined };
	const legacy = new LegacyInputRequests();
	legacy.install(client as never);
	const ask = (message: string) => handlers['elicitation/create']({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object' } } });
	return { legacy, ask };
}

describe('requests for input declined in the middle of a call', () => {
	it('keeps at most MAX_DECLINED_NOTES distinct notes per call, then one note counting the rest', async () => {
		const { legacy, ask } = installed();
		const { declined } = await legacy.track(async () => {
			for (let i = 0; i < 20_000; i++) await ask(`please answer #${i}`);
			for (let i = 0; i < 5; i++) await ask('please answer #0');
			return 'done';
		});
		expect(declined).toHaveLength(MAX_DECLINED_NOTES + 1);
		expect(declined?.[0].note).toContain('please answer #0');
		expect(declined?.[MAX_DECLINED_NOTES].note).toBe(`The server made ${20_000 - MAX_DECLINED_NOTES} more requests for input during this call; they were declined too.`);
	});

	it('notes a repeated request once, and nothing when none came', async () => {
		const { legacy, ask } = installed();
		const repeated = await legacy.track(async () => {
			await ask('Your name?');
			await ask('Your name?');
			return 1;
		});
		expect(repeated.declined).toHaveLength(1);
		expect(await legacy.track(async () => 2)).toEqual({ value: 2 });
	});

	it('does not tell a call what the server asked while other calls were open too (they may be other executions)', async () => {
		const { legacy, ask } = installed();
		let releaseB: () => void = () => undefined;
		const b = legacy.track(() => new Promise<string>((resolve) => (releaseB = () => resolve('b'))));
		const a = await legacy.track(async () => {
			await ask('Approve payment to IBAN DE89-ALICE-PRIVATE?');
			return 'a';
		});
		releaseB();
		const notes = [...(a.declined ?? []), ...((await b).declined ?? [])].map((entry) => `${entry.request} ${entry.note}`);
		expect(notes).toHaveLength(2);
		for (const note of notes) {
			expect(note).not.toContain('ALICE');
			expect(note).toContain('may belong to one of them');
		}
		// One tool call open, but another request of ours in flight (a prompt of another execution): not quoted either.
		legacy.requestsInFlight = 2;
		const beside = await legacy.track(async () => {
			await ask('Confirm transfer to IBAN DE89370400440532013000');
			return 'd';
		});
		expect(beside.declined?.[0].note).not.toContain('IBAN');
		legacy.requestsInFlight = 1;
		// Alone again: the request is quoted on its own call.
		const alone = await legacy.track(async () => {
			await ask('Your name?');
			return 'c';
		});
		expect(alone.declined?.[0].note).toContain('Your name?');
	});
});
