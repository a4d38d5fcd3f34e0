'use strict';
// Reads the report of n8n's verification scanner (@n8n/scan-community-package's analyzePackage,
// which returns ESLint's "stylish" text, not data) and splits its errors into those our allow-list
// (scripts/scanner-allowed.json) explains and those it does not. Pure functions, so the gate itself
// is unit-tested (test/unit/scannerFindings.test.ts); scan-community-package.mjs does the I/O.
//
// Fail closed: a report line we cannot read, or an error count that does not match the report's
// own summary, is itself an unexplained finding. Inline eslint-disable comments never count: the
// scanner lints with allowInlineConfig: false, and so must the list.

const path = require('node:path');

const ANSI = /\u001b\[[0-9;]*m/g;
const FINDING = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}(\S+))?\s*$/;
const SUMMARY = /^\s*\S*\s*(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/;
const LEGS = ['source', 'tarball'];

/**
 * Findings of one leg's report. `root` is the directory the leg scanned; files come back relative
 * to it with forward slashes. Lines that are neither a file header, a finding, the summary nor
 * the fix hint become findings of rule "(unreadable report line)", so nothing slips through.
 */
function parseStylishReport(report, root) {
	const findings = [];
	let file = null;
	let summaryErrors = null;
	for (const rawLine of String(report ?? '').replace(ANSI, '').split(/\r?\n/)) {
		const line = rawLine.replace(/\s+$/, '');
		if (line === '') continue;
		const summary = SUMMARY.exec(line);
		if (summary) {
			summaryErrors = Number(summary[2]);
			continue;
		}
		if (/^\s+\d+ errors? and \d+ warnings? potentially fixable/.test(line)) continue;
		if (!/^\s/.test(line)) {
			file = relativeFile(line, root);
			continue;
		}
		const match = FINDING.exec(line);
		if (!match || file === null) {
			findings.push({ file: file ?? '(unknown file)', line: 0, column: 0, severity: 'error', message: line.trim(), rule: '(unreadable report line)' });
			continue;
		}
		findings.push({
			file,
			line: Number(match[1]),
			column: Number(match[2]),
			severity: match[3],
			message: match[4],
			rule: match[5] ?? '(no rule)',
		});
	}
	const errors = findings.filter((f) => f.severity === 'error');
	if (errors.length > 0 && summaryErrors !== errors.length) {
		findings.push({
			file: '(report)', line: 0, column: 0, severity: 'error', rule: '(unreadable report)',
			message: `the report says ${summaryErrors ?? 'nothing about'} errors, ${errors.length} were read`,
		});
	}
	return findings;
}

function relativeFile(header, root) {
	const absolute = header.trim();
	if (!root) return absolute.split(path.sep).join('/');
	const relative = path.relative(path.resolve(root), path.resolve(absolute));
	if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
	return relative.split(path.sep).join('/');
}

/** `**` spans folders, `*` and `?` stay within one path segment; everything else is literal. */
function globToRegExp(glob) {
	let source = '';
	for (let i = 0; i < glob.length; i++) {
		const char = glob[i];
		if (char === '*' && glob[i + 1] === '*') {
			const slash = glob[i + 2] === '/';
			source += slash ? '(?:.*/)?' : '.*';
			i += slash ? 2 : 1;
		} else if (char === '*') {
			source += '[^/]*';
		} else if (char === '?') {
			source += '[^/]';
		} else {
			source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
		}
	}
	return new RegExp(`^${source}$`);
}

/** The quoted name a restricted-import or restricted-global message is about, if any. */
function quotedName(message) {
	const match = /'([^']+)'/.exec(message);
	return match ? match[1] : null;
}

/**
 * Checks the allow-list's shape and returns its entries; throws, naming the entry and the field,
 * on anything else, so a typo cannot silently allow nothing (or everything).
 */
function readAllowList(json) {
	const entries = json && Array.isArray(json.allowed) ? json.allowed : null;
	if (!entries) throw new Error('scanner allow-list: expected an object with an "allowed" array');
	entries.forEach((entry, index) => {
		const where = `scanner allow-list entry ${index}`;
		if (!entry || typeof entry !== 'object') throw new Error(`${where}: not an object`);
		if (!Array.isArray(entry.legs) || entry.legs.length === 0 || entry.legs.some((leg) => !LEGS.includes(leg))) {
			throw new Error(`${where}: "legs" must list "source" and/or "tarball"`);
		}
		if (typeof entry.rule !== 'string' || !/^[@\w][\w@/-]*$/.test(entry.rule)) throw new Error(`${where}: "rule" must be one rule id`);
		if (!Array.isArray(entry.files) || entry.files.length === 0 || entry.files.some((f) => typeof f !== 'string' || f === '' || f === '**' || f === '**/*')) {
			throw new Error(`${where}: "files" must list paths or globs narrower than everything`);
		}
		if (entry.names !== undefined && (!Array.isArray(entry.names) || entry.names.length === 0 || entry.names.some((n) => typeof n !== 'string' || n === ''))) {
			throw new Error(`${where}: "names", when given, must list names`);
		}
		if (typeof entry.reason !== 'string' || entry.reason.trim().length < 20) {
			throw new Error(`${where}: "reason" must say why the rule cannot apply`);
		}
	});
	return entries;
}

function entryAllows(entry, leg, finding) {
	if (!entry.legs.includes(leg) || entry.rule !== finding.rule) return false;
	if (!entry.files.some((glob) => globToRegExp(glob).test(finding.file))) return false;
	if (entry.names === undefined) return true;
	const name = quotedName(finding.message);
	return name !== null && entry.names.includes(name);
}

/**
 * Errors of one leg split into `allowed` (each with the entry's reason) and `unexplained`;
 * warnings are passed through, since the scanner's verdict ignores them.
 */
function judgeFindings(findings, leg, entries) {
	const allowed = [];
	const unexplained = [];
	const warnings = [];
	const used = new Set();
	for (const finding of findings) {
		if (finding.severity !== 'error') {
			warnings.push(finding);
			continue;
		}
		const index = entries.findIndex((entry) => entryAllows(entry, leg, finding));
		if (index === -1) {
			unexplained.push(finding);
		} else {
			used.add(index);
			allowed.push({ ...finding, reason: entries[index].reason });
		}
	}
	return { allowed, unexplained, warnings, usedEntries: used };
}

function formatFinding(finding) {
	return `${finding.file}:${finding.line}:${finding.column}  ${finding.rule}  ${finding.message}`;
}

module.exports = { parseStylishReport, readAllowList, judgeFindings, globToRegExp, quotedName, formatFinding };
