/**
 * The standing approvals page (MCP Standing Approvals) in a real browser: chromium (puppeteer-core,
 * JavaScript off) opens the page served by the node's own handler (handleStandingApprovalsPage)
 * with an in-memory grant store and a stand-in for n8n's login, signs in, reads the list of two
 * Agent nodes' grants, and revokes one (typing the password again, as every POST signs in anew); at
 * desktop (1280) and phone (390) width, with no sideways scrolling. The form's POSTs must reach the
 * server as same-origin (Sec-Fetch-Site), which the page's cross-site check relies on. Screenshots
 * go to $REVIEW_ARTIFACTS (or a temp folder, printed).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse as parseQuery } from 'node:querystring';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { openPage, screenshot, VIEWPORTS } from '../support/browserPages';
import { AttemptLimiter } from '../../lib/approvals/attemptLimiter';
import { handleStandingApprovalsPage, STANDING_SIGN_IN_LIMITS } from '../../lib/approvals/standingApprovalsPage';
import type { SignInResult } from '../../lib/approvals/n8nSignIn';
import { GRANT_VERSION, type Grant, type GrantStore } from '../../lib/agent/grants';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = process.env.REVIEW_ARTIFACTS ?? mkdtempSync(path.join(tmpdir(), 'standing-browser-'));
mkdirSync(ARTIFACTS, { recursive: true });

const HOUR = 3_600_000;
const PASSWORD = 'Corr3ct-horse';

function grants(now: number): Grant[] {
	const base = { v: GRANT_VERSION, workflowId: 'wf-1', fingerprint: 'sha256:f' } as const;
	return [
		{
			...base,
			id: 'grant_7c1e93a0b4d25f6e',
			nodeId: 'agent-pay',
			server: 'payments',
			tool: 'send_money',
			constraint: {
				kind: 'fields',
				fields: [
					{ path: ['to'], equals: 'DE89370400440532013000' },
					{ path: ['amount'], atMost: 950, atLeast: 0 },
				],
			},
			grantedBy: 'Ana Ruiz <ana@example.com>',
			grantedAt: now - 2 * HOUR,
			expiresAt: now + 22 * HOUR,
			uses: 14,
			lastUsedAt: now - 5 * 60_000,
		},
		{
			...base,
			id: 'grant_2f9d0c7be81a4453',
			nodeId: 'agent-pay',
			server: 'payments',
			tool: 'refund',
			constraint: { kind: 'exact', argumentsHash: `sha256:${'b'.repeat(64)}` },
			grantedBy: 'Ana Ruiz <ana@example.com>',
			grantedAt: now - 30 * HOUR,
			expiresAt: now + 690 * HOUR,
			uses: 0,
		},
		{
			...base,
			id: 'grant_a03b5e11c2d94f70',
			nodeId: 'agent-pay',
			server: 'payments',
			tool: 'send_money',
			constraint: { kind: 'exact', argumentsHash: `sha256:${'c'.repeat(64)}` },
			grantedBy: 'Ben Ito <ben@example.com>',
			grantedAt: now - 50 * HOUR,
			expiresAt: now - 26 * HOUR,
			revokedAt: now - 40 * HOUR,
			revokedBy: 'Olga Owner <owner@example.com>',
			uses: 2,
			lastUsedAt: now - 45 * HOUR,
		},
		{
			...base,
			id: 'grant_d4e5f60718293a4b',
			nodeId: 'agent-files',
			server: 'Files',
			tool: 'write_file',
			constraint: { kind: 'fields', fields: [{ path: ['path'], equals: '/data/reports/weekly-summary-with-a-rather-long-file-name.csv' }] },
			grantedBy: 'Ben Ito <ben@example.com>',
			grantedAt: now - 3 * HOUR,
			expiresAt: now - 2 * HOUR,
			uses: 1,
			lastUsedAt: now - 150 * 60_000,
		},
	];
}

function memoryStore(rows: Grant[]): GrantStore {
	return {
		insert: async () => undefined,
		revoke: async (scope, id, by, at) => {
			const row = rows.find((g) => g.id === id && g.workflowId === scope.workflowId && g.nodeId === scope.nodeId);
			if (!row) return false;
			if (row.revokedAt === undefined) Object.assign(row, { revokedAt: at, revokedBy: by });
			return true;
		},
		listActive: async () => [],
		listAll: async (scope) => rows.filter((g) => g.workflowId === scope.workflowId).map((g) => ({ ...g })),
		markUsed: async () => undefined,
	};
}

async function signIn(credentials: Record<string, unknown>): Promise<SignInResult> {
	if (credentials.email !== 'owner@example.com' || credentials.password !== PASSWORD) return { ok: false, kind: 'rejected', error: 'x' };
	return {
		ok: true,
		reviewer: 'Olga Owner <owner@example.com>',
		workflow: {
			name: 'Supplier payments',
			nodes: [
				{ id: 'agent-pay', name: 'Payments Agent', type: 'n8n-nodes-mcp-agent.mcpAgent' },
				{ id: 'agent-files', name: 'Reports Agent', type: 'n8n-nodes-mcp-agent.mcpAgent' },
			],
		},
	};
}

interface Served {
	server: Server;
	url: string;
	rows: Grant[];
	fetchSites: string[];
}

async function serve(): Promise<Served> {
	const rows = grants(Date.now());
	const store = memoryStore(rows);
	const limiters = { account: new AttemptLimiter(STANDING_SIGN_IN_LIMITS.account), page: new AttemptLimiter(STANDING_SIGN_IN_LIMITS.page) };
	const fetchSites: string[] = [];
	const server = createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', async () => {
			if (req.method === 'POST') fetchSites.push(String(req.headers['sec-fetch-site']));
			const answer = await handleStandingApprovalsPage({
				method: req.method ?? 'GET',
				headers: req.headers as Record<string, unknown>,
				body: req.method === 'POST' ? parseQuery(raw) : undefined,
				workflowId: 'wf-1',
				allowedReviewers: [],
				grantStore: store,
				signIn,
				limiters,
			});
			res.writeHead(answer.status, { ...answer.headers, 'Content-Type': 'text/html; charset=utf-8' });
			res.end(answer.html);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as { port: number }).port;
	return { server, url: `http://127.0.0.1:${port}/webhook/0d6c2f8e-5b1a-4c3e-9f7d-2a8b6e4c1d09/standing-approvals`, rows, fetchSites };
}

let browser: Browser;
beforeAll(async () => {
	browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
	// eslint-disable-next-line no-console
	console.log(`Standing approvals screenshots: ${ARTIFACTS}`);
});
afterAll(async () => {
	await browser?.close();
});

const shot = (page: Page, name: string, selector?: string) => screenshot(page, ARTIFACTS, name, selector);

describe.each(VIEWPORTS)('%s', (name, viewport) => {
	test('sign in, read the list of both Agents, revoke one standing approval', async () => {
		const served = await serve();
		const page = await openPage(browser, viewport);
		try {
			await page.goto(served.url);
			const signInPage = await page.content();
			expect(signInPage).toContain('Sign in with your n8n account');
			expect(signInPage).not.toContain('send_money');
			await shot(page, `standing-signin-${name}`);

			// A wrong password: the form again, nothing listed.
			await page.type('input[name=email]', 'owner@example.com');
			await page.type('input[name=password]', 'wrong');
			await Promise.all([page.waitForNavigation(), page.click('button.primary')]);
			expect(await page.content()).toContain('Sign-in failed');
			expect(await page.content()).not.toContain('send_money');

			await page.type('input[name=password]', PASSWORD);
			await Promise.all([page.waitForNavigation(), page.click('button.primary')]);
			const list = await page.content();
			expect(list).toContain('Agent node “Payments Agent”');
			expect(list).toContain('Agent node “Reports Agent”');
			expect(list).toContain('used 14 times');
			expect(await page.$$('button.revoke')).toHaveLength(2);
			await shot(page, `standing-list-${name}`);

			// Revoke without the password: the browser itself holds the form back (required field).
			await page.click('button.revoke');
			expect(served.rows[0].revokedAt).toBeUndefined();
			await page.type('input[name=password]', PASSWORD);
			await Promise.all([page.waitForNavigation(), page.click('button.revoke[value=grant_7c1e93a0b4d25f6e]')]);
			const after = await page.content();
			expect(after).toContain('Standing approval grant_7c1e93a0b4d25f6e is revoked');
			expect(served.rows[0]).toMatchObject({ revokedBy: 'Olga Owner <owner@example.com>' });
			expect(await page.$$('button.revoke')).toHaveLength(1);
			await shot(page, `standing-revoked-${name}`);
			// Every POST the page's form made reached the server as same-origin.
			expect(served.fetchSites.length).toBeGreaterThanOrEqual(3);
			expect(new Set(served.fetchSites)).toEqual(new Set(['same-origin']));
		} finally {
			await page.close();
			served.server.close();
		}
	});
});
