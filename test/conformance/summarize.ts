/**
 * Compares one conformance run with test/conformance/expected.json and prints the verdict.
 *
 *   node summarize.js <outcomes.tsv> <expected.json> [--subset]
 *
 * outcomes.tsv (written by scripts/conformance.sh) has one line per scenario and spec version:
 *   <scenario> [<spec version>] TAB <suite exit code> TAB <folder with the suite's checks.json> TAB <suite log file>
 *
 * expected.json names scenarios without a version: a listed scenario is expected to fail in every
 * spec version it runs in.
 *
 * Exit 1 when a scenario that should pass failed, a listed scenario passed (the list is stale), or
 * expected.json names a scenario the suite did not run (not checked with --subset); otherwise 0.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface Expected {
	suite?: string;
	specVersions?: string[];
	expectedFailures: Record<string, string>;
}

interface Check {
	id?: string;
	name?: string;
	status?: string;
	description?: string;
	errorMessage?: string;
}

interface Outcome {
	scenario: string;
	exitCode: number;
	resultDir: string;
	logFile: string;
}

/** "tools_call [2026-07-28]" -> "tools_call". */
function scenarioName(outcome: Outcome): string {
	return outcome.scenario.replace(/ \[[^\]]+\]$/, '');
}

function readOutcomes(file: string): Outcome[] {
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter((line) => line.trim())
		.map((line) => {
			const [scenario, code, resultDir, logFile] = line.split('\t');
			return { scenario, exitCode: Number(code), resultDir, logFile };
		});
}

function findFile(dir: string, name: string): string | undefined {
	let entries: string[];
	try {
		entries = readdirSync(dir);
	} catch {
		return undefined;
	}
	for (const entry of entries.sort()) {
		const path = join(dir, entry);
		if (entry === name) return path;
		if (statSync(path).isDirectory()) {
			const found = findFile(path, name);
			if (found) return found;
		}
	}
	return undefined;
}

function readChecks(dir: string): Check[] | undefined {
	const file = findFile(dir, 'checks.json');
	if (!file) return undefined;
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as Check[];
	} catch {
		return undefined;
	}
}

/** The failing and warning checks, one short line each (what made the suite say "failed"). */
function problems(outcome: Outcome, checks: Check[] | undefined): string[] {
	if (outcome.exitCode === 124 || outcome.exitCode === 137) return ['the suite did not finish in time (killed by the outer timeout)'];
	if (!checks) return [`the suite wrote no checks.json (exit ${outcome.exitCode}); see ${outcome.logFile}`];
	const lines = checks
		.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
		.map((c) => `${c.status} ${c.id ?? c.name}: ${c.errorMessage ?? c.description ?? ''}`.trim());
	if (!lines.length && outcome.exitCode !== 0) lines.push(`no failing check, but the client exited with an error or timed out; see ${outcome.logFile}`);
	return lines;
}

/** The last lines our client wrote to stderr (the suite saves them as stderr.txt). */
function clientStderrTail(dir: string, lines = 12): string[] {
	const file = findFile(dir, 'stderr.txt');
	if (!file) return [];
	return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).slice(-lines);
}

function tally(checks: Check[] | undefined): string {
	if (!checks) return 'no checks';
	const count = (status: string) => checks.filter((c) => c.status === status).length;
	const parts = [`${count('SUCCESS')} ok`, `${count('FAILURE')} failed`];
	if (count('WARNING')) parts.push(`${count('WARNING')} warnings`);
	return parts.join(', ');
}

function main(): number {
	const [outcomesFile, expectedFile, flag] = process.argv.slice(2);
	const subset = flag === '--subset';
	if (!outcomesFile || !expectedFile) {
		console.error('usage: node summarize.js <outcomes.tsv> <expected.json>');
		return 2;
	}
	const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as Expected;
	const listed = expected.expectedFailures ?? {};
	const outcomes = readOutcomes(outcomesFile);
	const errors: string[] = [];
	let passed = 0;
	let expectedFailing = 0;

	for (const outcome of outcomes) {
		const checks = readChecks(outcome.resultDir);
		const ok = outcome.exitCode === 0 && checks !== undefined;
		const reason = listed[scenarioName(outcome)];
		const detail = `(${tally(checks)})`;
		if (ok && reason === undefined) {
			passed++;
			console.log(`  PASS            ${outcome.scenario} ${detail}`);
		} else if (!ok && reason !== undefined) {
			expectedFailing++;
			console.log(`  expected fail   ${outcome.scenario} ${detail}`);
			console.log(`                  reason: ${reason}`);
		} else if (ok) {
			console.log(`  STALE           ${outcome.scenario} ${detail}`);
			errors.push(`${outcome.scenario} passes now: remove it from ${expectedFile}.`);
		} else {
			console.log(`  FAIL            ${outcome.scenario} ${detail}`);
			for (const line of problems(outcome, checks)) console.log(`                  ${line}`);
			for (const line of clientStderrTail(outcome.resultDir)) console.log(`                  client: ${line}`);
			console.log(`                  suite log: ${outcome.logFile}`);
			errors.push(`${outcome.scenario} failed and is not listed in ${expectedFile}.`);
		}
	}

	const ran = new Set(outcomes.map(scenarioName));
	for (const name of subset ? [] : Object.keys(listed)) {
		if (!ran.has(name)) errors.push(`${expectedFile} lists "${name}", which this suite version did not run (renamed or removed?).`);
	}

	console.log(`\n${outcomes.length} scenarios: ${passed} passed, ${expectedFailing} failed as expected, ${errors.length ? 'and problems:' : 'no unexpected results.'}`);
	for (const error of errors) console.log(`  - ${error}`);
	return errors.length ? 1 : 0;
}

process.exitCode = main();
