import { hashArguments } from '../../lib/agent/argumentHash';
import type { ApprovalRequest } from '../../lib/approvals/approvalRequest';
import { AttemptLimiter } from '../../lib/approvals/attemptLimiter';
import { argumentChanges } from '../../lib/approvals/decisionPage';
import { editFieldName } from '../../lib/approvals/editForm';
import { fieldName, renderReviewPage } from '../../lib/approvals/reviewPage';
import { handleReviewWebhook, REVIEW_PAGE_HEADERS } from '../../lib/approvals/reviewWebhook';
import { riskBadges } from '../../lib/approvals/riskBadges';
import { requestOrigin } from '../../lib/approvals/requestOrigin';
import { approvalRequest, pendingCall, TOKEN } from '../support/approvalFixtures';
import { formPost } from '../support/browserFormPost';

/**
 * Issue 14: the review page a person can do well in ten seconds on a phone. What the page shows
 * (origin, badges, readable arguments), how the buttons decide (per call, Approve all / Deny all for
 * the calls left unset, a reason, Edit through fields generated from the schema) and the
 * confirmation that lists exactly what was decided.
 */
const NOW = new Date('2030-01-01T01:00:00.000Z');
const mailSchema = {
	type: 'object',
	properties: {
		to: { type: 'string', format: 'email' },
		subject: { type: 'string', maxLength: 40 },
		priority: { enum: ['low', 'high'] },
		cc: { type: 'array', items: { type: 'string' } },
	},
	required: ['to', 'subject'],
	additionalProperties: false,
};

function twoCalls(): ApprovalRequest {
	return approvalRequest({
		origin: { workflow: 'Support <inbox>', node: 'Agent', trigger: 'a webhook call' },
		calls: [
			pendingCall('c1', { path: '/data/a' }),
			pendingCall('c2', { to: 'ana@example.com', subject: 'Hello', priority: 'low', cc: ['b@example.com'] }, { tool: 'send_mail', server: 'mail', inputSchema: mailSchema }),
		],
	});
}

async function post(request: ApprovalRequest, body: Record<string, unknown>) {
	return handleReviewWebhook({ method: 'POST', headers: {}, query: { reviewToken: TOKEN }, body, pending: [request], requireSignIn: false, allowedReviewers: [], workflowId: 'wf', now: NOW });
}

async function get(request: ApprovalRequest) {
	return handleReviewWebhook({ method: 'GET', headers: {}, query: { reviewToken: TOKEN }, body: undefined, pending: [request], requireSignIn: false, allowedReviewers: [], workflowId: 'wf', now: NOW });
}

const decision = (request: ApprovalRequest, callId: string) => fieldName('decision', request.approvalId, callId);
const reason = (request: ApprovalRequest, callId: string) => fieldName('reason', request.approvalId, callId);
const edit = (callId: string, ...path: Array<string | number>) => editFieldName('editvalue', 'ap1', callId, path);

describe('review page: context and cards', () => {
	it('shows where the run comes from, when it expires, and escapes the workflow name', () => {
		const html = renderReviewPage([twoCalls()], { now: NOW });
		expect(html).toContain('<dt>Workflow</dt><dd>Support &lt;inbox&gt;</dd><dt>Agent node</dt><dd>Agent</dd><dt>Started by</dt><dd>a webhook call</dd>');
		expect(html).toContain('<dt>Decide before</dt><dd>2030-01-02 00:00 UTC (in 23 hours)');
		expect(html).not.toContain('<inbox>');
	});

	it('gives each call risk badges: trusted read-only, untrusted claims, destructive, flagged, changed since pinned', () => {
		const labels = (extra: Parameters<typeof pendingCall>[2]) => riskBadges(pendingCall('c', { a: 1 }, extra)).map((b) => b.label);
		expect(labels({ annotations: { readOnlyHint: true }, annotationsTrusted: true })).toEqual(['Read-only (trusted)']);
		expect(labels({ annotations: { readOnlyHint: true }, annotationsTrusted: false })).toEqual(['May change or delete', 'Not trusted']);
		expect(labels({ annotations: { destructiveHint: true }, annotationsTrusted: true })).toEqual(['May change or delete']);
		expect(labels({ annotations: { destructiveHint: false }, annotationsTrusted: true })).toEqual([]);
		expect(labels({ warnings: ['Description asks to hide something from the user.'] })).toEqual(['Flagged', 'May change or delete', 'Not trusted']);
		expect(labels({ warnings: ['Not pinned: its definition changed since it was pinned.'] })).toEqual(['Changed since pinned', 'May change or delete', 'Not trusted']);
		expect(riskBadges(pendingCall('c', { path: '/a\u200B' })).map((b) => b.kind)).toContain('flagged');
		const html = renderReviewPage([approvalRequest({ calls: [pendingCall('c1', { a: 1 }, { warnings: ['x'] }), pendingCall('c2', { a: 2 }, { annotations: { readOnlyHint: true }, annotationsTrusted: true })] })]);
		expect(html).toMatch(/<section class="card call risk-high"[\s\S]*<span class="badge high" title="[^"]+">Flagged<span class="sr-only">/);
		expect(html).toMatch(/<section class="card call risk-low"[\s\S]*Read-only \(trusted\)/);
	});

	it('shows the arguments readably (keys, indented nesting, wrapped strings) and the exact JSON as well', () => {
		const html = renderReviewPage([approvalRequest({ calls: [pendingCall('c1', { to: { name: 'Ana', tags: ['a', 'b'] }, body: 'x'.repeat(700) })] })]);
		expect(html).toContain('<dl><dt>to</dt><dd><dl><dt>name</dt><dd><span class="v s">Ana</span></dd><dt>tags</dt><dd><ol start="0"><li><span class="v s">a</span></li>');
		expect(html).toContain('… 100 more characters: see the full JSON below');
		expect(html).toContain(`<details><summary>Full arguments as JSON</summary><pre>{\n  &quot;to&quot;: {`);
		expect(html).toContain('x'.repeat(700));
	});

	it('renders hostile text from servers and the model inert in every new part (origin, badges, argument keys, edit labels)', () => {
		const hostile = '<img src=x onerror=alert(1)>"\'';
		const request = approvalRequest({
			origin: { workflow: hostile, node: hostile, trigger: hostile },
			calls: [pendingCall('c1', { [hostile]: hostile }, { title: hostile, tool: hostile, inputSchema: { type: 'object', properties: { [hostile]: { type: 'string', description: hostile, title: hostile } } } })],
		});
		const html = renderReviewPage([request]);
		expect(html).not.toMatch(/<img|<script/i);
		expect(html).not.toContain('onerror=alert(1)>"');
		expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;');
	});

	it('puts the radios before the reason and edit boxes (CSS shows them on :checked) and "Submit decisions" first among the buttons', () => {
		const html = renderReviewPage([twoCalls()]);
		const fieldset = /<fieldset class="decide">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
		const order = ['value="approve" class="pick approve"', 'value="deny" class="pick deny"', 'value="edit" class="pick edit"', 'class="reason-box"', 'class="edit-box"'].map((t) => fieldset.indexOf(t));
		expect(order.every((i) => i >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		const buttons = [...html.matchAll(/<button type="submit"([^>]*)>([^<]*)</g)].map((m) => m[2]);
		expect(buttons).toEqual(['Submit decisions', 'Approve all', 'Deny all']);
		expect(html).toContain('@media (prefers-color-scheme:dark)');
		expect(html).not.toMatch(/<script/i);
		expect(REVIEW_PAGE_HEADERS['Content-Security-Policy']).not.toMatch(/script-src/);
	});
});

describe('review page: deciding', () => {
	it('Approve all decides only the calls left unset; a call set to Deny keeps its choice and reason', async () => {
		const request = twoCalls();
		const page = await get(request);
		const body = formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c2')]: 'deny', [reason(request, 'c2')]: 'wrong recipient', bulk: 'approve' } });
		const answer = await post(request, body);
		expect(answer.status).toBe(200);
		expect(answer.decisions?.[0].decisions).toEqual([
			{ callId: 'c1', argsHash: request.calls[0].argsHash, decision: 'approve' },
			{ callId: 'c2', argsHash: request.calls[1].argsHash, decision: 'deny', reason: 'wrong recipient' },
		]);
		expect(answer.html).toContain('<span class="verdict approve">Approved</span>: <strong>delete_file</strong>');
		expect(answer.html).toContain('<span class="verdict deny">Denied</span>: <strong>send_mail</strong>');
		expect(answer.html).toContain('<p>Reason: wrong recipient</p>');
		expect(answer.html).toContain('2 decisions recorded by Ana');
	});

	it('Deny all uses its own reason for unset calls; without a bulk button an unset call is still an error', async () => {
		const request = twoCalls();
		const page = await get(request);
		const denied = await post(request, formPost(page.html, { set: { reviewer: 'Ana', bulk: 'deny', bulkReason: 'not today' } }));
		expect(denied.decisions?.[0].decisions.map((d) => [d.decision, d.reason])).toEqual([['deny', 'not today'], ['deny', 'not today']]);
		const none = await post(request, formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c1')]: 'approve' } }));
		expect(none.status).toBe(400);
		expect(none.decisions).toBeUndefined();
		expect(none.html).toContain('Choose approve, deny or edit for send_mail (call c2).');
	});

	it('an API client cannot use the bulk buttons: every decision is named', async () => {
		const request = twoCalls();
		const answer = await post(request, { reviewer: 'Bot', bulk: 'approve', decisions: [{ approvalId: 'ap1', callId: 'c1', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		expect(answer.status).toBe(400);
		expect(answer.decisions).toBeUndefined();
	});

	it('Edit through the generated fields: the change is validated, bound to the original hash, and shown against the original', async () => {
		const request = twoCalls();
		const page = await get(request);
		expect(page.html).toContain(`name="${edit('c2', 'subject')}" value="Hello"`);
		const body = formPost(page.html, {
			set: { reviewer: 'Ana', [decision(request, 'c1')]: 'deny', [decision(request, 'c2')]: 'edit', [edit('c2', 'subject')]: 'Hello again', [edit('c2', 'priority')]: '1' },
			uncheck: [editFieldName('editkeep', 'ap1', 'c2', ['cc', 0])],
		});
		const answer = await post(request, body);
		expect(answer.status).toBe(200);
		expect(answer.decisions?.[0].decisions[1]).toEqual({
			callId: 'c2',
			argsHash: hashArguments({ to: 'ana@example.com', subject: 'Hello', priority: 'low', cc: ['b@example.com'] }),
			decision: 'edit',
			arguments: { to: 'ana@example.com', subject: 'Hello again', priority: 'high', cc: [] },
		});
		expect(answer.html).toContain('Approved with your edits');
		expect(answer.html).toContain('<tr><th scope="row"><code>subject</code></th><td><code>&quot;Hello&quot;</code></td><td><code>&quot;Hello again&quot;</code></td></tr>');
		expect(answer.html).toContain('<tr><th scope="row"><code>cc</code></th>');
	});

	it('an edit that breaks the schema decides nothing and marks the field, with the model\'s value next to it', async () => {
		const request = twoCalls();
		const page = await get(request);
		const body = formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c1')]: 'approve', [decision(request, 'c2')]: 'edit', [edit('c2', 'to')]: 'not an address' } });
		const answer = await post(request, body);
		expect(answer.status).toBe(400);
		expect(answer.decisions).toBeUndefined();
		expect(answer.html).toMatch(/do not match the tool&#39;s schema: arguments\.to must match format &quot;email&quot;/);
		const field = /<div class="edit-field changed invalid">([\s\S]*?)<\/div>/.exec(answer.html)?.[1] ?? '';
		expect(field).toContain('value="not an address"');
		expect(field).toContain('Model\'s value: <code>ana@example.com</code>');
		expect(field).toContain('<span class="field-error">to must match format &quot;email&quot;</span>');
		// The reviewer's choices come back as they were.
		expect(answer.html).toContain(`name="${decision(request, 'c2')}" value="edit" class="pick edit" id="${decision(request, 'c2')}-edit" checked`);
	});

	it('"Edit as JSON instead" takes the JSON text over the fields', async () => {
		const request = twoCalls();
		const page = await get(request);
		const body = formPost(page.html, {
			set: { reviewer: 'Ana', [decision(request, 'c1')]: 'approve', [decision(request, 'c2')]: 'edit', [fieldName('args', 'ap1', 'c2')]: '{"to":"x@example.com","subject":"S"}' },
			check: [editFieldName('editjson', 'ap1', 'c2')],
		});
		const answer = await post(request, body);
		expect(answer.decisions?.[0].decisions[1]).toMatchObject({ decision: 'edit', arguments: { to: 'x@example.com', subject: 'S' } });
	});
});

describe('review page: editing as JSON keeps every character', () => {
	const args = { text: 'Great job \u2764\uFE0F', path: 'fam \u{1F468}\u200D\u{1F469}', note: 'x\u0085y' };

	it('the JSON box shows invisible characters as \\u escapes, and submitting it unchanged gives back the same arguments', async () => {
		const request = approvalRequest({ calls: [pendingCall('c1', args, { inputSchema: { type: 'object' } })] });
		const page = await get(request);
		expect(page.html).toContain('\\ufe0f');
		const answer = await post(request, formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c1')]: 'edit' } }));
		expect(answer.status).toBe(200);
		const [decided] = answer.decisions![0].decisions;
		expect(decided.arguments ?? args).toEqual(args);
	});

	it('"Edit as JSON instead" under the fields does the same', async () => {
		const schema = { type: 'object', properties: { text: { type: 'string' }, path: { type: 'string' }, note: { type: 'string' } } };
		const request = approvalRequest({ calls: [pendingCall('c1', args, { inputSchema: schema })] });
		const page = await get(request);
		const useJson = editFieldName('editjson', request.approvalId, 'c1');
		expect(page.html).toContain(`name="${useJson}"`);
		const answer = await post(request, formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c1')]: 'edit' }, check: [useJson] }));
		expect(answer.status).toBe(200);
		const [decided] = answer.decisions![0].decisions;
		expect(decided.arguments ?? args).toEqual(args);
	});
});

describe('review page: a call decided twice in one submission', () => {
	it('is refused, by the JSON API and by a form that sent a field twice, and nothing is decided', async () => {
		const request = twoCalls();
		const [c1, c2] = request.calls;
		const api = await post(request, {
			reviewer: 'Ana',
			decisions: [
				{ approvalId: 'ap1', callId: 'c1', argsHash: c1.argsHash, decision: 'approve' },
				{ approvalId: 'ap1', callId: 'c2', argsHash: c2.argsHash, decision: 'deny' },
				{ approvalId: 'ap1', callId: 'c2', argsHash: c2.argsHash, decision: 'approve' },
			],
		});
		expect(api.status).toBe(400);
		expect(api.decisions).toBeUndefined();
		expect(api.html).toContain('The call ap1/c2 has more than one decision.');
		const page = await get(request);
		const form = formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c1')]: 'approve' } });
		const twice = await post(request, { ...form, [decision(request, 'c2')]: ['deny', 'approve'] });
		expect(twice.status).toBe(400);
		expect(twice.decisions).toBeUndefined();
		expect(twice.html).toContain('was sent more than once');
	});
});

describe('review page: sign-in attempts', () => {
	it('sign-ins sent all at once are limited like sign-ins sent one after another; one that succeeds costs no attempt', async () => {
		const request = approvalRequest({ calls: [pendingCall('c1', { path: '/data/a' })] });
		const page = await get(request);
		const body = formPost(page.html, { set: { reviewer: 'Ana', [decision(request, 'c1')]: 'approve' } });
		const limiter = new AttemptLimiter({ maxFailures: 5, windowMs: 15 * 60_000 });
		let tried = 0;
		const refused = async () => {
			tried++;
			await new Promise((resolve) => setTimeout(resolve, 20));
			return { ok: false as const, kind: 'rejected' as const, error: 'wrong password' };
		};
		const submit = (signIn: typeof refused | (() => Promise<{ ok: true; reviewer: string }>)) =>
			handleReviewWebhook({ method: 'POST', headers: {}, query: { reviewToken: TOKEN }, body, pending: [request], requireSignIn: true, allowedReviewers: [], workflowId: 'wf', now: NOW, signIn, limiter });
		const ok = async () => ({ ok: true as const, reviewer: 'ana@example.com' });
		expect((await submit(ok)).status).toBe(200);
		const answers = await Promise.all(Array.from({ length: 40 }, () => submit(refused)));
		expect(tried).toBe(5);
		expect(answers.filter((answer) => answer.status === 401)).toHaveLength(5);
		expect(answers.filter((answer) => answer.status === 429)).toHaveLength(35);
	});
});

describe('argumentChanges', () => {
	it('lists changed, added and removed values by path', () => {
		expect(argumentChanges({ a: 1, b: { c: 'x', d: [1, 2] }, e: 1 }, { a: 1, b: { c: 'y', d: [1, 3] }, f: true })).toEqual([
			{ path: 'b.c', before: 'x', after: 'y' },
			{ path: 'b.d[1]', before: 2, after: 3 },
			{ path: 'e', before: 1 },
			{ path: 'f', after: true },
		]);
	});
});

describe('requestOrigin', () => {
	it('names the workflow, the node and what started the execution, in words', () => {
		expect(requestOrigin('Support', 'MCP Agent', 'webhook')).toEqual({ workflow: 'Support', node: 'MCP Agent', trigger: 'a webhook call' });
		expect(requestOrigin(undefined, 'A', 'somethingNew')).toEqual({ node: 'A', trigger: 'n8n execution mode "somethingNew"' });
		expect(requestOrigin(undefined, undefined, undefined)).toEqual({});
	});
});
