import { generateKeyPairSync } from 'node:crypto';
import { ConfigFormatError, parseArguments, parseEnvironment, parseHeaders } from '../../lib/mcp/commandLine';
import { httpConfigFromCredential, stdioConfigFromCredential } from '../../lib/mcp/credentialData';
import { explainMcpError, McpFailure } from '../../lib/mcp/errors';
import { OutputTail } from '../../lib/mcp/outputTail';
import { createRedactor, describeServer, describeUrl, looksLikeToken, REDACTED, redactorForServer, serverSecrets, urlSecrets } from '../../lib/mcp/secrets';
import type { HttpServerConfig, StdioServerConfig } from '../../lib/mcp/serverConfig';

const TOKEN = 'sk-live-abcdef1234567890';

function errorOf(run: () => unknown): Error {
	try {
		run();
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected an error');
}

function http(extra: Partial<HttpServerConfig> = {}): HttpServerConfig {
	return { kind: 'http', url: 'http://127.0.0.1:1/mcp', transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000, ...extra };
}

function stdio(extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
	return { kind: 'stdio', command: 'node', args: [], env: {}, trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000, ...extra };
}

describe('credential data: header values are checked without echoing them', () => {
	it('a bearer token with a line break is refused with a message naming the field, not the token', () => {
		const error = errorOf(() => httpConfigFromCredential({ url: 'https://x.test/mcp', authentication: 'bearer', token: `${TOKEN}\nX-Evil: 1` }));
		expect(error).toBeInstanceOf(ConfigFormatError);
		expect(error.message).toBe('The Bearer Token in the credential contains a line break; paste it again without it.');
	});

	it('a bearer token with another control character or a non-Latin-1 character is refused too', () => {
		const control = errorOf(() => httpConfigFromCredential({ url: 'https://x.test/mcp', authentication: 'bearer', token: `${TOKEN}\u0000` + 'x' }));
		expect(control.message).toBe('The Bearer Token in the credential contains a control character; paste it again without it.');
		const curly = errorOf(() => httpConfigFromCredential({ url: 'https://x.test/mcp', authentication: 'bearer', token: `\u201c${TOKEN}\u201d` }));
		expect(curly.message).toMatch(/^The Bearer Token in the credential contains a character that cannot be sent in an HTTP header/);
		expect(`${control.message}${curly.message}`).not.toContain('abcdef');
	});

	it('surrounding whitespace of a pasted token is still trimmed', () => {
		expect(httpConfigFromCredential({ url: 'https://x.test/mcp', authentication: 'bearer', token: `  ${TOKEN}\n` }).headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
	});

	it('custom header values with control characters are refused, naming the header', () => {
		for (const [value, problem] of [
			['a\u0000b-secret', 'contains a control character'],
			['a\u007fb-secret', 'contains a control character'],
			['a\u2028b-secret', 'contains a character that cannot be sent in an HTTP header'],
		]) {
			const error = errorOf(() => parseHeaders(JSON.stringify({ 'X-Api-Key': value }), 'Headers (credential)'));
			expect(error.message).toMatch(new RegExp(`^Headers \\(credential\\): the value of header X-Api-Key ${problem}`));
			expect(error.message).not.toContain('secret');
		}
		const lineFormat = errorOf(() => parseHeaders('X-Api-Key: abc\u0007-secret'));
		expect(lineFormat.message).toBe('Headers: the value of header X-Api-Key contains a control character');
		// A tab is allowed inside a header value (RFC 7230).
		expect(parseHeaders('{"X-A": "a\\tb"}')).toEqual({ 'X-A': 'a\tb' });
	});

	it('NUL bytes in environment values, arguments, command and working directory are refused, naming the place only', () => {
		const env = errorOf(() => stdioConfigFromCredential({ command: 'node', secretEnvironment: 'API_KEY=top\u0000secret' }));
		expect(env.message).toBe('Secret Environment Variables (credential): the value of API_KEY contains a NUL character (\\0); remove it');
		expect(errorOf(() => parseEnvironment('{"TOKEN": "top\\u0000secret"}')).message).toBe('Environment Variables: the value of TOKEN contains a NUL character (\\0); remove it');
		expect(errorOf(() => parseArguments('["ok", "top\\u0000secret"]')).message).toBe('Arguments: argument 2 contains a NUL character (\\0); remove it');
		expect(errorOf(() => stdioConfigFromCredential({ command: 'no\u0000de' })).message).toMatch(/^Command \(credential\) contains a NUL/);
		expect(errorOf(() => stdioConfigFromCredential({ command: 'node', cwd: '/tmp\u0000x' })).message).toMatch(/^Working Directory \(credential\) contains a NUL/);
	});

	it('the stdio config records which environment variables were secret', () => {
		const config = stdioConfigFromCredential({ command: 'node', environment: 'LOG_LEVEL=info', secretEnvironment: 'API_KEY=k-9876' });
		expect(config.env).toEqual({ LOG_LEVEL: 'info', API_KEY: 'k-9876' });
		expect(config.secretEnvNames).toEqual(['API_KEY']);
	});
});

describe('which values are secrets', () => {
	it('token-looking path segments: key prefixes, or 16+ characters mixing letters and digits', () => {
		expect(looksLikeToken(TOKEN)).toBe(true);
		expect(looksLikeToken('ghp_abcdefgh12')).toBe(true);
		expect(looksLikeToken('xoxb-1234-abcd')).toBe(true);
		expect(looksLikeToken('123e4567-e89b-12d3-a456-426614174000')).toBe(true);
		for (const word of ['mcp', 'sse', 'v1', 'my-mcp-server', 'streamable-http', '2024-11-05', 'sk-1']) expect(looksLikeToken(word)).toBe(false);
	});

	it('HTTP: header values and their credential part, URL password, token path segments, credential-like query values', () => {
		const config = http({
			url: `https://bob:hunter22@mcp.example.com/u/${TOKEN}/mcp?api_key=k-123&team=core&sig=AbCd1234Ef`,
			headers: { Authorization: 'Bearer tok-abc', 'X-Tenant': 'acme-corp-eu', 'X-Key': 'k-42' },
		});
		const secrets = serverSecrets(config);
		for (const secret of ['Bearer tok-abc', 'tok-abc', 'acme-corp-eu', 'k-42', 'hunter22', TOKEN, 'k-123', 'AbCd1234Ef']) expect(secrets).toContain(secret);
		expect(secrets).not.toContain('core');
		expect(secrets).not.toContain('bob');
	});

	it('custom headers that are settings stay readable in results; image, audio and blob bytes are never rewritten', () => {
		const config = httpConfigFromCredential({
			url: 'https://x.test/mcp',
			authentication: 'headers',
			headers: 'X-Api-Key: k9f8e7d6c5b4a39281z\nX-Api-Version: 2024\nAccept: application/json\nX-Region: eu-1\nUser-Agent: sk-live-abcdef1234567890',
		});
		// Plainly non-secret names, and short values under names that say nothing, are not secrets;
		// a token-looking value is one under any name.
		expect(serverSecrets(config).sort()).toEqual(['k9f8e7d6c5b4a39281z', 'sk-live-abcdef1234567890'].sort());
		const redact = redactorForServer(config);
		const png = Buffer.concat([Buffer.from('89504e', 'hex'), Buffer.from('k9f8e7d6c5b4a39281z', 'latin1'), Buffer.from('2024', 'base64'), Buffer.from('xy')]).toString('base64'); // 27 bytes: no padding
		// A server echoing the key inside base64 text: replacing it would corrupt the bytes, and it cannot be read there.
		const withKeyInBase64 = `${png}k9f8e7d6c5b4a39281zAAAA`;
		const answer = {
			content: [
				{ type: 'text', text: 'released 2024-06-01 as application/json in eu-1, key k9f8e7d6c5b4a39281z' },
				{ type: 'image', mimeType: 'image/png', data: withKeyInBase64 },
				{ type: 'audio', mimeType: 'audio/wav', data: withKeyInBase64 },
				{ type: 'resource', resource: { uri: 'file:///a', blob: withKeyInBase64, text: 'k9f8e7d6c5b4a39281z' } },
			],
		};
		expect(redact.value(answer)).toEqual({
			content: [
				{ type: 'text', text: `released 2024-06-01 as application/json in eu-1, key ${REDACTED}` },
				{ type: 'image', mimeType: 'image/png', data: withKeyInBase64 },
				{ type: 'audio', mimeType: 'audio/wav', data: withKeyInBase64 },
				{ type: 'resource', resource: { uri: 'file:///a', blob: withKeyInBase64, text: REDACTED } },
			],
		});
		// Only base64 in those places: a `blob` elsewhere, or image data that is not base64, is text.
		const echoed = redact.value({ structuredContent: { headers: { blob: 'X-Api-Key: k9f8e7d6c5b4a39281z' } }, content: [{ type: 'image', mimeType: 'image/png', data: 'key: k9f8e7d6c5b4a39281z' }] });
		expect(JSON.stringify(echoed)).not.toContain('k9f8e7d6c5b4a39281z');
	});

	it('stdio: secret environment values, plus plain ones whose name or value looks like a credential', () => {
		const config = stdio({ env: { LOG_LEVEL: 'debug', AUTH_MODE: 'none', GITHUB_TOKEN: 'plain-but-named', DSN: 'abc123def456ghi789', API_KEY: 'k-9876' }, secretEnvNames: ['API_KEY'] });
		expect(serverSecrets(config).sort()).toEqual(['abc123def456ghi789', 'k-9876', 'plain-but-named'].sort());
		// Without the list (a config made in code), values that look like credentials still count.
		expect(serverSecrets(stdio({ env: { LOG_LEVEL: 'debug', MY_API_KEY: 'k-12345678' } }))).toEqual(['k-12345678']);
	});
});

describe('describeServer / describeUrl', () => {
	it('prints scheme, host, port and path: no user-info, no query, token segments replaced', () => {
		expect(describeUrl(`https://bob:pw12@mcp.example.com:8443/u/${TOKEN}/mcp?key=k-123#frag`)).toBe(`https://mcp.example.com:8443/u/${REDACTED}/mcp`);
		expect(describeServer(http({ url: `http://127.0.0.1:3000/${TOKEN}/mcp` }))).toBe(`http://127.0.0.1:3000/${REDACTED}/mcp`);
		expect(describeUrl('http://127.0.0.1:3000/mcp')).toBe('http://127.0.0.1:3000/mcp');
		expect(describeUrl('nope')).toBe('(invalid URL)');
	});
});

describe('createRedactor', () => {
	it('replaces a secret and its URL-encoded, form-encoded, JSON-escaped and whitespace-collapsed forms', () => {
		const secret = 'pa ss/"word"\n2';
		const redactor = createRedactor([secret]);
		const text = [secret, encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, '+'), JSON.stringify(secret), 'pa ss/"word" 2'].join(' | ');
		expect(redactor.text(text)).toBe(`${REDACTED} | ${REDACTED} | ${REDACTED} | "${REDACTED}" | ${REDACTED}`);
	});

	it('Basic auth: the base64 pair, the decoded pair and the password', () => {
		const basic = Buffer.from('alice:s3cr3t-pw').toString('base64');
		const redactor = redactorForServer(http({ headers: { Authorization: `Basic ${basic}` } }));
		expect(redactor.text(`got ${basic}, i.e. alice:s3cr3t-pw, password s3cr3t-pw`)).toBe(`got ${REDACTED}, i.e. ${REDACTED}, password ${REDACTED}`);
	});

	it('ignores values shorter than 4 characters and is inactive without secrets', () => {
		const none = createRedactor(['', 'abc', undefined]);
		expect(none.active).toBe(false);
		const data = { a: 'abc' };
		expect(none.value(data)).toBe(data);
		expect(createRedactor(['abcd']).text('xabcdx abc')).toBe(`x${REDACTED}x abc`);
	});

	it('redacts JSON-like data deeply (keys too), copying only what changed', () => {
		const redactor = createRedactor([TOKEN]);
		const untouched = { b: [1, 'x'] };
		const data = { text: `key ${TOKEN}`, nested: [{ [TOKEN]: true }], untouched, n: 3, nil: null };
		const result = redactor.value(data);
		expect(result).toEqual({ text: `key ${REDACTED}`, nested: [{ [REDACTED]: true }], untouched, n: 3, nil: null });
		expect(result.untouched).toBe(untouched);
		expect(data.text).toBe(`key ${TOKEN}`);
		const same = { a: 'nothing here' };
		expect(redactor.value(same)).toBe(same);
		const withProto = JSON.parse(`{"__proto__": "${TOKEN}"}`);
		const cleaned = redactor.value(withProto) as Record<string, unknown>;
		expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(cleaned, '__proto__')?.value).toBe(REDACTED);
	});
});

describe('explainMcpError redacts', () => {
	it('the Headers.append error that quoted a bearer token with a line break', () => {
		const config = http({ headers: { Authorization: `Bearer ${TOKEN}\nX-Evil: 1` } });
		const thrown = new TypeError(`Headers.append: "Bearer ${TOKEN}\nX-Evil: 1" is an invalid header value.`);
		const failure = explainMcpError(thrown, config, 'connecting');
		expect(failure.message).not.toContain('abcdef1234567890');
		expect(failure.message).toContain(REDACTED);
	});

	it('secrets in the server output, the exit description and error causes, before they are cut', () => {
		const config = stdio({ env: { API_KEY: 'k-secret-42' }, secretEnvNames: ['API_KEY'] });
		const cause = Object.assign(new Error('with k-secret-42 inside'), { code: 'EWHAT' });
		const failure = explainMcpError(new Error(`${'x'.repeat(395)} k-secret-42`, { cause }), config, 'connecting', 'env API_KEY=k-secret-42');
		expect(failure.message).not.toMatch(/k-secret|k-sec/);
		expect(failure.serverOutput).toBe(`env API_KEY=${REDACTED}`);
		const exited = explainMcpError(new Error('Connection closed'), config, 'connecting', undefined, 'exited printing k-secret-42');
		expect(exited.message).not.toContain('k-secret-42');
	});

	it('an McpFailure made elsewhere is redacted too, and passed through untouched when clean', () => {
		const config = stdio({ env: { API_KEY: 'k-secret-42' }, secretEnvNames: ['API_KEY'] });
		const dirty = new McpFailure('saw k-secret-42', 'protocol', 'k-secret-42');
		const redacted = explainMcpError(dirty, config, 'x');
		expect(redacted.message).toBe(`saw ${REDACTED}`);
		expect(redacted.serverOutput).toBe(REDACTED);
		const clean = new McpFailure('fine', 'protocol');
		expect(explainMcpError(clean, config, 'x')).toBe(clean);
	});
});

describe('OutputTail', () => {
	it('redacts each whole line before cutting it, so no part of a secret is kept', () => {
		const tail = new OutputTail(20, 500, createRedactor([TOKEN]).text);
		tail.write(`${'y'.repeat(490)}${TOKEN}\npartial ${TOKEN}`);
		expect(tail.text()).toBe(`${'y'.repeat(490)}${REDACTED}\npartial ${REDACTED}`);
		expect(tail.text()).not.toContain('sk-l');
	});

	it('a line too long to wait for: no piece of it, a secret cut in two included, shows as a line of its own', () => {
		const tail = new OutputTail(20, 500, createRedactor([TOKEN]).text);
		tail.write(`${'x'.repeat(1995)}${TOKEN.slice(0, 12)}`);
		tail.write(`${TOKEN.slice(12)} done\nnext line\n`);
		expect(tail.text()).toBe(`${'x'.repeat(500)}…\nnext line`);
	});
});

describe('a token in the URL\'s user name', () => {
	it('is a secret when it stands alone or looks like a token; an ordinary user name with a password is not', () => {
		const token = 'ghp_ABCDEFghijkl1234567890abcdefXYZ';
		expect(urlSecrets(`https://${token}@mcp.example.com/mcp`)).toContain(token);
		expect(urlSecrets(`https://${token}:x-oauth-basic@mcp.example.com/mcp`)).toContain(token);
		expect(urlSecrets('https://apikey123@mcp.example.com/mcp')).toContain('apikey123');
		expect(urlSecrets('https://bob:hunter22@mcp.example.com/mcp')).not.toContain('bob');
	});
});

describe('a URL with a user name or password in the HTTP credential', () => {
	it('is refused when the credential is read, without quoting the URL (fetch would refuse it and quote it whole)', () => {
		const token = 'ghp_ABCDEFghijkl1234567890abcdefXYZ';
		for (const url of [`https://${token}@mcp.example.com/mcp`, `https://bob:${token}@mcp.example.com/mcp`]) {
			let message = '';
			try {
				httpConfigFromCredential({ url, authentication: 'none' });
			} catch (error) {
				message = (error as Error).message;
			}
			expect(message).toContain('contains a user name or password');
			expect(message).not.toContain(token);
		}
		expect(httpConfigFromCredential({ url: 'https://mcp.example.com/mcp', authentication: 'none' }).url).toBe('https://mcp.example.com/mcp');
	});
});

describe('a secret echoed in another encoding', () => {
	it('is redacted form-encoded, with lower-case percent escapes, and JSON-escaped the way Go writes it', () => {
		const secret = 'p4ss~word!(x)&<y>';
		const redactor = createRedactor([secret]);
		for (const echoed of [
			new URLSearchParams({ key: secret }).toString().slice('key='.length),
			encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
			'p4ss~word!(x)\\u0026\\u003cy\\u003e',
			encodeURIComponent(secret),
			JSON.stringify(secret).slice(1, -1),
		]) {
			expect(redactor.text(`before ${echoed} after`)).toBe(`before ${REDACTED} after`);
		}
	});
});

describe('a secret of several lines (a PEM private key)', () => {
	it('is redacted line by line where it is printed line by line, as in a stderr tail', () => {
		const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
		const pem = privateKey.trim();
		const tail = new OutputTail(20, 500, createRedactor([pem]).text);
		tail.write(`bad key ${pem}\nexiting\n`);
		const shown = tail.text();
		const body = pem.split('\n').slice(1, -1);
		expect(body.filter((line) => shown.includes(line))).toEqual([]);
		expect(shown).toContain('exiting');
	});
});

describe('secrets on a local server\'s command line', () => {
	it('the value of an option named for a credential, and a prefixed key, are secrets; paths and other words are not', () => {
		const config = stdio({
			args: ['-y', '@modelcontextprotocol/server-github', '--api-key', 'k-12345678abc', '--token=tok-abcdef123', 'ghp_ABCDEFghijkl12', '/data/projects2024/files', '--code-dir', '/src/code2024dir', '--password', '-x'],
		});
		const secrets = serverSecrets(config);
		expect(secrets).toEqual(expect.arrayContaining(['k-12345678abc', 'tok-abcdef123', 'ghp_ABCDEFghijkl12']));
		for (const kept of ['/data/projects2024/files', '/src/code2024dir', '-x', '@modelcontextprotocol/server-github']) expect(secrets).not.toContain(kept);
		expect(redactorForServer(config).text('starting with --api-key k-12345678abc')).toBe(`starting with --api-key ${REDACTED}`);
	});
});
