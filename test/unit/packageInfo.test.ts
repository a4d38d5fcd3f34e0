/** The client version servers see comes from package.json, in the sources and in the build. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { CLIENT_INFO } from '../../lib/mcp/session';

const ROOT = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

test('clientInfo names the package and its package.json version', () => {
	expect(CLIENT_INFO).toEqual({ name: manifest.name, version: manifest.version });
});

// Compiles lib/packageInfo.ts with tsconfig.build.json's options into a scratch outDir (the build's
// layout: lib/packageInfo.js beside a copied package.json one level up), so the test always runs, on
// a fresh clone without `npm run build` too, and never reads a stale dist/.
test('the compiled module finds package.json from dist/lib too', () => {
	const outDir = mkdtempSync(join(tmpdir(), 'package-info-build-'));
	try {
		const configFile = join(ROOT, 'tsconfig.build.json');
		const parsed = ts.getParsedCommandLineOfConfigFile(
			configFile,
			{ outDir, noEmit: false },
			{
				...ts.sys,
				onUnRecoverableConfigFileDiagnostic: (d) => {
					throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
				},
			},
		);
		if (!parsed) throw new Error(`cannot read ${configFile}`);
		const program = ts.createProgram([join(ROOT, 'lib', 'packageInfo.ts')], parsed.options);
		const emitted = program.emit();
		expect(emitted.emitSkipped).toBe(false);
		const built = join(outDir, 'lib', 'packageInfo.js');
		const printed = execFileSync(process.execPath, ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(built)}).PACKAGE_INFO))`], { encoding: 'utf8' });
		expect(JSON.parse(printed)).toEqual({ name: manifest.name, version: manifest.version });
	} finally {
		rmSync(outDir, { recursive: true, force: true });
	}
});
