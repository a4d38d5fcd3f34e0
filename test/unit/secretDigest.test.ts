import crypto from 'node:crypto';
import { SecretDigest } from '../../lib/util/secretDigest';

describe('SecretDigest', () => {
	it('gives equal texts equal digests and different texts different ones, without the text in them', () => {
		const digest = new SecretDigest();
		const text = JSON.stringify({ url: 'https://mcp.example.com/mcp', token: 'sk-live-123456' });
		expect(digest.of(text)).toBe(digest.of(text));
		expect(digest.of(text)).not.toBe(digest.of(`${text} `));
		expect(digest.of(text)).toMatch(/^[0-9a-f]{64}$/);
		expect(digest.of(text)).not.toContain('123456');
	});

	it('is keyed: another secret (another process, another cache) gives other digests, and none is the plain SHA-256', () => {
		const text = 'the same credential data';
		expect(new SecretDigest().of(text)).not.toBe(new SecretDigest().of(text));
		expect(new SecretDigest().of(text)).not.toBe(crypto.createHash('sha256').update(text).digest('hex'));
	});

	it('gives the same digests on a Node without crypto.hash (before 20.12)', () => {
		const digest = new SecretDigest();
		const withHash = digest.of('data');
		const original = Object.getOwnPropertyDescriptor(crypto, 'hash') as PropertyDescriptor;
		Object.defineProperty(crypto, 'hash', { ...original, value: undefined });
		try {
			expect(digest.of('data')).toBe(withHash);
		} finally {
			Object.defineProperty(crypto, 'hash', original);
		}
		expect(typeof crypto.hash).toBe('function');
	});
});
