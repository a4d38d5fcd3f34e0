/**
 * The standing approvals page (issue 28.3: grants "listed, with who granted it, when, and how often
 * it was used, on a page behind the same access rules as the review page, where a person revokes
 * it"), as the pure handler MCP Standing Approvals' webhook calls: nothing readable without an n8n
 * sign-in, every grant of the workflow's Agent nodes listed, a one-way revoke that records who, the
 * store's failures shown as such, and hostile input refused.
 */
import { AttemptLimiter } from '../../lib/approvals/attemptLimiter';
import { REVOKE_FIELD } from '../../lib/approvals/grantsSection';
import type { SignInOptions, SignInResult, WorkflowFacts } from '../../lib/approvals/n8nSignIn';
import { handleStandingApprovalsPage, MAX_INACTIVE_SHOWN, STANDING_SIGN_IN_LIMITS, type StandingPageRequest } from '../../lib/approvals/standingApprovalsPage';
import { GRANT_VERSION, type Grant, type GrantScope, type GrantStore, type WorkflowScope } from '../../lib/agent/grants';
import { McpStandingApprovals } from '../../nodes/McpStandingApprovals/McpStandingApprovals.node';

const NOW = new Date('2030-01-02T00:00:00Z');
const HOUR = 3_600_000;
const OWNER = 'Olga Owner <owner@example.com>';
const PASSWORD = 'right-password';

const WORKFLOW: WorkflowFacts = {
	name: 'Payments bot',
	nodes: [
		{ id: 'hook', name: 'Webhook', type: 'n8n-nodes-base.webhook' },
		{ id: 'agent-a', name: 'Pay Agent', type: 'n8n-nodes-mcp-agent.mcpAgent' },
		{ id: 'agent-b', name: 'Files Agent', type: 'n8n-nodes-mcp-agent.mcpAgent' },
		{ id: 'page', name: 'MCP Standing Approvals', type: 'n8n-nodes-mcp-agent.mcpStandingApprovals' },
	],
};

function grant(id: string, extra: Partial<Grant> = {}): Grant {
	return {
		v: GRANT_VERSION,
		id,
		workflowId: 'wf-1',
		nodeId: 'agent-a',
		server: 'payments',
		tool: 'send_money',
		fingerprint: 'sha256:f',
		constraint: {
			kind: 'fields',
			fields: [
				{ path: ['to'], equals: 'bob' },
				{ path: ['amount'], atMost: 20, atLeast: 0 },
			],
		},
		grantedBy: 'Ana <ana@example.com>',
		grantedAt: NOW.getTime() - HOUR,
		expiresAt: NOW.getTime() + 23 * HOUR,
		uses: 3,
		lastUsedAt: NOW.getTime() - 60_000,
		...extra,
	};
}

/** A store over rows of several workflows and nodes, scoped as the SQL store is. */
function memoryStore(rows: Grant[]) {
	const calls: Array<{ method: string; scope: GrantScope | WorkflowScope; by?: string }> = [];
	const inScope = (g: Grant, scope: GrantScope | WorkflowScope) => g.workflowId === scope.workflowId && (scope.nodeId === undefined || g.nodeId === scope.nodeId);
	const store: GrantStore = {
		insert: async () => undefined,
		revoke: async (scope, id, by, at) => {
			calls.push({ method: 'revoke', scope, by });
			const row = rows.find((g) => g.id === id && inScope(g, scope));
			if (!row) return false;
			if (row.revokedAt === undefined) Object.assign(row, { revokedAt: at, revokedBy: by });
			return true;
		},
		listActive: async () => [],
		listAll: async (scope) => {
			calls.push({ method: 'listAll', scope });
			return rows.filter((g) => inScope(g, scope)).map((g) => ({ ...g }));
		},
		markUsed: async () => undefined,
	};
	return { store, rows, calls };
}

const signIns: Array<Record<string, unknown>> = [];
async function fakeSignIn(credentials: Record<string, unknown>, options: SignInOptions): Promise<SignInResult> {
	signIns.push({ ...credentials, ...options });
	if (credentials.email === 'owner@example.com' && credentials.password === PASSWORD) return { ok: true, reviewer: OWNER, workflow: WORKFLOW };
	return { ok: false, kind: 'rejected', error: 'Sign-in failed: … can decide here.' };
}

const limiters = () => ({ account: new AttemptLimiter(STANDING_SIGN_IN_LIMITS.account), page: new AttemptLimiter(STANDING_SIGN_IN_LIMITS.page) });
const signedIn = { email: 'owner@example.com', password: PASSWORD };

function request(store: GrantStore, extra: Partial<StandingPageRequest> = {}): StandingPageRequest {
	return { method: 'POST', headers: {}, body: signedIn, workflowId: 'wf-1', allowedReviewers: [], grantStore: store, now: NOW, signIn: fakeSignIn, limiters: limiters(), ...extra };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
/** The visible text: tags dropped, entities decoded, whitespace folded. */
const text = (html: string) =>
	html
		.replace(/<style[\s\S]*?<\/style>/, '')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&(amp|lt|gt|quot|#39);/g, (_, entity: string) => ENTITIES[entity])
		.replace(/\s+/g, ' ');

beforeEach(() => {
	signIns.length = 0;
});

describe('access: nothing readable without a sign-in', () => {
	test('a GET is only the sign-in form: no grant, no count, no workflow or node name, and no read of the store', async () => {
		const { store, calls } = memoryStore([grant('grant_a1')]);
		const answer = await handleStandingApprovalsPage(request(store, { method: 'GET', body: undefined }));
		expect(answer.status).toBe(200);
		expect(answer.html).toContain('<input type="password" name="password" required');
		for (const secret of ['grant_a1', 'send_money', 'payments', 'Ana', 'Pay Agent', 'Payments bot', 'used', REVOKE_FIELD]) expect(answer.html).not.toContain(secret);
		expect(calls).toEqual([]);
		expect(signIns).toEqual([]);
		expect(answer.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });
		expect(answer.headers['Content-Security-Policy']).toContain("default-src 'none'");
	});

	test('a POST without credentials, with a wrong password or a refused account shows the sign-in form again, 401, and reads nothing', async () => {
		const { store, calls } = memoryStore([grant('grant_a1')]);
		for (const body of [{}, { email: 'owner@example.com', password: 'wrong' }, { email: 'mallory@example.com', password: PASSWORD }, undefined, 'email=owner@example.com']) {
			const answer = await handleStandingApprovalsPage(request(store, { body }));
			expect(answer.status).toBe(401);
			expect(answer.html).toContain('Sign-in failed: check the e-mail, the password');
			expect(answer.html).toContain('can see its standing approvals');
			expect(answer.html).not.toContain('grant_a1');
			expect(answer.html).not.toContain('wrong');
		}
		expect(calls).toEqual([]);
	});

	test('a revoke without a valid sign-in revokes nothing', async () => {
		const { store, rows, calls } = memoryStore([grant('grant_a1')]);
		const answer = await handleStandingApprovalsPage(request(store, { body: { email: 'owner@example.com', password: 'wrong', [REVOKE_FIELD]: 'grant_a1' } }));
		expect(answer.status).toBe(401);
		expect(rows[0].revokedAt).toBeUndefined();
		expect(calls).toEqual([]);
	});

	test('the sign-in is asked for this workflow and the allowed accounts, with the e-mail shown again but never the password', async () => {
		const { store } = memoryStore([]);
		const answer = await handleStandingApprovalsPage(
			request(store, { allowedReviewers: ['owner@example.com'], body: { email: 'someone@example.com', password: 'p4ss"<word', mfaCode: '123456' } }),
		);
		expect(signIns).toEqual([{ email: 'someone@example.com', password: 'p4ss"<word', mfaCode: '123456', workflowId: 'wf-1', allowedReviewers: ['owner@example.com'] }]);
		expect(answer.html).toContain('value="someone@example.com"');
		expect(answer.html).not.toContain('p4ss');
	});

	test("n8n's own limit and an unreachable n8n are told apart, and show nothing", async () => {
		const { store } = memoryStore([grant('grant_a1')]);
		const limited = await handleStandingApprovalsPage(
			request(store, { signIn: async () => ({ ok: false, kind: 'rateLimited', error: 'n8n is limiting sign-in attempts; nothing was decided.' }) }),
		);
		expect(limited.status).toBe(429);
		expect(limited.html).toContain('nothing was shown or changed');
		const down = await handleStandingApprovalsPage(
			request(store, { signIn: async () => ({ ok: false, kind: 'unavailable', error: 'Could not check the sign-in with n8n (ECONNREFUSED); nothing was decided.' }) }),
		);
		expect(down.status).toBe(503);
		expect(down.html).toContain('ECONNREFUSED');
		expect(down.html).not.toContain('grant_a1');
	});

	test('after 5 failed sign-ins of one account, or 20 on the page, it answers "too many attempts" without asking n8n', async () => {
		const { store } = memoryStore([grant('grant_a1')]);
		const shared = limiters();
		const wrong = (email: string) => handleStandingApprovalsPage(request(store, { limiters: shared, body: { email, password: 'wrong' } }));
		for (let i = 0; i < 5; i++) expect((await wrong('owner@example.com')).status).toBe(401);
		signIns.length = 0;
		const locked = await handleStandingApprovalsPage(request(store, { limiters: shared }));
		expect(locked.status).toBe(429);
		expect(locked.html).toContain('Too many failed sign-in attempts on this page. Try again in 15 minutes.');
		expect(signIns).toEqual([]);
		// Another account still may, until the page as a whole has seen 20 failures.
		for (let i = 0; i < 15; i++) expect((await wrong(`guess${i}@example.com`)).status).toBe(401);
		expect((await handleStandingApprovalsPage(request(store, { limiters: shared, body: { email: 'other@example.com', password: PASSWORD } }))).status).toBe(429);
		// Another workflow's page counts apart, and the window passes.
		expect((await handleStandingApprovalsPage(request(store, { limiters: shared, workflowId: 'wf-2' }))).status).toBe(200);
		expect((await handleStandingApprovalsPage(request(store, { limiters: shared, now: new Date(NOW.getTime() + 16 * 60_000) }))).status).toBe(200);
	});

	test('sign-ins sent all at once cannot pass the limit together', async () => {
		const { store } = memoryStore([]);
		const shared = limiters();
		const slowWrong = async () => new Promise<SignInResult>((resolve) => setTimeout(() => resolve({ ok: false, kind: 'rejected', error: 'x' }), 5));
		const answers = await Promise.all(Array.from({ length: 12 }, () => handleStandingApprovalsPage(request(store, { limiters: shared, signIn: slowWrong }))));
		expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
		expect(answers.filter((a) => a.status === 429)).toHaveLength(7);
	});

	test('a POST a browser marks as cross-site is refused before any sign-in (no forged revoke)', async () => {
		const { store, rows, calls } = memoryStore([grant('grant_a1')]);
		for (const site of ['cross-site', 'same-site']) {
			const answer = await handleStandingApprovalsPage(request(store, { headers: { 'sec-fetch-site': site }, body: { ...signedIn, [REVOKE_FIELD]: 'grant_a1' } }));
			expect(answer.status).toBe(403);
		}
		expect(signIns).toEqual([]);
		expect(calls).toEqual([]);
		expect(rows[0].revokedAt).toBeUndefined();
		// The page's own form (same-origin), and clients that send no such header, pass on to the sign-in.
		expect((await handleStandingApprovalsPage(request(store, { headers: { 'sec-fetch-site': 'same-origin' } }))).status).toBe(200);
		expect((await handleStandingApprovalsPage(request(store, { headers: {} }))).status).toBe(200);
	});

	test('other methods and an unknown workflow are refused', async () => {
		const { store } = memoryStore([]);
		expect((await handleStandingApprovalsPage(request(store, { method: 'PUT' }))).status).toBe(405);
		expect((await handleStandingApprovalsPage(request(store, { workflowId: undefined }))).status).toBe(503);
	});
});

describe('the list', () => {
	test("every grant of the workflow's Agent nodes, by Agent node name, with who, when, what, uses and status", async () => {
		const { store, calls } = memoryStore([
			grant('grant_a1'),
			grant('grant_a2', { revokedAt: NOW.getTime() - 10 * 60_000, revokedBy: 'Ops <ops@example.com>', uses: 1 }),
			grant('grant_b1', {
				nodeId: 'agent-b',
				server: 'files',
				tool: 'write_file',
				constraint: { kind: 'exact', argumentsHash: `sha256:${'a'.repeat(64)}` },
				grantedAt: NOW.getTime() - 3 * HOUR,
				expiresAt: NOW.getTime() - HOUR,
				uses: 0,
				lastUsedAt: undefined,
			}),
			grant('grant_gone', { nodeId: 'deleted-agent' }),
			grant('grant_other_workflow', { workflowId: 'wf-2' }),
		]);
		const answer = await handleStandingApprovalsPage(request(store));
		expect(answer.status).toBe(200);
		expect(calls).toEqual([{ method: 'listAll', scope: { workflowId: 'wf-1' } }]);
		const page = text(answer.html);
		expect(page).toContain('Workflow Payments bot');
		expect(page).toContain(`Signed in as ${OWNER}`);
		expect(page).toMatch(
			/Agent node “Pay Agent”.*send_money on payments with to is "bob" and amount between 0 and 20.*Granted by Ana <ana@example.com> at 2030-01-01 23:00 UTC · used 3 times, last at 2030-01-01 23:59 UTC · Active until 2030-01-02 23:00 UTC · grant_a1/,
		);
		expect(page).toMatch(/grant_a1.*used 1 time, last at 2030-01-01 23:59 UTC · Revoked by Ops <ops@example.com> at 2030-01-01 23:50 UTC · grant_a2/);
		expect(page).toMatch(/Agent node “Files Agent”.*write_file on files with exactly the same arguments.*used 0 times · Expired at 2030-01-01 23:00 UTC · grant_b1/);
		expect(page).toMatch(/Agent node deleted-agent not in this workflow any more.*grant_gone/);
		expect(page).not.toContain('grant_other_workflow');
		// A Revoke button only on active grants; the browser asks for the password before sending one.
		expect(answer.html.match(/name="revokeGrant"/g)).toHaveLength(2);
		expect(answer.html).toContain('<button type="submit" name="revokeGrant" value="grant_a1" class="revoke">Revoke</button>');
		expect(answer.html).toContain('<button type="submit" name="revokeGrant" value="grant_gone" class="revoke">Revoke</button>');
		// The first submit button (what Enter presses) is Refresh, never a Revoke.
		expect(/<button[^>]*>([^<]*)</.exec(answer.html)?.[1]).toBe('Refresh');
	});

	test('an Agent node without grants says so; a workflow n8n described without nodes groups by node id', async () => {
		const { store } = memoryStore([grant('grant_a1')]);
		const answer = await handleStandingApprovalsPage(request(store));
		expect(text(answer.html)).toMatch(/Agent node “Files Agent” None\. A reviewer makes one/);
		const bare = await handleStandingApprovalsPage(request(store, { signIn: async () => ({ ok: true, reviewer: OWNER }) }));
		expect(text(bare.html)).toMatch(/Agent node agent-a .*grant_a1/);
		expect(text(bare.html)).not.toContain('not in this workflow any more');
		const empty = await handleStandingApprovalsPage(request(memoryStore([]).store, { signIn: async () => ({ ok: true, reviewer: OWNER, workflow: { nodes: [] } }) }));
		expect(text(empty.html)).toContain('This workflow has no MCP Agent node and no standing approvals.');
	});

	test('active grants first, then at most 20 revoked or expired ones, newest first', async () => {
		const old = Array.from({ length: MAX_INACTIVE_SHOWN + 3 }, (_, i) =>
			grant(`grant_old${i}`, { grantedAt: NOW.getTime() - 40 * HOUR - i * HOUR, expiresAt: NOW.getTime() - 20 * HOUR - i * HOUR }),
		);
		const { store } = memoryStore([...old, grant('grant_new')]);
		const page = text((await handleStandingApprovalsPage(request(store))).html);
		expect(page.indexOf('grant_new')).toBeLessThan(page.indexOf('grant_old0 '));
		expect(page.indexOf('grant_old0 ')).toBeLessThan(page.indexOf('grant_old1 '));
		expect(page).toContain(`grant_old${MAX_INACTIVE_SHOWN - 1} `);
		expect(page).not.toContain(`grant_old${MAX_INACTIVE_SHOWN} `);
		expect(page).toContain('And 3 older revoked or expired ones, not shown.');
	});

	test('a store that cannot be read is shown as such (503), never as "none"', async () => {
		const failing: GrantStore = { ...memoryStore([]).store, listAll: async () => Promise.reject(new Error('no such table: mcp_agent_grant')) };
		const answer = await handleStandingApprovalsPage(request(failing));
		expect(answer.status).toBe(503);
		expect(text(answer.html)).toContain('Standing approvals cannot be read (no such table: mcp_agent_grant): none applies until they can; calls are asked.');
		expect(answer.html).not.toContain('None.');
		const notAList: GrantStore = { ...memoryStore([]).store, listAll: async () => ({}) as never };
		expect(text((await handleStandingApprovalsPage(request(notAList))).html)).toContain('the store did not answer with a list');
	});

	test('rows that do not parse are left out; hostile values are escaped and invisible characters shown', async () => {
		const hostile = grant('grant_h', { tool: '<img src=x onerror=alert(1)>', server: 'srv\u202Eevil', grantedBy: '"><script>alert(2)</script>' });
		const { store } = memoryStore([hostile, { id: 'broken' } as unknown as Grant, { ...grant('grant_v9'), v: 9 } as unknown as Grant]);
		const workflow = { name: '</title><script>x</script>', nodes: [{ id: 'agent-a', name: 'A\u200Bgent <b>', type: 'n8n-nodes-mcp-agent.mcpAgent' }] };
		const answer = await handleStandingApprovalsPage(request(store, { signIn: async () => ({ ok: true, reviewer: '<i>me</i>', workflow }) }));
		expect(answer.status).toBe(200);
		expect(answer.html).not.toMatch(/<script|<img|<b>|<i>me/);
		expect(answer.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
		expect(answer.html).toContain('srv[U+202E]evil');
		expect(answer.html).toContain('A[U+200B]gent &lt;b&gt;');
		expect(answer.html).not.toContain('broken');
		expect(answer.html).not.toContain('grant_v9');
	});
});

describe('revoke', () => {
	test('revokes the grant of its own Agent node, records the signed-in account, and lists it as revoked', async () => {
		const { store, rows, calls } = memoryStore([grant('grant_a1'), grant('grant_b1', { nodeId: 'agent-b' })]);
		const answer = await handleStandingApprovalsPage(request(store, { body: { ...signedIn, reviewer: 'typed name is ignored', [REVOKE_FIELD]: 'grant_b1' } }));
		expect(answer.status).toBe(200);
		expect(calls.filter((c) => c.method === 'revoke')).toEqual([{ method: 'revoke', scope: { workflowId: 'wf-1', nodeId: 'agent-b' }, by: OWNER }]);
		expect(rows[1]).toMatchObject({ revokedAt: NOW.getTime(), revokedBy: OWNER });
		expect(rows[0].revokedAt).toBeUndefined();
		const page = text(answer.html);
		expect(page).toContain('Standing approval grant_b1 is revoked: calls it covered are asked again.');
		expect(page).toMatch(/Revoked by Olga Owner <owner@example.com> at 2030-01-02 00:00 UTC · grant_b1/);
		expect(answer.html).not.toContain('value="grant_b1"');
	});

	test('one-way: revoking again keeps the first revocation', async () => {
		const { store, rows } = memoryStore([grant('grant_a1', { revokedAt: NOW.getTime() - HOUR, revokedBy: 'First' })]);
		const answer = await handleStandingApprovalsPage(request(store, { body: { ...signedIn, [REVOKE_FIELD]: 'grant_a1' } }));
		expect(answer.status).toBe(200);
		expect(rows[0]).toMatchObject({ revokedAt: NOW.getTime() - HOUR, revokedBy: 'First' });
	});

	test("another workflow's grant, an unknown id and unusable ids revoke nothing", async () => {
		const { store, rows, calls } = memoryStore([grant('grant_a1'), grant('grant_x', { workflowId: 'wf-2' })]);
		for (const id of ['grant_x', 'grant_missing', '', 'x'.repeat(101), ['grant_a1', 'grant_a1'], { id: 'grant_a1' }]) {
			const answer = await handleStandingApprovalsPage(request(store, { body: { ...signedIn, [REVOKE_FIELD]: id } }));
			expect(answer.status).toBe(409);
			expect(answer.html).toMatch(/nothing was revoked/);
		}
		expect(calls.filter((c) => c.method === 'revoke')).toEqual([]);
		expect(rows.every((g) => g.revokedAt === undefined)).toBe(true);
	});

	test('a store that fails the revoke, or cannot be read, says so and changes nothing', async () => {
		const base = memoryStore([grant('grant_a1')]);
		const failing: GrantStore = { ...base.store, revoke: async () => Promise.reject(new Error('database is locked')) };
		const answer = await handleStandingApprovalsPage(request(failing, { body: { ...signedIn, [REVOKE_FIELD]: 'grant_a1' } }));
		expect(answer.status).toBe(409);
		expect(text(answer.html)).toContain('Standing approval grant_a1 could not be revoked (database is locked); try again.');
		const unreadable: GrantStore = { ...base.store, listAll: async () => Promise.reject(new Error('timeout')) };
		const blind = await handleStandingApprovalsPage(request(unreadable, { body: { ...signedIn, [REVOKE_FIELD]: 'grant_a1' } }));
		expect(blind.status).toBe(503);
		expect(text(blind.html)).toContain('could not be revoked: the standing approvals cannot be read (timeout)');
		expect(base.rows[0].revokedAt).toBeUndefined();
	});
});

describe('the node', () => {
	test('is a trigger with a GET and a POST webhook and no output; it answers the request and returns no workflow data', async () => {
		const node = new McpStandingApprovals();
		expect(node.description.group).toEqual(['trigger']);
		expect(node.description.outputs).toEqual([]);
		expect(node.description.webhooks?.map((w) => [w.httpMethod, w.path, w.restartWebhook])).toEqual([
			['GET', 'standing-approvals', undefined],
			['POST', 'standing-approvals', undefined],
		]);
		const sent: Record<string, unknown> = { headers: {} };
		const res = {
			status: (code: number) => ((sent.status = code), res),
			setHeader: (name: string, value: string) => void ((sent.headers as Record<string, string>)[name] = value),
			type: (type: string) => ((sent.type = type), res),
			send: (body: string) => void (sent.body = body),
		};
		const context = {
			getRequestObject: () => ({ method: 'GET', headers: {} }),
			getResponseObject: () => res,
			getBodyData: () => ({}),
			getWorkflow: () => ({ id: 'wf-1' }),
			getNodeParameter: () => '',
		};
		const out = await node.webhook.call(context as never);
		expect(out).toEqual({ noWebhookResponse: true });
		expect(sent).toMatchObject({ status: 200, type: 'html', headers: { 'Cache-Control': 'no-store' } });
		expect(sent.body).toContain('Sign in with your n8n account');
	});
});
