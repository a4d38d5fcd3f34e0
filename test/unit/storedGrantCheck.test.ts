/**
 * The issuer check of a grant n8n redeemed (lib/mcp/oauth/storedGrantCheck.ts), against a loopback
 * server whose OAuth metadata can be made to load, fail or be absent: a grant whose issuer cannot be
 * checked right now is not used (fail closed); one where no metadata exists at all is.
 */
import { createServer, type Server } from 'node:http';
import { McpFailure } from '../../lib/mcp/errors';
import { checkStoredGrantIssuer } from '../../lib/mcp/oauth/storedGrantCheck';

type Mode = 'metadata' | 'server-error' | 'absent' | 'web-page' | 'other-json' | 'trickle' | 'endless' | 'resource-trickles' | 'resource-fails';
let mode: Mode = 'metadata';
let server: Server;
let base = '';
let run = 0;

beforeAll(async () => {
	server = createServer((req, res) => {
		const url = req.url ?? '';
		const metadata = { issuer: `${base}/as`, authorization_endpoint: `${base}/as/authorize`, token_endpoint: `${base}/as/token`, response_types_supported: ['code'], authorization_response_iss_parameter_supported: true };
		const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
		// The protected-resource metadata (which names the authorization server) trickles or fails, the
		// origin has no authorization-server metadata of its own, the named one has metadata.
		const resourceStep = url.startsWith('/.well-known/oauth-protected-resource');
		if ((mode === 'resource-trickles' || mode === 'resource-fails') && !resourceStep) {
			if (url.includes('oauth-authorization-server/as') || url.includes('openid-configuration/as')) json(metadata);
			else res.writeHead(404).end();
			return;
		}
		if (mode === 'resource-fails') {
			res.writeHead(503).end('busy');
			return;
		}
		if (mode === 'trickle' || mode === 'resource-trickles') {
			// Headers, then a byte now and then: the metadata never completes.
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{');
			const timer = setInterval(() => res.write(' '), 100);
			res.on('close', () => clearInterval(timer));
			return;
		}
		if (mode === 'endless') {
			res.writeHead(200, { 'content-type': 'application/json' });
			const spaces = ' '.repeat(1024 * 1024);
			const more = () => {
				while (!res.destroyed && res.write(spaces));
			};
			res.on('drain', more);
			more();
			return;
		}
		if (mode === 'absent') res.writeHead(404).end();
		else if (mode === 'web-page') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Welcome');
		else if (mode === 'other-json') json({ error: 'not found', path: url });
		else if (url.startsWith('/.well-known/oauth-protected-resource')) json({ resource: `${base}/mcp`, authorization_servers: [`${base}/as`] });
		else if (!url.includes('oauth-authorization-server') && !url.includes('openid-configuration')) res.writeHead(404).end();
		else if (mode === 'server-error') res.writeHead(500).end('down');
		else json(metadata);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => {
	server.closeAllConnections();
	server.close(() => resolve());
}));

/** Each check under a URL of its own: a grant that passed is remembered per process. */
const check = (iss: string) => checkStoredGrantIssuer(`${base}/mcp?run=${++run}`, { access_token: 'at', callbackQueryString: { iss } });
const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as McpFailure);

it('a grant from another issuer is refused when the metadata loads; the right one passes', async () => {
	mode = 'metadata';
	expect((await failureOf(check('https://evil.example')))?.kind).toBe('reconnect');
	await expect(check(`${base}/as`)).resolves.toBeUndefined();
});

it('an authorization server that does not answer at all fails the check too', async () => {
	const failure = await failureOf(checkStoredGrantIssuer('http://127.0.0.1:9/mcp', { access_token: 'at', callbackQueryString: { iss: 'https://evil.example' } }));
	expect(failure?.kind).toBe('oauth');
	expect(failure?.message).toContain('(no answer)');
});

it('metadata that never finishes arriving fails the check at the timeout (closed), not never', async () => {
	mode = 'trickle';
	const started = performance.now();
	const failure = await failureOf(checkStoredGrantIssuer(`${base}/mcp?run=${++run}`, { access_token: 'at', callbackQueryString: { iss: 'https://evil.example' } }, { timeoutMs: 500 }));
	expect(failure?.kind).toBe('oauth');
	expect(failure?.message).toContain('could not be checked');
	expect(performance.now() - started).toBeLessThan(3_000);
});

it.each([
	['never completes', 'resource-trickles', /not complete within 0.5 s/],
	['fails (503)', 'resource-fails', /HTTP 503/],
] as const)('protected-resource metadata that %s fails the check closed, though the origin has no metadata to fall back on', async (_what, resourceMode, reason) => {
	mode = resourceMode;
	const failure = await failureOf(checkStoredGrantIssuer(`${base}/mcp?run=${++run}`, { access_token: 'at', callbackQueryString: { iss: 'https://evil.example' } }, { timeoutMs: 500 }));
	expect(failure?.kind).toBe('oauth');
	expect(failure?.message).toContain('could not be checked');
	expect(failure?.message).toMatch(reason);
});

it('metadata without end is cut at the answer limit, and the check fails closed', async () => {
	mode = 'endless';
	const failure = await failureOf(check('https://evil.example'));
	expect(failure?.kind).toBe('oauth');
	expect(failure?.message).toContain('could not be checked');
}, 30_000);

it('metadata that cannot be loaded now fails the check, naming the status, without using the grant', async () => {
	mode = 'server-error';
	const failure = await failureOf(check('https://evil.example'));
	expect(failure).toBeInstanceOf(McpFailure);
	expect(failure?.kind).toBe('oauth');
	expect(failure?.message).toContain('could not be checked');
	expect(failure?.message).toContain('HTTP 500');
});

it('where no metadata exists (404, or a web page or other JSON for every path) the grant is used as n8n stored it', async () => {
	for (const absent of ['absent', 'web-page', 'other-json'] as const) {
		mode = absent;
		await expect(check('https://anything.example')).resolves.toBeUndefined();
	}
});
