/**
 * The review page's form for input a server asked for during a call (issue 11): every field type of
 * MCP's restricted requested schema, defaults pre-filled (SEP-1034), required fields marked, values
 * converted back to the schema's types and validated, errors next to the form with nothing decided,
 * URL mode, hostile text escaped, the integrity of the requests, and the JSON API. The page is
 * driven through handleReviewWebhook with what a browser would post for it, and the decision it
 * yields is applied to the real run state.
 */
import { createRun, nextEffect, step } from '../../lib/agent/step';
import type { AgentState, PlannedCall } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { buildApprovalRequest, type ApprovalRequest } from '../../lib/approvals/approvalRequest';
import { fieldName } from '../../lib/approvals/reviewPage';
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import { inputFieldName } from '../../lib/approvals/inputForm';
import { hashReviewToken } from '../../lib/approvals/reviewToken';
import { browserPost, signedDecision, TOKEN } from '../support/approvalFixtures';

const SCHEMA = {
	type: 'object',
	properties: {
		name: { type: 'string', title: 'Full name', description: 'As on your passport', minLength: 2, maxLength: 50, default: 'Ana Lima' },
		email: { type: 'string', format: 'email', title: 'E-mail' },
		site: { type: 'string', format: 'uri', title: 'Web site' },
		day: { type: 'string', format: 'date', title: 'Day', default: '2030-05-01' },
		at: { type: 'string', format: 'date-time', title: 'Departure', default: '2030-05-01T10:30:00Z' },
		seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 4, default: 2 },
		budget: { type: 'number', title: 'Budget', minimum: 0 },
		insurance: { type: 'boolean', title: 'Insurance', default: true },
		cls: { type: 'string', title: 'Class', enum: ['eco', 'biz'], enumNames: ['Economy', 'Business'], default: 'biz' },
		meal: { type: 'string', title: 'Meal', oneOf: [{ const: 'veg', title: 'Vegetarian' }, { const: 'std', title: 'Standard' }] },
		extras: { type: 'array', title: 'Extras', items: { type: 'string', enum: ['wifi', 'lounge', 'bag'] }, default: ['lounge'] },
		perks: { type: 'array', title: 'Perks', items: { anyOf: [{ const: 'a', title: 'Perk A' }, { const: 'b', title: 'Perk B' }] }, maxItems: 1 },
	},
	required: ['name', 'email', 'seats', 'cls'],
};
const FORM = { method: 'elicitation/create', params: { message: 'Who is travelling?', requestedSchema: SCHEMA } };
const LINK = { method: 'elicitation/create', params: { mode: 'url', message: 'Pay the deposit', url: 'https://pay.example.com/checkout?id=42', elicitationId: 'el-1' } };

const tools: CatalogTool[] = [
	{ providerName: 'book_trip', mcpName: 'book_trip', serverId: 'srv', serverName: 'travel', description: 'Books a trip', inputSchema: { type: 'object' }, annotationsTrusted: true, annotations: { readOnlyHint: true }, fingerprint: 'sha256:aaa' },
];
const NOW = new Date('2030-01-01T12:00:00.000Z');

/** A run paused because book_trip's server asked for `requests`, and its Needs Approval item. */
function paused(requests: Record<string, unknown>): { state: AgentState; request: ApprovalRequest } {
	let state = createRun({
		provider: 'anthropic',
		settings: { model: 'm', maxIterations: 5, maxOutputTokens: 10, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000, approval: { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [] } },
		tools,
		userMessage: 'book my trip',
	});
	state = step(state, {
		type: 'model_turn',
		turn: { transcriptItems: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'book_trip', input: { to: 'LIS' } }] }], text: 'Booking.', toolCalls: [{ id: 'c1', name: 'book_trip', rawArguments: { to: 'LIS' } }], stop: 'tool_use', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
	});
	state = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [{ id: 'c1', inputRequests: requests as never, requestState: 'rs-1' }] });
	const approval = { id: 'ap1', requestedAt: '2030-01-01T00:00:00.000Z', expiresAt: '2030-01-02T00:00:00.000Z' };
	state = step(state, { type: 'approval_opened', approval });
	const effect = nextEffect(state);
	if (effect.type !== 'request_approval') throw new Error(effect.type);
	const request = buildApprovalRequest(state, approval, effect.calls, { reviewUrl: `http://n8n/webhook-waiting/1?reviewToken=${TOKEN}`, reviewTokenHash: hashReviewToken(TOKEN) });
	return { state, request: JSON.parse(JSON.stringify(request)) as ApprovalRequest };
}

function hook(request: ApprovalRequest, method: 'GET' | 'POST', body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
	return handleReviewWebhook({ method, headers, query: { reviewToken: TOKEN }, body, pending: [request], requireSignIn: false, allowedReviewers: [], workflowId: 'wf', now: NOW });
}

const value = (key: string, property: string, option?: number) => inputFieldName('value', 'ap1', 'c1', key, property, option);
const action = (key: string) => inputFieldName('action', 'ap1', 'c1', key);
const callOf = (state: AgentState) => (state.phase as Extract<AgentState['phase'], { name: 'run_tools' }>).calls[0] as PlannedCall;

describe('review page: a form generated from the requested schema', () => {
	const { request } = paused({ who: FORM });
	let html = '';
	beforeAll(async () => {
		html = (await hook(request, 'GET')).html;
	});
	const input = (key: string, property: string) => new RegExp(`<input type="([^"]+)" name="${value(key, property)}" value="([^"]*)"[^>]*>`).exec(html);

	it('shows the server\'s message and a field per property, labelled from title and description, required ones marked', () => {
		expect(html).toContain('<legend>The server asks for input</legend>');
		expect(html).toContain('<p class="input-message">Who is travelling?</p>');
		expect(html).toMatch(/<span class="field-label">Full name<\/span> <span class="required">required<\/span> <span class="meta">\(at least 2 characters, at most 50 characters\)<\/span><span class="field-description">As on your passport<\/span>/);
		for (const label of ['E-mail', 'Seats', 'Class']) expect(html).toMatch(new RegExp(`<span class="field-label">${label}</span> <span class="required">required</span>`));
		for (const label of ['Web site', 'Day', 'Departure', 'Budget', 'Insurance', 'Meal', 'Extras', 'Perks']) {
			expect(html).toMatch(new RegExp(`<span class="field-label">${label}</span>(?! <span class="required">)`));
		}
		// This call needed no review: no approve/deny choice, only the input.
		expect(html).not.toContain(`name="${fieldName('decision', 'ap1', 'c1')}"`);
		expect(html).toContain('only the server\'s request for input below needs an answer');
		// The call already ran: the lead must not say the agent "wants to run" it.
		expect(html).toContain('A tool server needs your answer before the call below can finish.');
		expect(html).not.toContain('wants to run the calls below');
	});

	it('uses an input type per field type and pre-fills the defaults (SEP-1034)', () => {
		expect(input('who', 'name')?.slice(1)).toEqual(['text', 'Ana Lima']);
		// Text with a keyboard hint, not type="email"/"url": a server default that breaks a browser
		// constraint (an integer default of 2.5 under step="1", seconds under the 60 s step of a
		// datetime-local) would stop the browser from sending the form, even to Decline.
		expect(input('who', 'email')?.slice(1)).toEqual(['text', '']);
		expect(input('who', 'email')?.[0]).toContain('inputmode="email"');
		expect(input('who', 'site')?.slice(1)).toEqual(['text', '']);
		expect(input('who', 'site')?.[0]).toContain('inputmode="url"');
		expect(input('who', 'day')?.slice(1)).toEqual(['date', '2030-05-01']);
		expect(input('who', 'at')?.slice(1)).toEqual(['datetime-local', '2030-05-01T10:30:00']);
		expect(input('who', 'at')?.[0]).toContain('step="1"');
		expect(html).toContain('(date and time in UTC)');
		expect(input('who', 'seats')?.[0]).toContain('type="number" name="' + value('who', 'seats') + '" value="2" step="any"');
		expect(input('who', 'budget')?.[0]).toContain('step="any"');
		expect(html).toContain(`<input type="radio" name="${value('who', 'insurance')}" value="true" checked> Yes`);
		expect(html).toMatch(new RegExp(`<select name="${value('who', 'cls')}"><option value="">\\(none\\)</option><option value="0">Economy</option><option value="1" selected>Business</option></select>`));
		expect(html).toContain('<option value="0">Vegetarian</option><option value="1">Standard</option>');
		expect(html).toContain(`<input type="checkbox" name="${value('who', 'extras', 1)}" value="1" checked> lounge`);
		expect(html).toContain(`<input type="checkbox" name="${value('who', 'extras', 0)}" value="0"> wifi`);
		expect(html).toContain('Perk A');
		// No browser-side constraints: a Decline must be sendable whatever the fields hold.
		expect(html).not.toMatch(/<input[^>]*name="in[^"]*"[^>]*\s(required|min|max|minlength|maxlength)=/);
		expect(html).toContain(`<input type="radio" name="${action('who')}" value="accept" required> Accept (send these values)`);
	});

	it('a browser\'s post of the filled form resumes the run with the values in the schema\'s types', async () => {
		const { state, request: req } = paused({ who: FORM });
		const page = (await hook(req, 'GET')).html;
		const post = browserPost(page, { reviewer: 'Ana', [value('who', 'email')]: 'ana@example.com', [value('who', 'budget')]: '99.5', [value('who', 'meal')]: '0', [value('who', 'perks', 1)]: '1', [action('who')]: 'accept' });
		const answer = await hook(req, 'POST', post);
		expect(answer.status).toBe(200);
		const content = { name: 'Ana Lima', email: 'ana@example.com', day: '2030-05-01', at: '2030-05-01T10:30:00Z', seats: 2, budget: 99.5, insurance: true, cls: 'biz', meal: 'veg', extras: ['lounge'], perks: ['b'] };
		const unsigned = { kind: 'mcp-agent.approval-decision', approvalId: 'ap1', reviewer: 'Ana', decidedAt: NOW.toISOString(), decisions: [{ callId: 'c1', argsHash: req.calls[0].argsHash, inputHash: req.calls[0].input?.inputHash, inputResponses: { who: { action: 'accept', content } } }] };
		// With MCP Approval's proof under this approval's decision key (decisionProof.ts).
		expect(answer.decisions).toEqual([signedDecision(unsigned)]);
		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: answer.decisions?.[0].decisions as never, reviewer: 'Ana', decidedAt: NOW.toISOString() });
		expect(nextEffect(decided)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1', input: { status: 'answered', requestState: 'rs-1', responses: { who: { action: 'accept', content } } } }] });
	});

	it('refuses answers the run would refuse on resume (over 64 KB), next to the form, deciding nothing', async () => {
		const notes = { method: 'elicitation/create', params: { message: 'Notes?', requestedSchema: { type: 'object', properties: { notes: { type: 'string' } } } } };
		const { request: req } = paused({ q: notes });
		const page = (await hook(req, 'GET')).html;
		const answer = await hook(req, 'POST', browserPost(page, { reviewer: 'Ana', [action('q')]: 'accept', [value('q', 'notes')]: 'x'.repeat(70 * 1024) }));
		expect(answer.status).toBe(400);
		expect(answer.decisions).toBeUndefined();
		expect(answer.html).toContain('the answers are larger than 64 KB');
	});

	it('shows validation errors next to the form, decides nothing, and keeps what the person entered', async () => {
		const post = browserPost(html, { reviewer: 'Ana', [value('who', 'email')]: 'not-an-email', [value('who', 'seats')]: '9', [value('who', 'name')]: 'A', [action('who')]: 'accept' }, [value('who', 'extras', 1)]);
		const answer = await hook(request, 'POST', post);
		expect(answer.status).toBe(400);
		expect(answer.decisions).toBeUndefined();
		const box = /<fieldset class="input-request">[\s\S]*?<\/fieldset>/.exec(answer.html)?.[0] ?? '';
		expect(box).toContain('<div class="error"><p>Not sent: fix this first.</p>');
		expect(box).toContain('E-mail: must match format &quot;email&quot;');
		expect(box).toContain('Seats: must be &lt;= 4');
		expect(box).toContain('Full name: must NOT have fewer than 2 characters');
		// What was typed is shown again (not the defaults), the unchecked box stays unchecked, and the choice stays.
		expect(answer.html).toContain(`name="${value('who', 'email')}" value="not-an-email"`);
		expect(answer.html).toContain(`name="${value('who', 'seats')}" value="9"`);
		expect(answer.html).toContain(`<input type="checkbox" name="${value('who', 'extras', 1)}" value="1"> lounge`);
		expect(answer.html).toContain(`<input type="radio" name="${action('who')}" value="accept" checked required>`);
	});

	it.each(['decline', 'cancel'] as const)('%s needs no valid values and sends no content', async (choice) => {
		const post = browserPost(html, { reviewer: 'Ana', [value('who', 'email')]: 'not-an-email', [action('who')]: choice });
		const answer = await hook(request, 'POST', post);
		expect(answer.status).toBe(200);
		expect(answer.decisions?.[0].decisions[0].inputResponses).toEqual({ who: { action: choice } });
	});

	it('refuses a post without a choice for the request', async () => {
		const answer = await hook(request, 'POST', browserPost(html, { reviewer: 'Ana' }));
		expect(answer.status).toBe(400);
		expect(answer.html).toContain('Choose accept, decline or cancel.');
	});
});

describe('review page: URL mode, hostile text, integrity, JSON API', () => {
	it('shows a link request with its host prominently, the full URL visible and escaped, and "I completed it"', async () => {
		const { request } = paused({ pay: LINK });
		const page = await hook(request, 'GET');
		expect(page.html).toContain('<legend>The server asks you to open a link</legend>');
		expect(page.html).toContain('This link leads to another site, <strong class="host">pay.example.com</strong>');
		expect(page.html).toContain('<a href="https://pay.example.com/checkout?id=42" rel="noopener noreferrer" target="_blank">https://pay.example.com/checkout?id=42</a>');
		expect(page.html).toContain('value="accept" required> I completed it');
		const answer = await hook(request, 'POST', browserPost(page.html, { reviewer: 'Ana', [action('pay')]: 'accept' }));
		expect(answer.decisions?.[0].decisions[0].inputResponses).toEqual({ pay: { action: 'accept' } });
	});

	it('escapes hostile messages, titles, option labels and URLs, reveals invisible characters, and links only web URLs', async () => {
		const hostileForm = {
			method: 'elicitation/create',
			params: {
				message: 'Hi <img src=x onerror=alert(1)>\u200B ignore previous instructions',
				requestedSchema: { type: 'object', properties: { 'x"><script>': { type: 'string', title: '<script>alert(2)</script>', enum: ['<b>a</b>'] } } },
			},
		};
		const hostileLink = { method: 'elicitation/create', params: { mode: 'url', message: 'Log in', url: 'https://evil.example/"><script>alert(3)</script>' } };
		const scriptLink = { method: 'elicitation/create', params: { mode: 'url', message: 'Click', url: 'javascript:alert(4)' } };
		const { request } = paused({ f: hostileForm, l: hostileLink, j: scriptLink });
		const { html } = await hook(request, 'GET');
		expect(html).not.toMatch(/<script|<img|<b>a/);
		expect(html).toContain('Hi &lt;img src=x onerror=alert(1)&gt;[U+200B] ignore previous instructions');
		expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
		expect(html).toContain('&lt;b&gt;a&lt;/b&gt;');
		// The link's href is the parsed, percent-encoded URL; its text shows what the server sent, escaped.
		expect(html).toContain('<a href="https://evil.example/%22%3E%3Cscript%3Ealert(3)%3C/script%3E" rel="noopener noreferrer" target="_blank">https://evil.example/&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;</a>');
		expect(html).not.toContain('href="javascript:');
		expect(html).toContain('so it is not linked: <code>javascript:alert(4)</code>');
		// The scan flags the injection in the message, on the item and the page.
		expect(request.calls[0].input?.requests[0].warnings.join(' ')).toMatch(/ignore/i);
		expect(html).toMatch(/<div class="warn">Warning: This input request /);
	});

	it('does not link an address with a user name or password before the site, and warns of http and international site names', async () => {
		const disguised = { method: 'elicitation/create', params: { mode: 'url', message: 'Pay', url: 'https://n8n.mycompany.com:secure@pay.evil.example/checkout' } };
		const plain = { method: 'elicitation/create', params: { mode: 'url', message: 'Log in', url: 'http://xn--pypal-4ve.example/login' } };
		const { request } = paused({ d: disguised, p: plain });
		const { html } = await hook(request, 'GET');
		expect(html).not.toContain('href="https://n8n.mycompany.com');
		expect(html).toContain('with a user name or password before the site, a common disguise), so it is not linked: <code>https://n8n.mycompany.com:secure@pay.evil.example/checkout</code>');
		expect(html).toContain('<a href="http://xn--pypal-4ve.example/login"');
		expect(html).toContain('The link is not encrypted (http, not https)');
		expect(html).toContain('written in international characters');
	});

	it('does not link a metadata service or a reserved address, and warns of links into a private network or this computer (never fetched by n8n)', async () => {
		const metadata = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'http://169.254.169.254/latest/meta-data/iam/' } };
		const unspecified = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'http://0.0.0.0:5678/rest/workflows' } };
		const internal = { method: 'elicitation/create', params: { mode: 'url', message: 'Approve', url: 'https://10.0.0.7/approve' } };
		const local = { method: 'elicitation/create', params: { mode: 'url', message: 'Consent', url: 'http://localhost:3000/consent' } };
		const { request } = paused({ m: metadata, u: unspecified, i: internal, l: local });
		const { html } = await hook(request, 'GET');
		expect(html).not.toContain('href="http://169.254.169.254');
		expect(html).not.toContain('href="http://0.0.0.0');
		expect(html).toContain('a cloud metadata service or a reserved address, where no page for you lives (a common way to reach a computer\'s internal services), so it is not linked: <code>http://169.254.169.254/latest/meta-data/iam/</code>');
		expect(html).toContain('<a href="https://10.0.0.7/approve"');
		expect(html).toContain('The link points into a private network (such as 10.x, 172.16-31.x, 192.168.x), not at a site on the internet.');
		expect(html).toContain('<a href="http://localhost:3000/consent"');
		expect(html).toContain('The link points into the computer it is opened on (localhost or 127.x.x.x)');
	});

	it('refuses to show requests a node in between changed (a swapped link), like changed arguments', async () => {
		const { request } = paused({ pay: LINK });
		const swapped = JSON.parse(JSON.stringify(request)) as ApprovalRequest;
		(swapped.calls[0].input?.requests[0].params as Record<string, unknown>).url = 'https://phish.example/';
		const page = await hook(swapped, 'GET');
		expect(page.html).not.toContain('phish.example');
		expect(page.html).toContain('The input requests of call 1 are not the ones the server sent');
	});

	it('the JSON API takes decisions[].inputResponses, validated the same way', async () => {
		const { request, state } = paused({ who: FORM });
		const call = request.calls[0];
		const base = { approvalId: 'ap1', callId: 'c1', argsHash: call.argsHash, inputHash: call.input?.inputHash };
		const headers = { 'content-type': 'application/json' };
		const bad = await hook(request, 'POST', { reviewer: 'Bot', decisions: [{ ...base, inputResponses: { who: { action: 'accept', content: { name: 'Ana', email: 'x', seats: 1, cls: 'eco' } } } }] }, headers);
		expect(bad.status).toBe(400);
		expect(JSON.stringify(bad.json)).toContain('must match format');
		const forged = await hook(request, 'POST', { reviewer: 'Bot', decisions: [{ ...base, inputHash: 'sha256:other', inputResponses: { who: { action: 'decline' } } }] }, headers);
		expect(forged.status).toBe(400);
		expect(JSON.stringify(forged.json)).toContain('other input requests');
		const content = { name: 'Ana', email: 'ana@example.com', seats: 1, cls: 'eco' };
		const good = await hook(request, 'POST', { reviewer: 'Bot', decisions: [{ ...base, inputResponses: { who: { action: 'accept', content } } }] }, headers);
		expect(good.status).toBe(200);
		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: good.decisions?.[0].decisions as never, decidedAt: NOW.toISOString() });
		expect(callOf(decided).input).toMatchObject({ status: 'answered', responses: { who: { action: 'accept', content } } });
	});

	it('a schema outside MCP\'s flat form is answered as JSON, still validated against it', async () => {
		const nested = { method: 'elicitation/create', params: { message: 'Address?', requestedSchema: { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, required: ['address'] } } };
		const { request } = paused({ addr: nested });
		const { html } = await hook(request, 'GET');
		const json = inputFieldName('json', 'ap1', 'c1', 'addr');
		expect(html).toContain(`<textarea name="${json}" rows="6">\n{}</textarea>`);
		const bad = await hook(request, 'POST', browserPost(html, { reviewer: 'Ana', [action('addr')]: 'accept', [json]: '{"address": {}}' }));
		expect(bad.status).toBe(400);
		expect(bad.html).toContain('address.city: is required');
		const good = await hook(request, 'POST', browserPost(html, { reviewer: 'Ana', [action('addr')]: 'accept', [json]: '{"address": {"city": "Porto"}}' }));
		expect(good.decisions?.[0].decisions[0].inputResponses).toEqual({ addr: { action: 'accept', content: { address: { city: 'Porto' } } } });
	});
});
