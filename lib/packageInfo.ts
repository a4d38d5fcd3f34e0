import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'n8n-nodes-mcp-agent';

/**
 * This package's version, read from its own package.json (the one place it is written), so the
 * clientInfo servers see, and their logs show, is the installed release. The file is found by
 * walking up from this module: lib/ in the sources and in tests, dist/lib/ once built and installed.
 */
function readVersion(): string {
	let folder = __dirname;
	for (let depth = 0; depth < 4; depth++) {
		try {
			const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
			if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
		} catch {
			// No package.json here (or not readable): keep walking up.
		}
		folder = dirname(folder);
	}
	return '0.0.0';
}

export const PACKAGE_INFO = { name: PACKAGE_NAME, version: readVersion() } as const;
