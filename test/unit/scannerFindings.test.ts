import { readFileSync } from 'node:fs';
import path from 'node:path';

// The gate behind scripts/scan-community-package.sh: reading the scanner's report and applying
// scripts/scanner-allowed.json. Plain CommonJS (the script runs without a TypeScript step).
interface Finding { file: string; line: number; column: number; severity: string; message: string; rule: string }
interface AllowEntry { legs: string[]; rule: string; files: string[]; names?: string[]; reason: string }
const findings = require('../../scripts/scanner-findings.cjs') as {
	parseStylishReport(report: string, root: string): Finding[];
	readAllowList(json: unknown): AllowEntry[];
	judgeFindings(found: Finding[], leg: string, entries: AllowEntry[]): { allowed: Array<Finding & { reason: string }>; unexplained: Finding[]; warnings: Finding[] };
	globToRegExp(glob: string): RegExp;
	quotedName(message: string): string | null;
};

const ROOT = '/tmp/scan/package';
const REASON = 'a reason long enough to say why the rule cannot apply';

// As analyzePackage returns it: ESLint's stylish text, with colours when run in a terminal.
const REPORT = [
	'',
	`\u001b[4m${ROOT}/dist/lib/mcp/connection.js\u001b[24m`,
	"  4:18  \u001b[31merror\u001b[39m  Require of '@modelcontextprotocol/client' is not allowed. n8n Cloud does not allow community nodes with dependencies  \u001b[2m@n8n/community-nodes/no-restricted-imports\u001b[22m",
	'',
	`${ROOT}/dist/lib/mcp/stdioPolicy.js`,
	"  12:31  error  Use of restricted global 'process' is not allowed  @n8n/community-nodes/no-restricted-globals",
	"  20:1   error  Use of restricted global 'fetch' is not allowed  @n8n/community-nodes/no-restricted-globals",
	'',
	`${ROOT}/nodes/McpAgent/McpAgent.node.ts`,
	'  13:9  warning  Icon is defined as a single file. Provide both light and dark variants  @n8n/community-nodes/icon-prefer-themed-variants',
	'',
	`${ROOT}/package.json`,
	'  41:21  error  String value contains an unresolved template placeholder "<rootDir>". Replace it  @n8n/community-nodes/no-template-placeholders',
	'',
	'\u001b[31m\u001b[1m✖ 5 problems (4 errors, 1 warning)\u001b[22m\u001b[39m',
	'  1 error and 0 warnings potentially fixable with the `--fix` option.',
	'',
].join('\n');

const ENTRIES: AllowEntry[] = [
	{ legs: ['tarball'], rule: '@n8n/community-nodes/no-restricted-imports', files: ['dist/lib/**/*.js'], names: ['@modelcontextprotocol/client'], reason: REASON },
	{ legs: ['tarball'], rule: '@n8n/community-nodes/no-restricted-globals', files: ['dist/lib/mcp/stdioPolicy.js'], names: ['process'], reason: REASON },
];

describe('parseStylishReport', () => {
	it('reads every finding with its file relative to the scanned folder, rule, position and severity', () => {
		const found = findings.parseStylishReport(REPORT, ROOT);
		expect(found.map((f) => [f.file, f.line, f.column, f.severity, f.rule])).toEqual([
			['dist/lib/mcp/connection.js', 4, 18, 'error', '@n8n/community-nodes/no-restricted-imports'],
			['dist/lib/mcp/stdioPolicy.js', 12, 31, 'error', '@n8n/community-nodes/no-restricted-globals'],
			['dist/lib/mcp/stdioPolicy.js', 20, 1, 'error', '@n8n/community-nodes/no-restricted-globals'],
			['nodes/McpAgent/McpAgent.node.ts', 13, 9, 'warning', '@n8n/community-nodes/icon-prefer-themed-variants'],
			['package.json', 41, 21, 'error', '@n8n/community-nodes/no-template-placeholders'],
		]);
		expect(found[0].message).toBe("Require of '@modelcontextprotocol/client' is not allowed. n8n Cloud does not allow community nodes with dependencies");
	});

	it('fails closed: an unreadable line is a finding, and so is an error count the summary contradicts', () => {
		const garbled = findings.parseStylishReport(`${ROOT}/a.js\n  something the scanner never prints\n\n✖ 1 problem (1 error, 0 warnings)\n`, ROOT);
		expect(garbled).toEqual([expect.objectContaining({ file: 'a.js', severity: 'error', rule: '(unreadable report line)' })]);

		const short = findings.parseStylishReport(`${ROOT}/a.js\n  1:1  error  Bad thing  some/rule\n\n✖ 3 problems (3 errors, 0 warnings)\n`, ROOT);
		expect(short.map((f) => f.rule)).toEqual(['some/rule', '(unreadable report)']);
	});

	it('keeps a finding without a rule id (a parsing error) as a finding no entry can allow', () => {
		const found = findings.parseStylishReport(`${ROOT}/a.js\n  0:0  error  Parsing error: Unexpected token\n\n✖ 1 problem (1 error, 0 warnings)\n`, ROOT);
		expect(found).toEqual([expect.objectContaining({ rule: '(no rule)', message: 'Parsing error: Unexpected token' })]);
		expect(findings.judgeFindings(found, 'source', ENTRIES).unexplained).toHaveLength(1);
	});
});

describe('judgeFindings', () => {
	it('allows only errors matching an entry by leg, rule, file and the quoted name, with the entry\'s reason', () => {
		const verdict = findings.judgeFindings(findings.parseStylishReport(REPORT, ROOT), 'tarball', ENTRIES);
		expect(verdict.allowed.map((f) => [f.file, f.reason])).toEqual([
			['dist/lib/mcp/connection.js', REASON],
			['dist/lib/mcp/stdioPolicy.js', REASON],
		]);
		// 'fetch' is not among the entry's names; the placeholder has no entry at all.
		expect(verdict.unexplained.map((f) => `${f.file}:${f.line}`)).toEqual(['dist/lib/mcp/stdioPolicy.js:20', 'package.json:41']);
		expect(verdict.warnings.map((f) => f.rule)).toEqual(['@n8n/community-nodes/icon-prefer-themed-variants']);
	});

	it('does not carry an entry over to the other leg', () => {
		const verdict = findings.judgeFindings(findings.parseStylishReport(REPORT, ROOT), 'source', ENTRIES);
		expect(verdict.allowed).toEqual([]);
		expect(verdict.unexplained).toHaveLength(4);
	});
});

describe('readAllowList', () => {
	const valid = { legs: ['source'], rule: 'x/y', files: ['package.json'], reason: REASON };

	it('refuses entries that would allow too much or say nothing', () => {
		expect(() => findings.readAllowList({})).toThrow('"allowed" array');
		expect(() => findings.readAllowList({ allowed: [{ ...valid, reason: 'because' }] })).toThrow('entry 0: "reason"');
		expect(() => findings.readAllowList({ allowed: [valid, { ...valid, files: ['**'] }] })).toThrow('entry 1: "files"');
		expect(() => findings.readAllowList({ allowed: [{ ...valid, legs: ['cloud'] }] })).toThrow('"legs"');
		expect(() => findings.readAllowList({ allowed: [{ ...valid, rule: 'a b' }] })).toThrow('"rule"');
		expect(() => findings.readAllowList({ allowed: [{ ...valid, names: [] }] })).toThrow('"names"');
		expect(findings.readAllowList({ allowed: [valid] })).toEqual([valid]);
	});

	it('accepts the project\'s own list, where every entry has a reason', () => {
		const file = path.join(__dirname, '../../scripts/scanner-allowed.json');
		const entries = findings.readAllowList(JSON.parse(readFileSync(file, 'utf8')));
		expect(entries.length).toBeGreaterThan(0);
		for (const entry of entries) expect(entry.reason.length).toBeGreaterThan(40);
	});
});

describe('globToRegExp and quotedName', () => {
	it('matches folders with ** and one segment with *', () => {
		const lib = findings.globToRegExp('dist/lib/**/*.js');
		expect(lib.test('dist/lib/a.js')).toBe(true);
		expect(lib.test('dist/lib/mcp/pool/a.js')).toBe(true);
		expect(lib.test('dist/nodes/a.js')).toBe(false);
		expect(lib.test('dist/lib/a.jsx')).toBe(false);
		expect(findings.globToRegExp('nodes/*.ts').test('nodes/sub/a.ts')).toBe(false);
		expect(findings.globToRegExp('package.json').test('packageXjson')).toBe(false);
	});

	it('reads the module or global a message is about', () => {
		expect(findings.quotedName("Require of 'node:child_process' is not allowed")).toBe('node:child_process');
		expect(findings.quotedName('no quotes here')).toBeNull();
	});
});
