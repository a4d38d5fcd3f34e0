import { ConfigFormatError } from '../../lib/mcp/commandLine';
import { httpConfigFromCredential, stdioConfigFromCredential } from '../../lib/mcp/credentialData';
import { LegacyInputRequests } from '../../lib/mcp/legacyInputRequests';
import { poolingFor } from '../../lib/mcp/pool/poolSettings';
import { parseRoots, rootsListResult } from '../../lib/mcp/roots';

/** The Roots credential field (lib/mcp/roots.ts) and where its roots go (issue 26, point 1). */
describe('parseRoots', () => {
	it('turns absolute paths into percent-encoded file:// URIs, with an optional name after " | "', () => {
		expect(parseRoots('/data/pdfs | PDFs\n\n  /srv/my files #1/  \n/a/100%')).toEqual([
			{ uri: 'file:///data/pdfs', name: 'PDFs' },
			{ uri: 'file:///srv/my%20files%20%231/' },
			{ uri: 'file:///a/100%25' },
		]);
	});

	it('keeps file:// URIs, normalized', () => {
		expect(parseRoots('file:///data/my%20pdfs | Mine\nFILE://localhost/srv/x')).toEqual([{ uri: 'file:///data/my%20pdfs', name: 'Mine' }, { uri: 'file:///srv/x' }]);
	});

	it('is empty for an empty field', () => {
		expect(parseRoots('')).toEqual([]);
		expect(parseRoots(' \n\r\n ')).toEqual([]);
	});

	it.each([
		['data/pdfs', 'Roots (credential), line 1: not an absolute path'],
		['~/pdfs', 'Roots (credential), line 1: not an absolute path'],
		['/ok\nhttps://example.com/x', 'Roots (credential), line 2: not a file:// URI'],
		['file://server/share', 'Roots (credential), line 1: not a valid file:// URI'],
		['file:///a%2Fb', 'Roots (credential), line 1: not a valid file:// URI'],
	])('refuses %j, naming the field and the line', (text, message) => {
		expect(() => parseRoots(text, 'Roots (credential)')).toThrow(ConfigFormatError);
		expect(() => parseRoots(text, 'Roots (credential)')).toThrow(message);
	});
});

describe('Roots in the credentials', () => {
	it('a credential without Roots (every credential saved before the field) gives no roots at all', () => {
		expect(stdioConfigFromCredential({ command: 'node' })).not.toHaveProperty('roots');
		expect(stdioConfigFromCredential({ command: 'node', roots: '' })).not.toHaveProperty('roots');
		expect(httpConfigFromCredential({ url: 'http://127.0.0.1:1/mcp' })).not.toHaveProperty('roots');
	});

	it('the local-command and HTTP credentials carry their roots', () => {
		expect(stdioConfigFromCredential({ command: 'node', roots: '/data/pdfs | PDFs' }).roots).toEqual([{ uri: 'file:///data/pdfs', name: 'PDFs' }]);
		expect(httpConfigFromCredential({ url: 'http://127.0.0.1:1/mcp', roots: 'file:///srv/x' }).roots).toEqual([{ uri: 'file:///srv/x' }]);
	});

	it('other roots make another pool key (they change what the server allows)', () => {
		const credential = { type: 'mcpServerStdioApi', id: '7' };
		const key = (roots?: string) => poolingFor(credential, { command: 'node', ...(roots !== undefined ? { roots } : {}) }, {})?.key;
		expect(key('/a')).not.toBe(key('/b'));
		expect(key('/a')).not.toBe(key());
		expect(key('/a')).toBe(key('/a'));
	});

	it('a bad line fails the credential with the field named', () => {
		expect(() => stdioConfigFromCredential({ command: 'node', roots: 'relative/dir' })).toThrow(/^Roots \(credential\), line 1: /);
		// Like every credential parsing error: the field and line, never the value.
		expect(() => stdioConfigFromCredential({ command: 'node', roots: '/ok\nrelative/dir' })).not.toThrow(/relative\/dir/);
	});
});

describe('roots/list on 2025-era connections', () => {
	function handlersOf(roots?: Array<{ uri: string; name?: string }>) {
		const handlers: Record<string, (request: unknown) => unknown> = {};
		const client = { setRequestHandler: (method: string, handler: (request: unknown) => unknown) => (handlers[method] = handler), fallbackRequestHandler: undefined };
		new LegacyInputRequests().install(client as never, roots);
		return handlers;
	}

	it('is not answered without roots (the capability is not declared; "method not found" follows)', () => {
		expect(handlersOf()).not.toHaveProperty('roots/list');
	});

	it('is answered with copies of the roots', () => {
		const roots = [{ uri: 'file:///data', name: 'Data' }];
		const answer = handlersOf(roots)['roots/list']({ method: 'roots/list' }) as ReturnType<typeof rootsListResult>;
		expect(answer).toEqual({ roots });
		answer.roots[0].uri = 'file:///elsewhere';
		expect(roots[0].uri).toBe('file:///data');
	});
});
