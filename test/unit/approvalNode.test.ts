import { McpApproval } from '../../nodes/McpApproval/McpApproval.node';
import { fieldName } from '../../lib/approvals/reviewPage';
import { signInTiming } from '../../lib/approvals/n8nSignIn';
import { hashArguments } from '../../lib/agent/argumentHash';
import type { ApprovalRequest } from '../../lib/approvals/approvalRequest';
import { MAX_CALLS_PER_PAGE } from '../../lib/approvals/reviewerAccess';
import { MAX_TOOL_CALLS_PER_TURN } from '../../lib/agent/step';
import { approvalRequest, pendingCall, submitForm, TOKEN } from '../support/approvalFixtures';
import { recentDecisions } from '../../lib/approvals/recentDecisions';

/**
 * MCP Approval's webhook driven through a fake n8n webhook context: what a visitor of the review
 * URL gets, with or without the review secret, and what resumes the execution.
 */
interface HookInput {
	method?: 'GET' | 'POST';
	query?: Record<string, unknown>;
	body?: Record<string, unknown>;
	headers?: Record<string, string>;
	pending: ApprovalRequest[];
	requireLogin?: boolean;
	allowedReviewers?: string;
	workflowId?: string;
}

async function hook(input: HookInput) {
	const res = {
		statusCode: 0,
		headers: {} as Record<string, string>,
		body: undefined as unknown,
		status(code: number) { this.statusCode = code; return this; },
		setHeader(name: string, value: string) { this.headers[name.toLowerCase()] = value; },
		type() { return this; },
		json(body: unknown) { this.body = body; },
		send(body: unknown) { this.body = body; },
	};
	const params: Record<string, unknown> = {
		pendingRequests: input.pending,
		requireLogin: input.requireLogin ?? false,
		allowedReviewers: input.allowedReviewers ?? '',
	};
	const context = {
		getRequestObject: () => ({ method: input.method ?? 'GET', headers: input.headers ?? {}, query: input.query ?? {} }),
		getResponseObject: () => res,
		getNodeParameter: (name: string, fallback: unknown) => (name in params ? params[name] : fallback),
		getBodyData: () => input.body ?? {},
		getWorkflow: () => ({ id: input.workflowId ?? 'wf1' }),
		getNode: () => ({ name: 'MCP Approval' }),
	};
	const out = await new McpApproval().webhook.call(context as never);
	return { status: res.statusCode, headers: res.headers, html: typeof res.body === 'string' ? res.body : '', json: res.body, out };
}

const approveAll = (pending: ApprovalRequest[], reviewer = 'Ana') => {
	const body: Record<string, unknown> = { reviewer };
	for (const request of pending) for (const call of request.calls) {
		body[fieldName('decision', request.approvalId, call.callId)] = 'approve';
		body[fieldName('hash', request.approvalId, call.callId)] = call.argsHash;
	}
	return body;
};

// The fixtures decide approval ap1 in test after test; n8n never decides one approval twice.
beforeEach(() => recentDecisions.forgetAll());

describe('MCP Approval: two submissions of one review at the same moment', () => {
	it('resumes the execution with the first only; the other is refused with 409 and decides nothing (n8n 1.x would resume twice)', async () => {
		const pending = [approvalRequest()];
		const body = { ...approveAll(pending), reviewToken: TOKEN };
		const both = await Promise.all([1, 2].map(() => hook({ method: 'POST', query: { reviewToken: TOKEN }, body, pending })));
		const resumed = both.filter((got) => got.out.workflowData);
		expect(resumed).toHaveLength(1);
		expect(resumed[0].status).toBe(200);
		const refused = both.find((got) => !got.out.workflowData)!;
		expect(refused.status).toBe(409);
		expect(refused.out).toEqual({ noWebhookResponse: true });
		expect(refused.html).toContain('A decision for this review arrived a moment ago');
	});

	it('a page that decides a different approval of the same execution is not held up', async () => {
		const first = [approvalRequest()];
		const second = [approvalRequest({ approvalId: 'ap2' })];
		const a = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: { ...approveAll(first), reviewToken: TOKEN }, pending: first });
		const b = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: { ...approveAll(second), reviewToken: TOKEN }, pending: second });
		expect([a.status, b.status]).toEqual([200, 200]);
		expect(b.out.workflowData).toBeDefined();
	});
});

describe('MCP Approval: the review secret (issue 10, point 12)', () => {
	const pending = [approvalRequest()];

	it('answers 401 without the secret and 403 with a wrong one, revealing nothing of the pending calls', async () => {
		for (const [query, status] of [[{}, 401], [{ reviewToken: 'guess' }, 403], [{ reviewToken: ['a', 'b'] }, 401]] as const) {
			for (const headers of [{}, { accept: 'application/json' }] as Array<Record<string, string>>) {
				const got = await hook({ query, headers, pending });
				expect(got.status).toBe(status);
				const shown = got.html || JSON.stringify(got.json);
				expect(shown).not.toContain('delete_file');
				expect(shown).not.toContain('/data/b');
				expect(shown).not.toContain('clean up');
				expect(got.out).toEqual({ noWebhookResponse: true });
			}
		}
	});

	it('shows the page with the right secret, and puts the secret into a hidden field for the POST', async () => {
		const got = await hook({ query: { reviewToken: TOKEN }, pending });
		expect(got.status).toBe(200);
		expect(got.html).toContain('/data/b');
		expect(got.html).toContain(`<input type="hidden" name="reviewToken" value="${TOKEN}">`);
	});

	it('refuses a POST with a wrong or missing secret even when the decisions are well-formed', async () => {
		for (const query of [{}, { reviewToken: 'nope' }]) {
			const got = await hook({ method: 'POST', query, body: approveAll(pending), pending });
			expect([401, 403]).toContain(got.status);
			expect(got.out).toEqual({ noWebhookResponse: true });
		}
		const hidden = await hook({ method: 'POST', body: { ...approveAll(pending), reviewToken: 'nope' }, pending });
		expect(hidden.status).toBe(403);
		expect(hidden.out).toEqual({ noWebhookResponse: true });
	});

	it('decides with the secret from the URL or from the form field', async () => {
		const viaQuery = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: approveAll(pending), pending });
		expect(viaQuery.status).toBe(200);
		expect(viaQuery.out).toMatchObject({ workflowData: [[{ json: { approvalId: 'ap1', reviewer: 'Ana', decisions: [{ callId: 'c2', decision: 'approve' }] } }]] });
		// Another execution's page in real life (each approval is decided once): the shared memory of recent decisions forgets ap1.
		recentDecisions.forgetAll();
		const viaField = await hook({ method: 'POST', body: { ...approveAll(pending), reviewToken: TOKEN }, pending });
		expect(viaField.status).toBe(200);
	});

	it('shows and decides only the approvals whose secret matches', async () => {
		const other = approvalRequest({ approvalId: 'ap2', calls: [pendingCall('c9', { path: '/other' })] }, 'token-of-ap2-xxxxxxxxxxxxxxxx');
		const got = await hook({ query: { reviewToken: TOKEN }, pending: [pending[0], other] });
		expect(got.html).toContain('/data/b');
		expect(got.html).not.toContain('/other');
		const post = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: approveAll([pending[0], other]), pending: [pending[0], other] });
		expect(post.status).toBe(200);
		const resumed = (post.out as { workflowData: Array<Array<{ json: { approvalId: string; kind: string } }>> }).workflowData[0].map((i) => i.json);
		// ap1 is decided; ap2 (another link's approval) goes on unchanged, so the Agent hands it out again instead of losing it.
		expect(resumed.map((json) => [json.kind, json.approvalId])).toEqual([['mcp-agent.approval-decision', 'ap1'], ['mcp-agent.approval-request', 'ap2']]);
		expect(resumed[1]).toEqual(other);
	});

	it('fails closed on request items without a review secret (older package versions) and says to re-run', async () => {
		const legacy = [approvalRequest({}, null)];
		for (const query of [{}, { reviewToken: TOKEN }]) {
			const got = await hook({ query, pending: legacy });
			expect(got.status).toBe(403);
			expect(got.html).toMatch(/Re-run the workflow/);
			expect(got.html).not.toContain('/data/b');
		}
		const post = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: approveAll(legacy), pending: legacy });
		expect(post.status).toBe(403);
		expect(post.out).toEqual({ noWebhookResponse: true });
	});
});

describe('MCP Approval: argument integrity (point 11) and expiry (point 7)', () => {
	it('refuses a request whose arguments no longer match their hash, without showing them', async () => {
		const original = approvalRequest();
		const tampered = { ...original, calls: [{ ...original.calls[0], arguments: { path: '/harmless.txt' } }] };
		const got = await hook({ query: { reviewToken: TOKEN }, pending: [tampered] });
		expect(got.html).toMatch(/not shown as this review was opened for it/);
		expect(got.html).not.toContain('/harmless.txt');
		expect(got.html).not.toContain('type="radio"');
		const json = await hook({ query: { reviewToken: TOKEN }, headers: { accept: 'application/json' }, pending: [tampered] });
		expect(JSON.stringify(json.json)).not.toContain('/harmless.txt');
		const post = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: approveAll([original]), pending: [tampered] });
		expect(post.status).toBe(409);
		expect(post.out).toEqual({ noWebhookResponse: true });
	});

	it('shows an expired request as expired, not decidable, and refuses a decision posted after expiresAt', async () => {
		const expired = approvalRequest({ expiresAt: '2020-01-01T00:00:00.000Z' });
		const got = await hook({ query: { reviewToken: TOKEN }, pending: [expired] });
		expect(got.html).toContain('This review expired at 2020-01-01T00:00:00.000Z');
		expect(got.html).not.toContain('type="radio"');
		const post = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: approveAll([expired]), pending: [expired] });
		expect(post.status).toBe(410);
		expect(post.html).toContain('This review expired at 2020-01-01T00:00:00.000Z');
		expect(post.out).toEqual({ noWebhookResponse: true });
	});
});

describe('MCP Approval: the review page answer (point 13)', () => {
	it('sends nosniff, no-referrer, no-store, DENY framing and the CSP on every answer', async () => {
		for (const query of [{}, { reviewToken: TOKEN }]) {
			const got = await hook({ query, pending: [approvalRequest()] });
			expect(got.headers).toMatchObject({
				'x-content-type-options': 'nosniff',
				'referrer-policy': 'no-referrer',
				'cache-control': 'no-store',
				'x-frame-options': 'DENY',
				'content-security-policy': expect.stringContaining("default-src 'none'"),
			});
		}
	});
});

describe('MCP Approval: call ids a browser would change (point 6)', () => {
	it.each([['line break', 'call\n1'], ['carriage return', 'call\r1'], ['zero-width space', 'call\u200B1'], ['variation selector', 'call\uFE0F1']])(
		'a call id with a %s still makes a submittable form',
		async (_label, callId) => {
			const pending = [approvalRequest({ calls: [pendingCall(callId, { path: '/data/b' })] })];
			const page = await hook({ query: { reviewToken: TOKEN }, pending });
			for (const m of page.html.matchAll(/name="([^"]*)"/g)) expect(m[1]).toMatch(/^[A-Za-z]+(__[0-9a-f]+)?$/);
			const body = submitForm(page.html, () => 'approve', { reviewer: 'Ana' });
			const got = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body, pending });
			expect(got.status).toBe(200);
			expect(got.out).toMatchObject({ workflowData: [[{ json: { decisions: [{ callId, decision: 'approve' }] } }]] });
		},
	);
});

describe('MCP Approval: caps (point 10)', () => {
	it('shows at most MAX_CALLS_PER_PAGE calls; more are listed as hidden, cannot be decided there, and nothing is denied', async () => {
		expect(MAX_CALLS_PER_PAGE).toBeGreaterThanOrEqual(MAX_TOOL_CALLS_PER_TURN);
		const calls = Array.from({ length: MAX_CALLS_PER_PAGE + 1 }, (_, i) => pendingCall(`c${i}`, { path: `/f${i}` }));
		const pending = [approvalRequest({ calls })];
		const page = await hook({ query: { reviewToken: TOKEN }, pending });
		expect(page.html).toContain(`${MAX_CALLS_PER_PAGE + 1} more calls (in 1 approval) are not shown: one page holds at most ${MAX_CALLS_PER_PAGE} calls`);
		expect(page.html).not.toContain('type="radio"');
		const post = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: approveAll(pending), pending });
		expect(post.status).toBe(409);
		expect(post.out).toEqual({ noWebhookResponse: true });
	});

	it('refuses edited arguments over 256 KB, a reason over 2000 characters and an oversized body, deciding nothing', async () => {
		const pending = [approvalRequest()];
		const field = (kind: 'decision' | 'reason' | 'args' | 'hash') => fieldName(kind, 'ap1', 'c2');
		const base = { reviewer: 'Ana', [field('hash')]: hashArguments({ path: '/data/b' }) };
		const big = await hook({ method: 'POST', query: { reviewToken: TOKEN }, pending, body: { ...base, [field('decision')]: 'edit', [field('args')]: JSON.stringify({ path: 'x'.repeat(300 * 1024) }) } });
		expect(big.status).toBe(400);
		expect(big.html).toMatch(/edited arguments for delete_file \(call c2\) are 301 KB of JSON; at most 256 KB/);
		expect(big.out).toEqual({ noWebhookResponse: true });
		const reason = await hook({ method: 'POST', query: { reviewToken: TOKEN }, pending, body: { ...base, [field('decision')]: 'deny', [field('reason')]: 'r'.repeat(2001) } });
		expect(reason.status).toBe(400);
		expect(reason.html).toMatch(/2001 characters; at most 2000/);
		const huge = await hook({ method: 'POST', query: { reviewToken: TOKEN }, pending, body: { ...base, [field('decision')]: 'approve', padding: 'p'.repeat(5 * 1024 * 1024) } });
		expect(huge.status).toBe(413);
		expect(huge.out).toEqual({ noWebhookResponse: true });
	});
});

describe('MCP Approval: Require n8n Login (point 4)', () => {
	const pending = [approvalRequest({ approvalId: `ap-login-${Date.now()}` })];
	let fetchSpy: jest.SpyInstance;
	let loginCalls = 0;
	let loginStatus = 200;
	let workflowStatus = 200;
	const workflowIds: string[] = [];

	const floor = signInTiming.rejectFloorMs;
	beforeAll(() => { signInTiming.rejectFloorMs = 0; });
	afterAll(() => { signInTiming.rejectFloorMs = floor; });

	beforeEach(() => {
		loginCalls = 0;
		loginStatus = 200;
		workflowStatus = 200;
		workflowIds.length = 0;
		fetchSpy = jest.spyOn(globalThis, 'fetch').mockImplementation((async (url: string) => {
			const path = new URL(String(url)).pathname;
			if (path.endsWith('/rest/login')) {
				loginCalls += 1;
				if (loginStatus !== 200) return new Response(JSON.stringify({ message: loginStatus === 429 ? 'Too many requests' : 'Wrong username or password.' }), { status: loginStatus });
				return new Response(JSON.stringify({ data: { email: 'mia@example.com', firstName: 'Mia', lastName: 'Member' } }), { status: 200, headers: { 'set-cookie': 'n8n-auth=s; Path=/; HttpOnly' } });
			}
			if (path.includes('/rest/workflows/')) {
				workflowIds.push(decodeURIComponent(path.split('/rest/workflows/')[1]));
				return workflowStatus === 200
					? new Response(JSON.stringify({ data: { id: workflowIds[workflowIds.length - 1], scopes: ['workflow:read', 'workflow:execute'] } }), { status: 200 })
					: new Response(JSON.stringify({ message: 'User is missing a scope required to perform this action' }), { status: workflowStatus });
			}
			return new Response(JSON.stringify({ data: { loggedOut: true } }), { status: 200 });
		}) as never);
	});
	afterEach(() => fetchSpy.mockRestore());

	const signInBody = (extra: Record<string, unknown> = {}, list: ApprovalRequest[] = pending) => {
		const { reviewer: _name, ...decisions } = approveAll(list);
		return { ...decisions, email: 'mia@example.com', password: 'pw', ...extra };
	};

	it('lets an account that may act on this workflow decide, checked against the webhook\'s workflow id', async () => {
		const got = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody(), pending, requireLogin: true, workflowId: 'wf-42' });
		expect(got.status).toBe(200);
		expect(workflowIds).toEqual(['wf-42']);
		expect(got.out).toMatchObject({ workflowData: [[{ json: { reviewer: 'Mia Member <mia@example.com>' } }]] });
	});

	it('refuses an account without access to the workflow with the same message as a wrong password', async () => {
		workflowStatus = 403;
		const noAccess = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, [approvalRequest({ approvalId: 'ap-noaccess' })]), pending: [approvalRequest({ approvalId: 'ap-noaccess' })], requireLogin: true });
		workflowStatus = 200;
		loginStatus = 401;
		const wrong = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, [approvalRequest({ approvalId: 'ap-wrongpw' })]), pending: [approvalRequest({ approvalId: 'ap-wrongpw' })], requireLogin: true });
		for (const got of [noAccess, wrong]) {
			expect(got.status).toBe(401);
			expect(got.out).toEqual({ noWebhookResponse: true });
			expect(got.html).toContain('Sign-in failed: check the e-mail, the password and, if your account uses two-factor authentication, the code');
			expect(got.html).not.toMatch(/not correct|uses two-factor authentication: enter/);
		}
	});

	it('with Allowed Reviewers, refuses other accounts even when they may run the workflow', async () => {
		const other = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, [approvalRequest({ approvalId: 'ap-allow-1' })]), pending: [approvalRequest({ approvalId: 'ap-allow-1' })], requireLogin: true, allowedReviewers: 'ops@example.com' });
		expect(other.status).toBe(401);
		expect(other.out).toEqual({ noWebhookResponse: true });
		const listed = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, [approvalRequest({ approvalId: 'ap-allow-2' })]), pending: [approvalRequest({ approvalId: 'ap-allow-2' })], requireLogin: true, allowedReviewers: 'ops@example.com,\nMIA@example.com' });
		expect(listed.status).toBe(200);
	});

	it('after 5 failed sign-ins on one approval answers 429 without calling n8n; other approvals are unaffected', async () => {
		loginStatus = 401;
		const limited = [approvalRequest({ approvalId: 'ap-limited' })];
		for (let i = 0; i < 5; i++) expect((await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, limited), pending: limited, requireLogin: true })).status).toBe(401);
		expect(loginCalls).toBe(5);
		loginStatus = 200;
		const blocked = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, limited), pending: limited, requireLogin: true });
		expect(blocked.status).toBe(429);
		expect(blocked.html).toMatch(/Too many failed sign-in attempts for this review\. Try again in 15 minutes\./);
		expect(loginCalls).toBe(5);
		expect(blocked.out).toEqual({ noWebhookResponse: true });
		const fresh = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, [approvalRequest({ approvalId: 'ap-fresh' })]), pending: [approvalRequest({ approvalId: 'ap-fresh' })], requireLogin: true });
		expect(fresh.status).toBe(200);
	});

	it("reports n8n's own 429 as a rate limit", async () => {
		loginStatus = 429;
		const got = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({}, [approvalRequest({ approvalId: 'ap-n8n429' })]), pending: [approvalRequest({ approvalId: 'ap-n8n429' })], requireLogin: true });
		expect(got.status).toBe(429);
		expect(got.html).toMatch(/limiting sign-in attempts/);
		expect(got.html).not.toMatch(/Sign-in failed/);
	});

	it('never shows the password or code again after a failure', async () => {
		loginStatus = 401;
		const got = await hook({ method: 'POST', query: { reviewToken: TOKEN }, body: signInBody({ password: 'hunter2-secret', mfaCode: '918273' }, [approvalRequest({ approvalId: 'ap-echo' })]), pending: [approvalRequest({ approvalId: 'ap-echo' })], requireLogin: true });
		expect(got.html).not.toContain('hunter2-secret');
		expect(got.html).not.toContain('918273');
	});
});
