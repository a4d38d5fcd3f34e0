// Runs n8n's verification scanner on this package the way n8n's gate does for a published
// version, without publishing: the source leg on the repository (package.json, nodes/,
// credentials/) and the tarball leg on the packed package (package.json, dist/**/*.js), both
// through the scanner's own analyzePackage. Errors listed in scripts/scanner-allowed.json are
// reported with their reason; any other error fails the run.
//
// Usage: node scripts/scan-community-package.mjs <scanner.mjs> <repo dir> <unpacked tarball dir>
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const { parseStylishReport, readAllowList, judgeFindings, formatFinding } = require('./scanner-findings.cjs');

const [scannerPath, repoDir, tarballDir] = process.argv.slice(2);
if (!scannerPath || !repoDir || !tarballDir) {
	console.error('usage: node scripts/scan-community-package.mjs <scanner.mjs> <repo dir> <unpacked tarball dir>');
	process.exit(2);
}

const allowListPath = path.join(path.dirname(new URL(import.meta.url).pathname), 'scanner-allowed.json');
const entries = readAllowList(JSON.parse(readFileSync(allowListPath, 'utf8')));
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(pathToFileURL(path.resolve(scannerPath)).href);

// The tarball patterns are the ones analyzePackageByName uses for the downloaded package.
const legs = [
	{ name: 'source', dir: path.resolve(repoDir), patterns: SOURCE_FILE_PATTERNS },
	{ name: 'tarball', dir: path.resolve(tarballDir), patterns: ['**/*.js', 'package.json'] },
];

let failed = false;
const usedEntries = new Set();
for (const leg of legs) {
	const started = Date.now();
	const result = await analyzePackage(leg.dir, leg.patterns);
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	console.log(`\n== ${leg.name} leg: ${leg.dir} (${leg.patterns.join(', ')}), ${seconds} s`);
	if (result.passed) {
		console.log(`passed${result.message ? ` (${result.message})` : ''}`);
		continue;
	}
	if (result.message !== 'ESLint violations found' || !result.details) {
		// The scanner itself failed (a crash, an unreadable file): nothing was judged, so fail.
		console.log(`FAILED: the scanner could not analyse this leg: ${result.message ?? 'no message'}`);
		failed = true;
		continue;
	}
	const verdict = judgeFindings(parseStylishReport(result.details, leg.dir), leg.name, entries);
	for (const index of verdict.usedEntries) usedEntries.add(index);
	for (const finding of verdict.allowed) console.log(`allowed  ${formatFinding(finding)}\n         reason: ${finding.reason}`);
	for (const finding of verdict.warnings) console.log(`warning  ${formatFinding(finding)}`);
	for (const finding of verdict.unexplained) console.log(`ERROR    ${formatFinding(finding)}`);
	console.log(`${verdict.unexplained.length} unexplained error(s), ${verdict.allowed.length} allowed, ${verdict.warnings.length} warning(s)`);
	if (verdict.unexplained.length > 0) failed = true;
}

// An entry nothing matched any more should be removed, so the list stays as small as the truth.
entries.forEach((entry, index) => {
	if (!usedEntries.has(index)) console.log(`\nnote: allow-list entry ${index} (${entry.rule}, ${entry.files.join(', ')}) matched nothing: remove it if the rule now passes`);
});

console.log(failed ? '\nscan: FAILED (errors above are not in scripts/scanner-allowed.json)' : '\nscan: passed (only allowed findings)');
process.exit(failed ? 1 : 0);
