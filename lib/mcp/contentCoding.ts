import zlib from 'node:zlib';
import type { Transform } from 'node:stream';

/**
 * The stream that undoes an HTTP content coding as fetch does (gzip, deflate, br), undefined for
 * no coding and for one this client cannot read. Used where the package reads answers from
 * node:http(s) itself instead of fetch (the lean transport, pinned fetches).
 */
export function contentDecoder(contentEncoding: unknown): Transform | undefined {
	const coding = String(contentEncoding ?? '').trim().toLowerCase();
	if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
	if (coding === 'deflate') return zlib.createInflate();
	if (coding === 'br') return zlib.createBrotliDecompress();
	return undefined;
}
