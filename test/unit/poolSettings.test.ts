import { credentialDataHash, DEFAULT_POOL_SIZE, poolingFor, poolSizeFromEnvironment, POOL_SIZE_VARIABLE } from '../../lib/mcp/pool/poolSettings';
import { createHash } from 'node:crypto';

const STDIO = 'mcpServerStdioApi';
const data = { command: 'npx', args: '-y server', secretEnvironment: 'API_KEY=sk-live-0123456789abcdef' };

describe('pool keying', () => {
	it('same credential and data: same key; edited data: same identity, new key', () => {
		const a = poolingFor({ type: STDIO, id: '7' }, data)!;
		expect(poolingFor({ type: STDIO, id: '7' }, { ...data })).toEqual(a);
		// Key order does not matter.
		expect(poolingFor({ type: STDIO, id: '7' }, { secretEnvironment: data.secretEnvironment, args: data.args, command: data.command })!.key).toBe(a.key);
		const edited = poolingFor({ type: STDIO, id: '7' }, { ...data, args: '-y server --flag' })!;
		expect(edited.identity).toBe(a.identity);
		expect(edited.key).not.toBe(a.key);
	});

	it('two credentials never share a key, even with equal data; nor two types with one id', () => {
		const a = poolingFor({ type: STDIO, id: '7' }, data)!;
		const b = poolingFor({ type: STDIO, id: '8' }, data)!;
		const c = poolingFor({ type: 'mcpServerHttpApi', id: '7' }, data)!;
		expect(new Set([a.key, b.key, c.key]).size).toBe(3);
		expect(new Set([a.identity, b.identity, c.identity]).size).toBe(3);
	});

	it('the key reveals nothing of the data: no value, and not a plain hash of it', () => {
		const { key } = poolingFor({ type: STDIO, id: '7' }, data)!;
		expect(key).not.toContain('sk-live');
		expect(key).not.toContain('npx');
		const plain = createHash('sha256').update(JSON.stringify(data)).digest('hex');
		expect(key).not.toContain(plain.slice(0, 32));
		expect(credentialDataHash(data)).toMatch(/^[0-9a-f]{32}$/);
	});

	// Whether the kept connection produced the token it is handed is checked apart (poolOAuth.test.ts).
	it('OAuth tokens rotating (a refresh) do not make a new connection; the server URL does', () => {
		const oauth = { serverUrl: 'https://mcp.example.com/mcp', oauthTokenData: { access_token: 'at-1-0123456789' } };
		const before = poolingFor({ type: 'mcpServerOAuth2Api', id: '3' }, oauth)!;
		expect(poolingFor({ type: 'mcpServerOAuth2Api', id: '3' }, { ...oauth, oauthTokenData: { access_token: 'at-2-0123456789' } })!.key).toBe(before.key);
		expect(poolingFor({ type: 'mcpServerOAuth2Api', id: '3' }, { ...oauth, serverUrl: 'https://other.example.com/mcp' })!.key).not.toBe(before.key);
	});

	it('the HTTP credential\'s secrets are in the hash: a new bearer token, header value, client secret or key retires the connection', () => {
		const HTTP = 'mcpServerHttpApi';
		const url = 'https://mcp.example.com/mcp';
		const variants: Array<[Record<string, unknown>, Record<string, unknown>]> = [
			[{ authentication: 'bearer', token: 'tok-alice-0123456789' }, { token: 'tok-bob-0123456789' }],
			[{ authentication: 'headers', headers: 'X-Api-Key: key-alice-0123456789' }, { headers: 'X-Api-Key: key-bob-0123456789' }],
			[{ authentication: 'oauthClientCredentials', clientId: 'c', clientSecret: 'cs-alice-0123456789' }, { clientSecret: 'cs-bob-0123456789' }],
			[{ authentication: 'oauthClientCredentials', clientId: 'c', clientAuthMethod: 'private_key_jwt', privateKey: 'pem-alice' }, { privateKey: 'pem-bob' }],
		];
		for (const [before, change] of variants) {
			const a = poolingFor({ type: HTTP, id: '5' }, { url, ...before })!;
			const b = poolingFor({ type: HTTP, id: '5' }, { url, ...before, ...change })!;
			expect(b.identity).toBe(a.identity);
			expect(b.key).not.toBe(a.key);
			for (const value of [...Object.values(before), ...Object.values(change)]) if (String(value).length > 8) expect(a.key + b.key).not.toContain(String(value));
		}
	});

	it('not kept: Keep Server Running off, no credential id, or a pool size of 0', () => {
		expect(poolingFor({ type: STDIO, id: '7' }, { ...data, keepServerRunning: false })).toBeUndefined();
		expect(poolingFor({ type: STDIO, id: undefined }, data)).toBeUndefined();
		expect(poolingFor({ type: STDIO, id: '7' }, data, { [POOL_SIZE_VARIABLE]: '0' })).toBeUndefined();
		// Saved before the setting existed (no field): kept, the default.
		expect(poolingFor({ type: STDIO, id: '7' }, data)).toBeDefined();
	});

	it('idle shutdown: 5 minutes by default, the credential\'s value otherwise', () => {
		expect(poolingFor({ type: STDIO, id: '7' }, data)!.idleMs).toBe(300_000);
		expect(poolingFor({ type: STDIO, id: '7' }, { ...data, idleShutdownMinutes: 0.5 })!.idleMs).toBe(30_000);
		expect(poolingFor({ type: STDIO, id: '7' }, { ...data, idleShutdownMinutes: -1 })!.idleMs).toBe(300_000);
	});

	it('pool size from the environment: a whole number, else the default', () => {
		expect(poolSizeFromEnvironment({})).toBe(DEFAULT_POOL_SIZE);
		expect(poolSizeFromEnvironment({ [POOL_SIZE_VARIABLE]: '50' })).toBe(50);
		expect(poolSizeFromEnvironment({ [POOL_SIZE_VARIABLE]: 'lots' })).toBe(DEFAULT_POOL_SIZE);
		expect(poolSizeFromEnvironment({ [POOL_SIZE_VARIABLE]: '-3' })).toBe(DEFAULT_POOL_SIZE);
	});
});
