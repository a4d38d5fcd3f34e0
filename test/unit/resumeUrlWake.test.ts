import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { executionGoneAt, wakeAtResumeUrl } from '../../nodes/shared/resumeUrlWake';

/**
 * The resume-URL side of a durable task wait: the wake POSTs the pause's secret and retries until
 * n8n takes it; the probe tells a stopped or deleted execution (then the follow-up cancels its
 * task) from one still waiting or running, by n8n's own answers only (a proxy's 404 cancels nothing).
 */
let server: http.Server;
let url: string;
let next: { status: number; body: string } = { status: 200, body: '{}' };
const bodies: unknown[] = [];

beforeAll(async () => {
	server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			bodies.push(JSON.parse(body));
			res.writeHead(next.status, { 'content-type': 'application/json' }).end(next.body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook-waiting/42?signature=s`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const answer = (status: number, message: string) => (next = { status, body: JSON.stringify({ code: status, message }) });

describe('executionGoneAt', () => {
	it.each([
		[404, 'The execution "42" does not exist.', true],
		[409, 'The execution "42" has finished with error.', true],
		[409, 'The execution "42 has finished already.', true],
		[409, 'The execution "42" is running already.', false],
		[403, 'Not a wake for this wait', false],
		[404, 'Cannot GET /webhook-waiting/42 (a proxy)', false],
		[500, 'Internal error', false],
	])('%i "%s" -> gone: %s', async (status, message, gone) => {
		answer(status, message);
		await expect(executionGoneAt(url)()).resolves.toBe(gone);
	});

	it('carries no secret: a wake field with no value', async () => {
		answer(403, 'Not a wake for this wait');
		bodies.length = 0;
		await executionGoneAt(url)();
		expect(bodies).toEqual([{ taskWake: null }]);
	});
});

describe('wakeAtResumeUrl', () => {
	it('POSTs the secret; done once n8n accepts it or refuses it for good (403), retried otherwise', async () => {
		bodies.length = 0;
		const wake = wakeAtResumeUrl(url, 'pause-secret');
		answer(200, 'Woken');
		await expect(wake()).resolves.toBe(true);
		answer(403, 'Not a wake for this wait');
		await expect(wake()).resolves.toBe(true);
		answer(409, 'The execution "42" is running already.');
		await expect(wake()).resolves.toBe(false);
		expect(bodies).toEqual([{ taskWake: 'pause-secret' }, { taskWake: 'pause-secret' }, { taskWake: 'pause-secret' }]);
	});
});
