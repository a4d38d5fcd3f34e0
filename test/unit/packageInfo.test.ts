/** The client version servers see comes from package.json, in the sources and in the build. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_INFO } from '../../lib/mcp/session';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { name: string; version: string };

test('clientInfo names the package and its package.json version', () => {
	expect(CLIENT_INFO).toEqual({ name: manifest.name, version: manifest.version });
});

test('the compiled module finds package.json from dist/lib too', () => {
	const built = join(__dirname, '..', '..', 'dist', 'lib', 'packageInfo.js');
	let exists = true;
	try {
		readFileSync(built);
	} catch {
		exists = false;
	}
	if (!exists) return; // Not built in this checkout (npm run build makes it); the source test above still holds.
	const printed = execFileSync(process.execPath, ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(built)}).PACKAGE_INFO))`], { encoding: 'utf8' });
	expect(JSON.parse(printed)).toEqual({ name: manifest.name, version: manifest.version });
});
