import { serverNamedUrlPolicy, type UrlPolicyOptions } from './urlPolicy';

/**
 * fetch that follows redirects itself, as fetch would ('follow': up to 20, 301/302 turn a POST into
 * a GET, 303 anything but HEAD, 307/308 keep method and body; credentials and cookies dropped when
 * the origin changes), but holds every target on another origin than the first request's to the
 * URL policy (lib/mcp/urlPolicy.ts): the first URL is the user's (a model endpoint's base URL),
 * where it sends n8n next is the endpoint's choice. A caller asking for `redirect: 'manual'` or
 * `'error'` gets fetch as it is.
 */
const MAX_REDIRECTS = 20;
const CROSS_ORIGIN_DROPPED = ['authorization', 'proxy-authorization', 'cookie'];

export function fetchWithCheckedRedirects(base: typeof fetch | undefined, namedBy: string, options: UrlPolicyOptions = {}): typeof fetch {
	return async (input, init) => {
		const send = base ?? fetch;
		if (input instanceof Request || init?.redirect === 'manual' || init?.redirect === 'error') return send(input, init);
		const first = new URL(String(input));
		// Each hop checked before it is sent, and connected to the addresses checked (policy.fetch).
		const hop = serverNamedUrlPolicy(first.href, 'a redirect', { ...options, namedBy }).fetch(base);
		let url = first;
		let request: RequestInit = { ...init, redirect: 'manual' };
		for (let followed = 0; ; followed++) {
			const response = await hop(url, request);
			const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
			if (location === null || followed === MAX_REDIRECTS) return response;
			const next = new URL(location, url);
			await response.body?.cancel().catch(() => undefined);
			const method = (request.method ?? 'GET').toUpperCase();
			const toGet = ((response.status === 301 || response.status === 302) && method === 'POST') || (response.status === 303 && method !== 'HEAD' && method !== 'GET');
			const headers = new Headers(request.headers);
			if (toGet) for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) headers.delete(name);
			if (next.origin !== url.origin) for (const name of CROSS_ORIGIN_DROPPED) headers.delete(name);
			request = { ...request, headers, ...(toGet ? { method: 'GET', body: null } : {}) };
			url = next;
		}
	};
}
