import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// The documentation a user navigates: a short README that links to one file per subject under
// docs/, links that reach an existing file and heading, and a performance page that links the
// benchmark report instead of copying tables that go stale.

const ROOT = path.join(__dirname, '../..');
const REPOSITORY = 'https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent';
// Short enough to read as an entry point (issue 27); the Performance section's tables (about 4 KB,
// written by npm run bench) are part of it.
const README_LIMIT_BYTES = 12_000;
const DOCS = [
	'credentials.md',
	'nodes.md',
	'human-review.md',
	'warm-servers.md',
	'queue-mode.md',
	'security.md',
	'troubleshooting.md',
	'performance.md',
	'development.md',
];

const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const markdownFiles = (): string[] => [
	'README.md',
	...readdirSync(path.join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of withoutFences(markdown).split('\n')) {
		const heading = /^#{1,6}\s+(.*)$/.exec(line);
		if (!heading) continue;
		const base = heading[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

/** Fenced code blocks hold examples, not headings ('# comment' lines in shell examples). */
function withoutFences(markdown: string): string {
	return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** Code spans hold examples too, not links (a heading's code span still counts for its anchor). */
function withoutCode(markdown: string): string {
	return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** Targets of Markdown links that stay inside the repository (no scheme). */
function localLinks(markdown: string): string[] {
	const targets = [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
	return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('README', () => {
	it(`stays under ${README_LIMIT_BYTES} bytes`, () => {
		expect(Buffer.byteLength(read('README.md'))).toBeLessThan(README_LIMIT_BYTES);
	});

	it("has the latest complete benchmark run's targets in its Performance section (written by npm run bench)", () => {
		const { renderReadmePerformance } = require('../../bench/lib/report');
		const { evaluateTargets } = require('../../bench/lib/targets');
		const { deriveResults } = require('../../bench/lib/derive');
		// As bench/run.js does: every figure from the samples latest.json keeps.
		const results = deriveResults(JSON.parse(read('bench/results/latest.json')));
		results.targets = evaluateTargets(results);
		const readme = read('README.md');
		const block = readme.slice(readme.indexOf('<!-- bench:performance:start'), readme.indexOf('<!-- bench:performance:end -->'));
		expect(block.slice(block.indexOf('\n') + 1).trim()).toBe(renderReadmePerformance(results).trim());
	});

	it('links to every file under docs/', () => {
		const linked = new Set(localLinks(read('README.md')).map((target) => target.split('#')[0]));
		for (const name of readdirSync(path.join(ROOT, 'docs')).filter((file) => file.endsWith('.md'))) {
			expect([...linked]).toContain(`docs/${name}`);
		}
	});
});

describe('docs/', () => {
	it.each(DOCS)('has %s', (name) => {
		expect(existsSync(path.join(ROOT, 'docs', name))).toBe(true);
	});

	it.each(markdownFiles())('%s: every relative link reaches an existing file and heading', (file) => {
		const broken: string[] = [];
		for (const target of localLinks(read(file))) {
			const [linkPath, anchor] = target.split('#');
			const resolved = linkPath ? path.join(path.dirname(file), decodeURIComponent(linkPath)) : file;
			if (!existsSync(path.join(ROOT, resolved))) {
				broken.push(`${target} (no file ${resolved})`);
				continue;
			}
			if (anchor !== undefined && !headingAnchors(read(resolved)).has(anchor)) broken.push(`${target} (no heading #${anchor} in ${resolved})`);
		}
		expect(broken).toEqual([]);
	});

	it('performance.md links the benchmark report instead of copying its tables', () => {
		const performance = read('docs/performance.md');
		expect(localLinks(performance)).toContain('../bench/results/latest.md');
		const reportRows = read('bench/results/latest.md')
			.split('\n')
			.filter((line) => line.startsWith('|') && /\d/.test(line));
		expect(reportRows.length).toBeGreaterThan(0);
		expect(reportRows.filter((row) => performance.includes(row))).toEqual([]);
	});
});

describe('codex documentation links', () => {
	const codexFiles = readdirSync(path.join(ROOT, 'nodes')).flatMap((folder) =>
		readdirSync(path.join(ROOT, 'nodes', folder))
			.filter((name) => name.endsWith('.node.json'))
			.map((name) => `nodes/${folder}/${name}`),
	);

	it.each(codexFiles)('%s points at the docs/ page of its subject', (file) => {
		const codex = JSON.parse(read(file)) as {
			resources: { primaryDocumentation: Array<{ url: string }>; credentialDocumentation?: Array<{ url: string }> };
		};
		const urls = [...codex.resources.primaryDocumentation, ...(codex.resources.credentialDocumentation ?? [])].map((doc) => doc.url);
		expect(urls.length).toBeGreaterThan(0);
		for (const url of urls) expect(url.startsWith(`${REPOSITORY}/blob/main/docs/`)).toBe(true);
		for (const doc of codex.resources.credentialDocumentation ?? []) expect(doc.url).toMatch(/\/docs\/credentials\.md(#|$)/);
	});
});
