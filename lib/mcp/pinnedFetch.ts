import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { contentDecoder } from './contentCoding';

/**
 * fetch for one request that connects only to `addresses`, the ones the URL policy checked
 * (lib/mcp/urlPolicy.ts): the host name is not resolved again, so its DNS answer cannot change
 * between the check and the connection (DNS rebinding). TLS still verifies the certificate for the
 * URL's host name, and the Host header is the URL's.
 *
 * As much of fetch as OAuth's requests use: method, headers, any body fetch takes (read whole
 * first: metadata, token and registration requests are small), an abort signal, gzip / deflate /
 * br answers unpacked. A redirect is returned as it is, as with `redirect: 'manual'`: the SDK
 * follows none across origins, and one within the origin is checked again on its own request.
 */
export async function fetchPinned(url: URL, addresses: string[], init: RequestInit = {}): Promise<Response> {
	// Request does the normalising fetch would do: the method, the headers, a body's content type.
	const request = new Request(url, { method: init.method, headers: init.headers, body: init.body });
	const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
	const headers: Record<string, string> = {};
	request.headers.forEach((value, name) => {
		headers[name] = value;
	});
	headers['accept-encoding'] ??= 'gzip, deflate, br';
	if (body) headers['content-length'] = String(body.length);
	const entries = addresses.map((address) => ({ address, family: isIP(address) }));
	const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
		if (options.all) callback(null, entries);
		else callback(null, entries[0].address, entries[0].family);
	}) as unknown as LookupFunction;
	const signal = init.signal ?? undefined;
	if (signal?.aborted) throw signal.reason;
	return new Promise<Response>((resolve, reject) => {
		const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
		const outgoing = (url.protocol === 'https:' ? https : http).request(
			{
				protocol: url.protocol,
				hostname,
				...(url.port ? { port: Number(url.port) } : {}),
				path: `${url.pathname}${url.search}`,
				method: request.method,
				headers,
				lookup,
				// A socket per request: a kept one may have been connected by someone else.
				agent: false,
				...(signal ? { signal } : {}),
			},
			(incoming) => {
				const status = incoming.statusCode ?? 502;
				const responseHeaders = new Headers();
				for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) responseHeaders.append(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
				const unpack = contentDecoder(incoming.headers['content-encoding']);
				let stream: Readable = incoming;
				if (unpack) {
					stream = incoming.pipe(unpack);
					incoming.on('error', (error) => unpack.destroy(error));
					responseHeaders.delete('content-encoding');
					responseHeaders.delete('content-length');
				}
				const empty = request.method === 'HEAD' || status === 204 || status === 205 || status === 304;
				if (empty) incoming.resume();
				resolve(
					new Response(empty ? null : (Readable.toWeb(stream) as ReadableStream<Uint8Array>), { status, statusText: incoming.statusMessage ?? '', headers: responseHeaders }),
				);
			},
		);
		outgoing.on('error', (error) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error })));
		outgoing.end(body);
	});
}
