#!/usr/bin/env node
'use strict';
// Checks that restructuring the README lost nothing: every block of an older README (a paragraph,
// a list item, a table row, a code block) must still appear in README.md, in docs/*.md or in
// bench/results/latest.md (the benchmark report the docs link to instead of copying it).
//
// Usage: node scripts/check-docs-moved.js <old README>   (e.g. from `git show <commit>:README.md`)
// Exits 1 and lists the missing blocks when any is missing.
//
// Blocks are compared after normalization, so moving text and editing its links or headings does
// not count as losing it: Markdown link targets are dropped (the link text stays), heading markers
// and list bullets are dropped, and runs of whitespace count as one space.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

function normalize(text) {
	return text
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/^\s*#{1,6}\s+/gm, '')
		.replace(/^\s*[-*]\s+/gm, '')
		.replace(/\s+/g, ' ')
		.trim();
}

/** Paragraphs, list items, table rows and fenced code blocks of a Markdown text. */
function blocks(markdown) {
	const result = [];
	let current = [];
	let inFence = false;
	const flush = () => {
		if (current.length > 0) result.push(current.join('\n'));
		current = [];
	};
	for (const line of markdown.split('\n')) {
		if (/^```/.test(line)) {
			current.push(line);
			if (inFence) flush();
			else if (current.length > 1) {
				// A fence right after a paragraph line: the paragraph is its own block.
				const fence = current.pop();
				flush();
				current.push(fence);
			}
			inFence = !inFence;
			continue;
		}
		if (inFence) {
			current.push(line);
			continue;
		}
		if (line.trim() === '') flush();
		else if (/^\|/.test(line) || /^#{1,6}\s/.test(line)) {
			flush();
			// A table's separator row carries no content.
			if (!/^\|[\s|:-]+\|$/.test(line)) result.push(line);
		} else if (/^\s*[-*]\s/.test(line)) {
			flush();
			current.push(line);
		} else current.push(line);
	}
	flush();
	return result;
}

function main() {
	const oldReadme = process.argv[2];
	if (!oldReadme) {
		console.error('usage: node scripts/check-docs-moved.js <old README>');
		process.exit(2);
	}
	const targets = ['README.md', 'bench/results/latest.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
	const haystack = targets.map((file) => normalize(fs.readFileSync(path.join(ROOT, file), 'utf8'))).join('\n');
	const all = blocks(fs.readFileSync(oldReadme, 'utf8'));
	const missing = all.filter((block) => !haystack.includes(normalize(block)));
	console.log(`${all.length} blocks in ${oldReadme}; ${all.length - missing.length} found in ${targets.length} files; ${missing.length} missing.`);
	for (const block of missing) console.log(`\n--- missing:\n${block}`);
	process.exit(missing.length > 0 ? 1 : 0);
}

main();
