import { localN8nBaseUrl, verifyN8nSignIn } from '../../lib/approvals/n8nSignIn';

const reply = (status: number, body: unknown) => (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;

describe('verifyN8nSignIn', () => {
	it('records the account behind a successful sign-in', async () => {
		const result = await verifyN8nSignIn({ email: 'a@b.c', password: 'pw' }, 'http://n8n', reply(200, { data: { email: 'a@b.c', firstName: 'Ana', lastName: 'Bee' } }));
		expect(result).toEqual({ ok: true, reviewer: 'Ana Bee <a@b.c>' });
	});

	it('fails closed on wrong passwords, missing fields, MFA and an unreachable n8n', async () => {
		expect(await verifyN8nSignIn({ email: 'a@b.c', password: 'x' }, 'http://n8n', reply(401, { message: 'Wrong username or password' }))).toMatchObject({ ok: false, error: expect.stringMatching(/not correct/) });
		expect(await verifyN8nSignIn({ email: 'a@b.c' }, 'http://n8n', reply(200, {}))).toMatchObject({ ok: false });
		expect(await verifyN8nSignIn({ email: 'a@b.c', password: 'x' }, 'http://n8n', reply(401, { message: 'MFA Error' }))).toMatchObject({ ok: false, error: expect.stringMatching(/two-factor/) });
		const down = (async () => { throw new Error('connect ECONNREFUSED'); }) as unknown as typeof fetch;
		expect(await verifyN8nSignIn({ email: 'a@b.c', password: 'x' }, 'http://n8n', down)).toMatchObject({ ok: false, error: expect.stringMatching(/N8N_MCP_AGENT_N8N_URL/) });
	});

	it('finds n8n on its own port and path', () => {
		expect(localN8nBaseUrl({ N8N_PORT: '6000', N8N_PATH: '/n8n/' })).toBe('http://127.0.0.1:6000/n8n');
		expect(localN8nBaseUrl({ N8N_MCP_AGENT_N8N_URL: 'https://n8n.internal/' })).toBe('https://n8n.internal');
		expect(localN8nBaseUrl({})).toBe('http://127.0.0.1:5678');
	});
});
