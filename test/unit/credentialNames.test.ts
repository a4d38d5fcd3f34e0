import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ICredentialType } from 'n8n-workflow';
import { SIGN_IN_CREDENTIAL } from '../../lib/mcp/credentialData';
import { serverCredentials } from '../../nodes/shared/serverConnection';

// n8n's verification scanner (issue 27, point 5) asks an OAuth 2 credential (one that extends
// oAuth2Api) to say so in its names: the class name and `name` end with "OAuth2Api"
// (@n8n/community-nodes/cred-class-oauth2-naming and the n8n-nodes-base twins of it), the
// displayName ends with "OAuth2 API" (n8n-nodes-base/cred-class-field-display-name-missing-oauth2).
// The credential was renamed before any release; its old names must not linger anywhere.

const ROOT = path.join(__dirname, '../..');
const THIS_FILE = path.relative(ROOT, __filename).split(path.sep).join('/');
// The old names, as code, type string, display name and the docs' heading anchors spell them.
const OLD_NAMES = [/mcpServerOAuthApi/i, /MCP Server \(OAuth\)/i, /mcp-server-oauth-api/i];

interface CredentialFile {
	file: string;
	className: string;
	credential: ICredentialType;
}

/** Every credential package.json lists for n8n, loaded from its source file. */
function listedCredentials(): CredentialFile[] {
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { n8n: { credentials: string[] } };
	return pkg.n8n.credentials.map((dist) => {
		const file = dist.replace(/^dist\//, '').replace(/\.js$/, '.ts');
		const exported = require(path.join(ROOT, file)) as Record<string, new () => ICredentialType>;
		const classes = Object.entries(exported).filter(([, value]) => typeof value === 'function');
		expect(classes).toHaveLength(1);
		const [className, Credential] = classes[0];
		return { file, className, credential: new Credential() };
	});
}

/** The repository's tracked files (git ls-files), else the files under its main folders. */
function repositoryFiles(): string[] {
	try {
		return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
	} catch {
		const walk = (dir: string): string[] =>
			readdirSync(path.join(ROOT, dir)).flatMap((name) => {
				const rel = `${dir}/${name}`;
				return statSync(path.join(ROOT, rel)).isDirectory() ? walk(rel) : [rel];
			});
		const folders = ['credentials', 'nodes', 'lib', 'test', 'examples', 'docs', 'scripts', 'bench'];
		return [...folders.flatMap(walk), 'README.md', 'CHANGELOG.md', 'package.json', 'eslint.config.mjs'];
	}
}

describe('OAuth credential names', () => {
	const oauth = listedCredentials().filter(({ credential }) => credential.extends?.includes('oAuth2Api'));

	it('has exactly one OAuth 2 credential, named as n8n asks of OAuth 2 credentials', () => {
		expect(oauth.map(({ file }) => file)).toEqual(['credentials/McpServerOAuth2Api.credentials.ts']);
		const [{ file, className, credential }] = oauth;
		// n8n loads a package's credential by the class named like its file.
		expect(path.basename(file)).toBe(`${className}.credentials.ts`);
		expect(className).toBe('McpServerOAuth2Api');
		expect(credential.name).toBe('mcpServerOAuth2Api');
		expect(credential.displayName).toBe('MCP Server OAuth2 API');
		expect(className.endsWith('OAuth2Api') && credential.name.endsWith('OAuth2Api') && credential.displayName.endsWith('OAuth2 API')).toBe(true);
	});

	it('is the credential type the nodes and lib ask for', () => {
		const [{ credential }] = oauth;
		expect(SIGN_IN_CREDENTIAL).toBe(credential.name);
		expect(serverCredentials.map((entry) => entry.name)).toContain(credential.name);
	});

	it('sends the Scope entered through a hidden scope over the visible field (n8n drops a stored scope of an "OAuth2" type)', () => {
		const [{ credential }] = oauth;
		// n8n 1.x (always) and 2.x (for a hidden scope) delete the stored `scope` of a type named "OAuth2"
		// that is not their own when they build the authorization URL, then apply the type's defaults:
		// the default is an expression over the field a person fills in, as in n8n's own credentials.
		const byName = (name: string) => credential.properties.filter((property) => property.name === name);
		const [scope, ...moreScopes] = byName('scope');
		const [field, ...moreFields] = byName('mcpScope');
		expect([moreScopes, moreFields]).toEqual([[], []]);
		expect(field).toMatchObject({ displayName: 'Scope', type: 'string', default: '' });
		expect(scope).toMatchObject({ type: 'hidden', default: '={{$self["mcpScope"]}}' });
		// Both only with Register Client Automatically off, as oAuth2Api's own Scope: with it on, n8n
		// asks for the scopes the server publishes and no scope of the credential's is there.
		const manualOnly = { show: { useDynamicClientRegistration: [false] } };
		expect(field.displayOptions).toEqual(manualOnly);
		expect(scope.displayOptions).toEqual(manualOnly);
	});

	it('leaves no old name of it in any file of the repository', () => {
		const found: string[] = [];
		for (const file of repositoryFiles()) {
			if (file === THIS_FILE || /\.(png|jpe?g|gif|ico|tgz|zip|wasm)$/i.test(file)) continue;
			let text: string;
			try {
				text = readFileSync(path.join(ROOT, file), 'utf8');
			} catch {
				continue; // listed by git but deleted in the working tree
			}
			text.split('\n').forEach((line, index) => {
				if (OLD_NAMES.some((pattern) => pattern.test(line))) found.push(`${file}:${index + 1}: ${line.trim().slice(0, 160)}`);
			});
		}
		expect(found).toEqual([]);
	});
});
