import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// What n8n reads from the package besides code: package metadata, each node's codex file (node
// panel categories, search aliases, documentation links), the light and dark icons, and the
// build step that puts codex files and icons next to the compiled nodes.

const ROOT = path.join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	author?: { name?: string; email?: string };
	homepage?: string;
	repository?: { type?: string; url?: string };
	bugs?: { url?: string };
	scripts: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};
const REPOSITORY = 'https://github.com/n8n-nodes-mcp-agent/n8n-nodes-mcp-agent';

/** Folder and base name of each node the package registers, e.g. ['McpAgent', 'McpAgent']. */
const NODES = pkg.n8n.nodes.map((file) => {
	const match = /^dist\/nodes\/([^/]+)\/([^/]+)\.node\.js$/.exec(file);
	if (!match) throw new Error(`unexpected node path in package.json: ${file}`);
	return { folder: match[1], base: match[2], typeName: match[2][0].toLowerCase() + match[2].slice(1) };
});

interface Codex {
	node: string;
	nodeVersion: string;
	codexVersion: string;
	categories: string[];
	subcategories?: Record<string, string[]>;
	alias: string[];
	resources: { primaryDocumentation: Array<{ url: string }>; credentialDocumentation?: Array<{ url: string }> };
}
const readCodex = (folder: string, base: string): Codex =>
	JSON.parse(readFileSync(path.join(ROOT, 'nodes', folder, `${base}.node.json`), 'utf8')) as Codex;

/** GitHub's heading anchors: lower case, punctuation dropped, each space a hyphen. */
function githubAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	for (const line of markdown.split('\n')) {
		const heading = /^#{1,6}\s+(.*)$/.exec(line);
		if (!heading) continue;
		anchors.add(heading[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
	}
	return anchors;
}

/** A documentation URL points at the repository's README or a file under docs/, at a heading that exists. */
function expectDocumentedAt(url: string): void {
	const readme = new RegExp(`^${REPOSITORY}#([\\w-]+)$`).exec(url);
	const doc = new RegExp(`^${REPOSITORY}/blob/main/(docs/[\\w./-]+\\.md)(?:#([\\w-]+))?$`).exec(url);
	expect(readme ?? doc).not.toBeNull();
	const file = readme ? 'README.md' : doc![1];
	const anchor = readme ? readme[1] : doc![2];
	expect(existsSync(path.join(ROOT, file))).toBe(true);
	if (anchor) expect([...githubAnchors(readFileSync(path.join(ROOT, file), 'utf8'))]).toContain(anchor);
}

describe('package.json metadata for npm and n8n\'s verification', () => {
	it('names an author with an e-mail, the homepage, the repository and where to report bugs', () => {
		expect(pkg.author?.name).toBeTruthy();
		expect(pkg.author?.email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
		expect(pkg.homepage).toBe(`${REPOSITORY}#readme`);
		// npm provenance checks that the repository matches the one that built the package.
		expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPOSITORY}.git` });
		expect(pkg.bugs?.url).toBe(`${REPOSITORY}/issues`);
	});

	it('lints package.json with the node and credential sources', () => {
		expect(pkg.scripts.lint.split(/\s+/)).toEqual(expect.arrayContaining(['eslint', 'nodes', 'credentials', 'package.json']));
	});
});

describe('codex files', () => {
	it.each(NODES)('$base has a codex file naming the node type as n8n loads it', ({ folder, base, typeName }) => {
		const codex = readCodex(folder, base);
		expect(codex.node).toBe(`${pkg.name}.${typeName}`);
		expect(codex.nodeVersion).toBe('1.0');
		expect(codex.codexVersion).toBe('1.0');
		expect(codex.categories.length).toBeGreaterThan(0);
		// n8n's panel files a node under a subcategory only within one of its categories.
		for (const category of Object.keys(codex.subcategories ?? {})) expect(codex.categories).toContain(category);
		expect(codex.alias).toEqual(expect.arrayContaining(['mcp', 'model context protocol']));
		expect(codex.alias.every((alias) => alias === alias.toLowerCase())).toBe(true);
		// n8n's loader destructures resources: a codex without them is dropped whole.
		expect(codex.resources.primaryDocumentation).toHaveLength(1);
		expectDocumentedAt(codex.resources.primaryDocumentation[0].url);
		for (const doc of codex.resources.credentialDocumentation ?? []) expectDocumentedAt(doc.url);
	});

	it('files the Agent under AI agents and MCP Approval under human in the loop', () => {
		const agent = readCodex('McpAgent', 'McpAgent');
		expect(agent.subcategories?.AI).toEqual(expect.arrayContaining(['Agents', 'Root Nodes']));
		expect(agent.alias).toEqual(expect.arrayContaining(['tool calling', 'human in the loop', 'approval']));
		const approval = readCodex('McpApproval', 'McpApproval');
		expect(approval.categories).toContain('HITL');
		expect(approval.subcategories?.HITL).toEqual(['Human in the Loop']);
		expect(approval.alias).toEqual(expect.arrayContaining(['human in the loop', 'approval']));
		expect(readCodex('McpServer', 'McpServer').subcategories?.AI).toContain('Tools');
	});
});

/** Well-formed, 60×60, and inert: n8n serves these files to the browser. */
function expectCleanSvg(file: string): void {
	const svg = readFileSync(file, 'utf8').trim();
	expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 60 60">/);
	expect(svg).not.toMatch(/<script|<foreignObject|<image|\son\w+\s*=|href\s*=\s*"(?!#)|url\((?!#)/i);
	const open: string[] = [];
	for (const tag of svg.matchAll(/<(\/?)([\w:-]+)[^>]*?(\/?)>/g)) {
		if (tag[1]) expect(open.pop()).toBe(tag[2]);
		else if (!tag[3]) open.push(tag[2]);
	}
	expect(open).toEqual([]);
}

describe('icons', () => {
	it.each(NODES)('$base has its own light and dark icon', ({ folder, typeName }) => {
		const light = path.join(ROOT, 'nodes', folder, `${typeName}.svg`);
		const dark = path.join(ROOT, 'nodes', folder, `${typeName}.dark.svg`);
		expectCleanSvg(light);
		expectCleanSvg(dark);
		expect(readFileSync(light, 'utf8')).not.toBe(readFileSync(dark, 'utf8'));
	});

	it('gives each node a different icon', () => {
		const icons = NODES.map(({ folder, typeName }) => readFileSync(path.join(ROOT, 'nodes', folder, `${typeName}.svg`), 'utf8'));
		expect(new Set(icons).size).toBe(NODES.length);
	});

	it('has light and dark icons for the MCP server credentials', () => {
		for (const name of ['mcpServer', 'mcpServerLocal']) {
			expectCleanSvg(path.join(ROOT, 'credentials', `${name}.svg`));
			expectCleanSvg(path.join(ROOT, 'credentials', `${name}.dark.svg`));
		}
	});
});

describe('gulpfile', () => {
	it('copies codex files and icons beside the compiled nodes and credentials', async () => {
		// Run the build's copy task in a scratch folder holding only the inputs, so dist/ is untouched.
		const scratch = mkdtempSync(path.join(tmpdir(), 'gulp-assets-'));
		const cwd = process.cwd();
		try {
			for (const folder of ['nodes', 'credentials']) {
				cpSync(path.join(ROOT, folder), path.join(scratch, folder), { recursive: true, filter: (src) => !src.endsWith('.ts') });
			}
			process.chdir(scratch);
			const gulp = require('gulp') as { task(name: string): ((done: (error?: unknown) => void) => void) | undefined };
			require(path.join(ROOT, 'gulpfile.js'));
			const build = gulp.task('build:icons');
			expect(build).toBeDefined();
			await new Promise<void>((resolve, reject) => build!((error) => (error ? reject(error) : resolve())));
		} finally {
			process.chdir(cwd);
		}
		try {
			for (const { folder, base, typeName } of NODES) {
				const copied = readdirSync(path.join(scratch, 'dist', 'nodes', folder));
				expect(copied).toEqual(expect.arrayContaining([`${base}.node.json`, `${typeName}.svg`, `${typeName}.dark.svg`]));
			}
			expect(readdirSync(path.join(scratch, 'dist', 'credentials'))).toEqual(expect.arrayContaining(['mcpServer.svg', 'mcpServer.dark.svg']));
		} finally {
			rmSync(scratch, { recursive: true, force: true });
		}
	});
});
