/**
 * Standing approvals in a real browser (issue 28.3): chromium (puppeteer-core, JavaScript off) opens
 * the review page served by MCP Approval's own webhook logic with an in-memory grant store, picks
 * "allow similar calls for 1 day" with conditions ticked from the call, approves (the Agent then
 * applies the signed decision and stores the grant), and then revokes the grant from the list; at
 * desktop and phone width. Screenshots go to $REVIEW_ARTIFACTS (or a temp
 * folder, printed).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse as parseQuery } from 'node:querystring';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { openPage, screenshot, VIEWPORTS } from '../support/browserPages';
import { awaitingPerson, createRun, nextEffect, step } from '../../lib/agent/step';
import { buildCatalog } from '../../lib/agent/catalog';
import { buildApprovalRequest, type ApprovalDecisionItem, type ApprovalRequest } from '../../lib/approvals/approvalRequest';
import { runAgent } from '../../lib/agent/runAgent';
import type { ReviewDecision } from '../../lib/agent/types';
import type { ModelClient } from '../../lib/providers/types';
import { requestOrigin } from '../../lib/approvals/requestOrigin';
import { reviewLink } from '../../lib/approvals/reviewToken';
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import type { Grant, GrantStore } from '../../lib/agent/grants';
import type { ApprovalRule } from '../../lib/agent/policy';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = process.env.REVIEW_ARTIFACTS ?? mkdtempSync(path.join(tmpdir(), 'grants-browser-'));
mkdirSync(ARTIFACTS, { recursive: true });

const TOOLS = buildCatalog([
	{
		id: 'pay',
		name: 'payments',
		trustAnnotations: false,
		tools: [{ name: 'send_money', description: 'Sends money to an IBAN.', inputSchema: { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' }, to: { type: 'string' }, memo: { type: 'string' } }, required: ['amount', 'to'] } }],
	},
]).tools;

function memoryStore(): GrantStore & { grants: Grant[] } {
	const grants: Grant[] = [];
	return {
		grants,
		insert: async (grant) => void (grants.some((g) => g.id === grant.id) || grants.push(grant)),
		revoke: async (_scope, id, by, at) => {
			const grant = grants.find((g) => g.id === id);
			if (!grant) return false;
			grant.revokedAt ??= at;
			grant.revokedBy ??= by;
			return true;
		},
		listActive: async () => grants.filter((g) => g.revokedAt === undefined),
		listAll: async () => [...grants].reverse(),
		markUsed: async () => undefined,
	};
}

interface Served {
	server: Server;
	url: string;
	store: ReturnType<typeof memoryStore>;
	request: ApprovalRequest;
	/** The Agent applying the last decision the page signed: it stores the grant the person chose. */
	agentContinues(): Promise<void>;
}

async function serve(rules?: ApprovalRule[]): Promise<Served> {
	const state0 = createRun({
		provider: 'anthropic',
		settings: { model: 'm', maxIterations: 5, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000, approval: { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [], ...(rules ? { rules } : {}) } },
		tools: TOOLS,
		userMessage: 'Pay the March rent to the landlord.',
	});
	const turn = step(state0, {
		type: 'model_turn',
		turn: { transcriptItems: [], text: 'Paying the rent.', toolCalls: [{ id: 'c1', name: 'send_money', rawArguments: { amount: 950, currency: 'EUR', to: 'DE89370400440532013000', memo: 'Rent March' } }], stop: 'tool_use', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
	});
	const state = step(turn, { type: 'approval_opened', approval: { id: 'ap1', requestedAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 86_400_000).toISOString() } });
	if (nextEffect(state).type !== 'request_approval') throw new Error('expected a pending call');
	const store = memoryStore();
	const served = { store } as Served;
	let signed: ApprovalDecisionItem | undefined;
	served.agentContinues = async () => {
		if (!signed) throw new Error('no decision was signed');
		const decided = step(state, { type: 'approval_decided', approvalId: signed.approvalId, decisions: signed.decisions as ReviewDecision[], reviewer: signed.reviewer, decidedAt: signed.decidedAt });
		const done: ModelClient = { listModels: async () => [], send: async () => ({ content: [{ type: 'text', text: 'Paid.' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }) };
		await runAgent(decided, { model: done, runTools: async (calls) => ({ outcomes: calls.map((call) => ({ id: call.id, isError: false, text: 'sent', images: [] })), durations: {} }), grants: { store, scope: { workflowId: 'wf', nodeId: 'agent-node' } } });
	};
	served.server = createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', async () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const answer = await handleReviewWebhook({
				method: req.method ?? 'GET',
				headers: req.headers as Record<string, unknown>,
				query: Object.fromEntries(url.searchParams),
				body: req.method === 'POST' ? parseQuery(raw) : undefined,
				pending: [served.request],
				requireSignIn: false,
				allowedReviewers: [],
				workflowId: 'wf',
				grantStore: store,
			});
			if (answer.decisions?.length) signed = answer.decisions[0];
			res.writeHead(answer.status, { ...answer.headers, 'Content-Type': 'text/html; charset=utf-8' });
			res.end(answer.html);
		});
	});
	await new Promise<void>((resolve) => served.server.listen(0, '127.0.0.1', resolve));
	const port = (served.server.address() as { port: number }).port;
	const link = reviewLink(`http://127.0.0.1:${port}/webhook-waiting/42`);
	const phase = state.phase.name === 'run_tools' ? state.phase : undefined;
	served.request = buildApprovalRequest(state, phase!.approval!, awaitingPerson(phase!), { ...link, origin: { ...requestOrigin('Rent', 'MCP Agent', 'webhook'), nodeId: 'agent-node' } });
	served.url = link.reviewUrl!;
	return served;
}

let browser: Browser;
beforeAll(async () => {
	browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
	// eslint-disable-next-line no-console
	console.log(`Grant screenshots: ${ARTIFACTS}`);
});
afterAll(async () => {
	await browser?.close();
});

const shot = (page: Page, name: string, selector?: string) => screenshot(page, ARTIFACTS, name, selector);

describe.each(VIEWPORTS)('%s', (name, viewport) => {
	test('approve and allow similar calls for a day, then revoke it from the list', async () => {
		const served = await serve();
		const page = await openPage(browser, viewport);
		try {
			await page.goto(served.url);
			await page.click('input.pick.approve + label');
			const select = await page.$('fieldset.grant select');
			expect(select).not.toBeNull();
			await page.select('fieldset.grant select', '1d');
			await page.click('fieldset.grant input[type=radio][value=fields]');
			const boxes = await page.$$('ul.grant-fields input[type=checkbox]');
			// amount is (0) and at most (0); currency (1); to (2); memo (3): tick "to is …" and "amount at most 950".
			expect(boxes.length).toBe(5);
			await boxes[1].click();
			await boxes[3].click();
			await page.type('input[name=reviewer]', 'Ana');
			const grantBox = await page.$('fieldset.grant');
			await grantBox!.scrollIntoView();
			await shot(page, `grant-choice-${name}`, 'section.call');
			await Promise.all([page.waitForNavigation(), page.click('button.primary')]);
			const done = await page.content();
			expect(done).toContain('Similar calls allowed: send_money on payments with amount between 0 and 950 and to is "DE89370400440532013000"');
			await shot(page, `grant-made-${name}`);
			expect(served.store.grants).toHaveLength(0);
			await served.agentContinues();
			expect(served.store.grants).toHaveLength(1);
			expect(served.store.grants[0].constraint).toEqual({ kind: 'fields', fields: [{ path: ['amount'], atMost: 950, atLeast: 0 }, { path: ['to'], equals: 'DE89370400440532013000' }] });

			// The list on the review page (the same access rules): revoke with a POST.
			await page.goto(served.url);
			const section = await page.$('section.grants');
			await section!.scrollIntoView();
			await shot(page, `grants-list-${name}`, 'section.grants');
			await page.type('input[name=reviewer]', 'Ops');
			await Promise.all([page.waitForNavigation(), page.click('button.revoke')]);
			expect(served.store.grants[0].revokedBy).toBe('Ops');
			const after = await page.content();
			expect(after).toContain('is revoked: calls it covered are asked again');
			await (await page.$('section.grants'))!.scrollIntoView();
			await shot(page, `grants-revoked-${name}`, 'section.grants');
		} finally {
			await page.close();
			served.server.close();
		}
	});

	test('a call an approval rule asks about: why it waits, and only the decisions the rule offers (Approve and Deny, no Edit)', async () => {
		const served = await serve([{ label: 'large payments', tools: ['payments/send_money'], when: { properties: { amount: { minimum: 500 } } }, effect: 'ask', decisions: ['approve', 'deny'] }]);
		const page = await openPage(browser, viewport);
		try {
			await page.goto(served.url);
			const html = await page.content();
			expect(html).toContain('Waits because the approval rule "large payments" (rule 1) asks a person.');
			expect(await page.$('input.pick.approve')).not.toBeNull();
			expect(await page.$('input.pick.edit')).toBeNull();
			// Approve is offered, so the grant choice is too.
			expect(await page.$('fieldset.grant')).not.toBeNull();
			await shot(page, `rule-asks-${name}`, 'section.call');
		} finally {
			await page.close();
			served.server.close();
		}
	});
});
