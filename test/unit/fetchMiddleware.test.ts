import { applyMiddlewares, type FetchLike } from '@modelcontextprotocol/client';
import { answerLimits, credentialHeaders, urlPolicyChecked } from '../../lib/mcp/fetchMiddleware';
import { AnswerTooLarge } from '../../lib/mcp/streamLimits';
import { AddressRefused, serverNamedUrlPolicy, type ResolveHost } from '../../lib/mcp/urlPolicy';

/**
 * lib/mcp/fetchMiddleware.ts: the pieces the HTTP transports' fetches are stacked from
 * (lib/mcp/transportFactory.ts), with the SDK's applyMiddlewares. Each piece's own rules are tested
 * with it (streamLimits, urlPolicy, streamReconnect); here, that they compose as the SDK composes.
 */

const resolve: ResolveHost = async (host) => (host === 'internal.example' ? ['10.0.0.1'] : ['93.184.216.34']);

function recording(): { fetch: FetchLike; seen: Array<{ url: string; headers: Headers }> } {
	const seen: Array<{ url: string; headers: Headers }> = [];
	return {
		seen,
		fetch: async (url, init) => {
			seen.push({ url: String(url), headers: new Headers(init?.headers) });
			return new Response('{}', { headers: { 'content-type': 'application/json' } });
		},
	};
}

describe('fetch middleware', () => {
	it("puts the credential's headers over the request's own", async () => {
		const base = recording();
		await credentialHeaders({ Authorization: 'Bearer credential' })(base.fetch)('https://mcp.example/mcp', { headers: { authorization: 'Bearer other', accept: 'text/event-stream' } });
		expect(base.seen[0].headers.get('authorization')).toBe('Bearer credential');
		expect(base.seen[0].headers.get('accept')).toBe('text/event-stream');
	});

	it('checks the URL policy before the request leaves, in the order the stack lists it', async () => {
		const base = recording();
		const policy = serverNamedUrlPolicy('https://mcp.example/mcp', 'OAuth', { resolve, env: {} });
		const stacked = applyMiddlewares(credentialHeaders({ 'x-key': 'k' }), urlPolicyChecked(policy))(base.fetch);
		await stacked('https://public.example/a');
		await expect(stacked('https://internal.example/b')).rejects.toBeInstanceOf(AddressRefused);
		expect(base.seen.map((request) => [request.url, request.headers.get('x-key')])).toEqual([['https://public.example/a', 'k']]);
	});

	it("holds the standing event stream's events to the limit it is given", async () => {
		const stream: FetchLike = async () => new Response(`data: ${'x'.repeat(100)}`, { headers: { 'content-type': 'text/event-stream' } });
		const limited = answerLimits({ standingEventBytes: 32 })(stream);
		const response = await limited('https://mcp.example/mcp', { method: 'GET', headers: { accept: 'text/event-stream' } });
		await expect(response.text()).rejects.toBeInstanceOf(AnswerTooLarge);
	});
});
