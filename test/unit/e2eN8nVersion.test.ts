import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The e2e harness runs the suites written for n8n 2.x against 1.123 too (issue 16 point 3); what
// differs between the two lives in test/e2e/lib/n8nVersion.js, checked here without an n8n.

// Plain CommonJS of the e2e harness.
const versions = require('../e2e/lib/n8nVersion');

describe('e2e harness: n8n version differences', () => {
	it('activates a workflow on 1.x with update:workflow, since 1.x has no publish:workflow', () => {
		expect(versions.cliArgsFor('1.123.81', ['publish:workflow', '--id=abc'])).toEqual(['update:workflow', '--id=abc', '--active=true']);
	});

	it('leaves 2.x commands and every other 1.x command as they are', () => {
		expect(versions.cliArgsFor('2.41.1', ['publish:workflow', '--id=abc'])).toEqual(['publish:workflow', '--id=abc']);
		expect(versions.cliArgsFor('1.123.81', ['import:workflow', '--input=f.json'])).toEqual(['import:workflow', '--input=f.json']);
	});

	it('refuses a publish it cannot translate instead of activating the wrong thing', () => {
		expect(() => versions.cliArgsFor('1.123.81', ['publish:workflow', '--all'])).toThrow(/only --id=<id>/);
	});

	it('selects 2.41.1 by default and accepts only the versions the suites run against', () => {
		expect(versions.requestedN8nVersion({})).toBe('2.41.1');
		expect(versions.requestedN8nVersion({ MCP_AGENT_N8N_VERSION: '1.123.81' })).toBe('1.123.81');
		expect(() => versions.requestedN8nVersion({ MCP_AGENT_N8N_VERSION: '1.50.0' })).toThrow(/MCP_AGENT_N8N_VERSION=1.50.0 is not a version/);
	});

	it('reads the version from the n8n install the CLI entry belongs to', () => {
		const dir = mkdtempSync(path.join(os.tmpdir(), 'n8n-version-'));
		try {
			mkdirSync(path.join(dir, 'node_modules', 'n8n', 'bin'), { recursive: true });
			writeFileSync(path.join(dir, 'node_modules', 'n8n', 'package.json'), JSON.stringify({ name: 'n8n', version: '1.123.81' }));
			expect(versions.installedN8nVersion(path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'))).toBe('1.123.81');
			writeFileSync(path.join(dir, 'node_modules', 'n8n', 'package.json'), JSON.stringify({ name: 'other', version: '1.0.0' }));
			expect(() => versions.installedN8nVersion(path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'))).toThrow(/not n8n's package.json/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('skips a 2.x-only case on 1.x with its reason, and runs it on 2.x', () => {
		expect(versions.skipOnN8n1('1.123.81', 'no protected-resource discovery')).toBe('not on n8n 1.123.81: no protected-resource discovery');
		expect(versions.skipOnN8n1('2.41.1', 'no protected-resource discovery')).toBeNull();
		expect(() => versions.skipOnN8n1('1.123.81', '')).toThrow(/needs the reason/);
	});
});

const skips = require('../e2e/lib/n8nVersionSkips');

describe('e2e harness: cases skipped on n8n 1.x', () => {
	const refreshBeforeExpiry = 'a short-lived token is refreshed before it expires, each time with the rotated refresh token n8n stored';

	it('skips a 2.x-only case on 1.123 with a reason, and runs it on 2.41', () => {
		expect(skips.skipReasonFor('1.123.81', refreshBeforeExpiry)).toMatch(/^not on n8n 1\.123\.81: n8n 1\.x stores no expiry/);
		expect(skips.skipReasonFor('2.41.1', refreshBeforeExpiry)).toBeNull();
		expect(skips.skipReasonFor('1.123.81', 'Connect my account: n8n discovers the authorization server')).toBeNull();
	});

	it('names only cases that exist in their suite, each with a reason', () => {
		for (const entry of skips.SKIPPED_ON_N8N_1) {
			const dir = path.join(__dirname, '..', 'e2e', entry.suite);
			const sources = readdirSync(dir)
				.filter((f) => f.endsWith('.js'))
				.map((f) => readFileSync(path.join(dir, f), 'utf8'))
				.join('\n');
			expect(sources).toContain(entry.caseName);
			expect(entry.reason.length).toBeGreaterThan(20);
		}
	});
});
