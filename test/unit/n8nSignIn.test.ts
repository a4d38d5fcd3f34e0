import { localN8nBaseUrl, parseAllowedReviewers, SIGN_IN_FAILED, signInTiming, verifyN8nSignIn } from '../../lib/approvals/n8nSignIn';

/**
 * A fake of the three n8n 2.41.1 endpoints the sign-in uses, with the shapes seen on a real n8n:
 * the login sets an `n8n-auth` cookie, the workflow answers with `data.scopes` only to a session
 * sent with the same `browser-id`, and logout revokes it.
 */
interface FakeOptions {
	loginStatus?: number;
	loginBody?: unknown;
	workflowStatus?: number;
	scopes?: string[] | undefined;
	omitScopes?: boolean;
	nodes?: unknown;
}

function fakeN8n(options: FakeOptions = {}) {
	const calls: Array<{ method: string; path: string; headers: Record<string, string>; body?: unknown }> = [];
	const sessions = new Map<string, string>(); // cookie -> browser-id
	const impl = (async (url: string, init: RequestInit = {}) => {
		const path = new URL(url).pathname;
		const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
		const method = init.method ?? 'GET';
		calls.push({ method, path, headers, ...(init.body ? { body: JSON.parse(String(init.body)) } : {}) });
		if (path === '/rest/login' && method === 'POST') {
			const status = options.loginStatus ?? 200;
			if (status !== 200) return new Response(JSON.stringify(options.loginBody ?? { message: 'Wrong username or password. Do you have caps lock on?' }), { status });
			sessions.set('n8n-auth=session-1', headers['browser-id']);
			return new Response(JSON.stringify(options.loginBody ?? { data: { email: 'Ana@Example.com', firstName: 'Ana', lastName: 'Bee' } }), {
				status: 200,
				headers: { 'set-cookie': 'n8n-auth=session-1; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax' },
			});
		}
		const authorized = sessions.get(headers.cookie) !== undefined && sessions.get(headers.cookie) === headers['browser-id'];
		if (path === '/rest/logout' && method === 'POST') {
			sessions.delete(headers.cookie);
			return new Response(JSON.stringify({ data: { loggedOut: true } }), { status: 200 });
		}
		if (path.startsWith('/rest/workflows/')) {
			if (!authorized) return new Response(JSON.stringify({ status: 'error', message: 'Unauthorized' }), { status: 401 });
			const status = options.workflowStatus ?? 200;
			if (status !== 200) return new Response(JSON.stringify({ message: 'User is missing a scope required to perform this action' }), { status });
			const id = decodeURIComponent(path.slice('/rest/workflows/'.length));
			const scopes = options.omitScopes ? {} : { scopes: options.scopes ?? ['workflow:read', 'workflow:execute', 'workflow:update'] };
			return new Response(JSON.stringify({ data: { id, name: 'wf', ...scopes, ...(options.nodes !== undefined ? { nodes: options.nodes } : {}) } }), { status: 200 });
		}
		return new Response('not found', { status: 404 });
	}) as unknown as typeof fetch;
	return { impl, calls, sessions };
}

const creds = { email: 'ana@example.com', password: 'pw' };

describe('verifyN8nSignIn', () => {
	const floor = signInTiming.rejectFloorMs;
	beforeAll(() => { signInTiming.rejectFloorMs = 0; });
	afterAll(() => { signInTiming.rejectFloorMs = floor; });

	it('records the account behind a successful sign-in that may act on the workflow, then logs the session out', async () => {
		const n8n = fakeN8n();
		const result = await verifyN8nSignIn(creds, { workflowId: 'wf 1', baseUrl: 'http://n8n', fetchImpl: n8n.impl });
		expect(result).toEqual({ ok: true, reviewer: 'Ana Bee <Ana@Example.com>', workflow: { name: 'wf', nodes: [] } });
		expect(n8n.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /rest/login', 'GET /rest/workflows/wf%201', 'POST /rest/logout']);
		expect(n8n.calls[0].body).toEqual({ emailOrLdapLoginId: 'ana@example.com', password: 'pw' });
		// The session is used with the browser id it is bound to, and revoked afterwards.
		expect(new Set(n8n.calls.map((c) => c.headers['browser-id'])).size).toBe(1);
		expect(n8n.calls[1].headers.cookie).toBe('n8n-auth=session-1');
		expect(n8n.sessions.size).toBe(0);
	});

	it("hands on the workflow's name and nodes (id, name, type) as n8n showed them to the account, for the standing approvals page", async () => {
		const nodes = [{ id: 'a1', name: 'MCP Agent', type: 'n8n-nodes-mcp-agent.mcpAgent', parameters: { secret: 'x' } }, { id: 'w', name: 'Webhook' }, { name: 'no id' }, null, 'text'];
		const result = await verifyN8nSignIn(creds, { workflowId: 'wf', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ nodes }).impl });
		expect(result).toEqual({ ok: true, reviewer: 'Ana Bee <Ana@Example.com>', workflow: { name: 'wf', nodes: [{ id: 'a1', name: 'MCP Agent', type: 'n8n-nodes-mcp-agent.mcpAgent' }, { id: 'w', name: 'Webhook', type: '' }] } });
		const odd = await verifyN8nSignIn(creds, { workflowId: 'wf', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ nodes: { a: 1 } }).impl });
		expect(odd).toMatchObject({ ok: true, workflow: { nodes: [] } });
	});

	it('refuses an account that signed in but may not act on the workflow (403/404, or only read scopes)', async () => {
		for (const options of [{ workflowStatus: 403 }, { workflowStatus: 404 }, { scopes: ['workflow:read', 'workflow:list'] }]) {
			const n8n = fakeN8n(options);
			expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: n8n.impl })).toEqual({ ok: false, kind: 'rejected', error: SIGN_IN_FAILED });
			expect(n8n.sessions.size).toBe(0);
		}
		// An n8n that does not report scopes: access to the workflow is the permission.
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ omitScopes: true }).impl })).toMatchObject({ ok: true });
	});

	it('with Allowed Reviewers, only those e-mails may decide (any letter case)', async () => {
		const allowed = parseAllowedReviewers(' ops@example.com,\nANA@example.com ; ');
		expect(allowed).toEqual(['ops@example.com', 'ana@example.com']);
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', allowedReviewers: allowed, baseUrl: 'http://n8n', fetchImpl: fakeN8n().impl })).toMatchObject({ ok: true });
		const other = fakeN8n();
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', allowedReviewers: ['ops@example.com'], baseUrl: 'http://n8n', fetchImpl: other.impl })).toEqual({ ok: false, kind: 'rejected', error: SIGN_IN_FAILED });
		expect(other.sessions.size).toBe(0);
	});

	it('gives one message for a wrong password, a missing or wrong two-factor code and missing fields: no oracle', async () => {
		const wrong = await verifyN8nSignIn({ email: 'a@b.c', password: 'x' }, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ loginStatus: 401 }).impl });
		const mfa = await verifyN8nSignIn({ email: 'a@b.c', password: 'x' }, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ loginStatus: 401, loginBody: { code: 998, message: 'MFA Error' } }).impl });
		const badCode = await verifyN8nSignIn({ email: 'a@b.c', password: 'x', mfaCode: '123456' }, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ loginStatus: 401, loginBody: { code: 998, message: 'MFA Error' } }).impl });
		const missing = await verifyN8nSignIn({ email: 'a@b.c' }, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n().impl });
		for (const result of [wrong, mfa, badCode, missing]) expect(result).toEqual({ ok: false, kind: 'rejected', error: SIGN_IN_FAILED });
		expect(SIGN_IN_FAILED).toMatch(/^Sign-in failed: check the e-mail, the password and, if your account uses two-factor authentication, the code/);
	});

	it("reports n8n's own rate limit as a rate limit, not as a wrong password", async () => {
		const result = await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ loginStatus: 429, loginBody: { message: 'Too many requests' } }).impl });
		expect(result).toMatchObject({ ok: false, kind: 'rateLimited', error: expect.stringMatching(/limiting sign-in attempts/) });
	});

	it('fails closed, without calling n8n, when the workflow is unknown; and when n8n is unreachable or answers oddly', async () => {
		const n8n = fakeN8n();
		expect(await verifyN8nSignIn(creds, { workflowId: undefined, baseUrl: 'http://n8n', fetchImpl: n8n.impl })).toMatchObject({ ok: false, kind: 'unavailable' });
		expect(n8n.calls).toEqual([]);
		const down = (async () => { throw new Error('connect ECONNREFUSED'); }) as unknown as typeof fetch;
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: down })).toMatchObject({ ok: false, kind: 'unavailable', error: expect.stringMatching(/N8N_MCP_AGENT_N8N_URL/) });
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ loginStatus: 500 }).impl })).toMatchObject({ ok: false, kind: 'unavailable' });
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n({ workflowStatus: 500 }).impl })).toMatchObject({ ok: false, kind: 'unavailable' });
		// A login answer without a session cookie cannot be checked for permission.
		const noCookie = (async (url: string) => (String(url).endsWith('/rest/login') ? new Response(JSON.stringify({ data: { email: 'a@b.c' } }), { status: 200 }) : new Response('', { status: 200 }))) as unknown as typeof fetch;
		expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: noCookie })).toMatchObject({ ok: false, kind: 'unavailable' });
	});

	it('finds n8n on its own port and path', () => {
		expect(localN8nBaseUrl({ N8N_PORT: '6000', N8N_PATH: '/n8n/' })).toBe('http://127.0.0.1:6000/n8n');
		expect(localN8nBaseUrl({ N8N_MCP_AGENT_N8N_URL: 'https://n8n.internal/' })).toBe('https://n8n.internal');
		expect(localN8nBaseUrl({})).toBe('http://127.0.0.1:5678');
	});
});

describe('verifyN8nSignIn timing', () => {
	it('answers a wrong password no sooner than an account without access: both wait for the same floor', async () => {
		const floor = signInTiming.rejectFloorMs;
		signInTiming.rejectFloorMs = 300;
		try {
			for (const options of [{ loginStatus: 401 }, { workflowStatus: 403 }]) {
				const started = Date.now();
				const result = await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n(options).impl });
				expect(result).toMatchObject({ ok: false, kind: 'rejected' });
				expect(Date.now() - started).toBeGreaterThanOrEqual(290);
			}
			const started = Date.now();
			expect(await verifyN8nSignIn(creds, { workflowId: 'wf1', baseUrl: 'http://n8n', fetchImpl: fakeN8n().impl })).toMatchObject({ ok: true });
			expect(Date.now() - started).toBeLessThan(290);
		} finally {
			signInTiming.rejectFloorMs = floor;
		}
	});
});
