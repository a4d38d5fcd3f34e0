'use strict';
// What differs between the n8n versions the end-to-end suites run against: 2.41.1 (the default) and
// 1.123.81 (the last 1.x line), chosen with MCP_AGENT_N8N_VERSION. Suites are written for 2.x; the
// differences are absorbed here, in one place, and cases that cannot apply to 1.x are skipped with
// the reason printed (skipOnN8n1), never silently.

const fs = require('node:fs');
const path = require('node:path');

const DEFAULT_N8N_VERSION = '2.41.1';
const SUPPORTED_N8N_VERSIONS = ['2.41.1', '1.123.81'];

/** The version the suites were asked to run against (MCP_AGENT_N8N_VERSION), checked. */
function requestedN8nVersion(environment = process.env) {
	const version = environment.MCP_AGENT_N8N_VERSION || DEFAULT_N8N_VERSION;
	if (!SUPPORTED_N8N_VERSIONS.includes(version)) {
		throw new Error(`MCP_AGENT_N8N_VERSION=${version} is not a version the e2e suites run against (${SUPPORTED_N8N_VERSIONS.join(', ')})`);
	}
	return version;
}

/** The version of the n8n whose CLI entry is n8nBin (`.../node_modules/n8n/bin/n8n`), from its package.json. */
function installedN8nVersion(n8nBin) {
	const file = path.resolve(path.dirname(n8nBin), '..', 'package.json');
	const { name, version } = JSON.parse(fs.readFileSync(file, 'utf8'));
	if (name !== 'n8n' || typeof version !== 'string') throw new Error(`${file} is not n8n's package.json`);
	return version;
}

function n8nMajor(version) {
	const major = Number.parseInt(String(version).split('.')[0], 10);
	if (!Number.isInteger(major)) throw new Error(`not an n8n version: '${version}'`);
	return major;
}

/**
 * The CLI arguments that do on `version` what `args` do on n8n 2.x. n8n 1.x has no
 * `publish:workflow`: a workflow is activated with `update:workflow --id=X --active=true` (also
 * read at the next start, like 2.x's publish).
 */
function cliArgsFor(version, args) {
	if (n8nMajor(version) >= 2 || args[0] !== 'publish:workflow') return args;
	const rest = args.slice(1);
	const ids = rest.filter((a) => a.startsWith('--id='));
	if (ids.length !== 1 || rest.length !== 1) {
		throw new Error(`publish:workflow ${rest.join(' ')}: only --id=<id> can be translated for n8n ${version}`);
	}
	return ['update:workflow', ids[0], '--active=true'];
}

/**
 * Why a case cannot run on `version` (a string to print), or null when it can. `reason` says what
 * 2.x behaviour the case checks that 1.x does not have.
 */
function skipOnN8n1(version, reason) {
	if (!reason) throw new Error('skipOnN8n1 needs the reason printed when the case is skipped');
	return n8nMajor(version) < 2 ? `not on n8n ${version}: ${reason}` : null;
}

module.exports = { DEFAULT_N8N_VERSION, SUPPORTED_N8N_VERSIONS, requestedN8nVersion, installedN8nVersion, n8nMajor, cliArgsFor, skipOnN8n1 };
