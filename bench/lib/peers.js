'use strict';
// Competitor packages, for the benchmark only: installed once into the cache (outside the repo,
// never in package.json) exactly the way n8n 2.41.1's Community Nodes installer does it, then
// copied into each run's n8n user folder.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { CACHE, log } = require('./common');

const PEERS = [{ name: 'n8n-nodes-mcp', version: '0.1.37' }];
const MARKER = '.bench-install-ok';

function run(command, args, options) {
	const result = spawnSync(command, args, { encoding: 'utf8', ...options });
	if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

/** The installed package folder in the cache, installing it first when needed. */
function ensurePeer({ name, version }, node24Bin) {
	const dir = path.join(CACHE, 'bench-peers', `${name}-${version}`);
	const pkgDir = path.join(dir, 'package');
	if (fs.existsSync(path.join(dir, MARKER))) return pkgDir;
	log(`installing ${name}@${version} into ${dir} (as n8n's Community Nodes installer does)`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(pkgDir, { recursive: true });
	const env = { ...process.env, PATH: `${node24Bin}${path.delimiter}${process.env.PATH}`, npm_config_update_notifier: 'false' };
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-pack-'));
	try {
		const packed = JSON.parse(run('npm', ['pack', `${name}@${version}`, '--json', '--pack-destination', work], { cwd: work, env }))[0].filename;
		run('tar', ['-xzf', path.join(work, path.basename(packed)), '-C', pkgDir, '--strip-components=1']);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	const manifestFile = path.join(pkgDir, 'package.json');
	const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	delete manifest.optionalDependencies;
	fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
	run('npm', ['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false', '--loglevel=error'], {
		cwd: pkgDir,
		env,
	});
	fs.writeFileSync(path.join(dir, MARKER), `${new Date().toISOString()}\n`);
	return pkgDir;
}

/** Copies every peer into <userFolder>/.n8n/nodes/node_modules/<name>. */
function installPeers(userFolder, node24Bin) {
	const installed = [];
	for (const peer of PEERS) {
		const source = ensurePeer(peer, node24Bin);
		const dest = path.join(userFolder, '.n8n', 'nodes', 'node_modules', peer.name);
		fs.rmSync(dest, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(dest), { recursive: true });
		fs.cpSync(source, dest, { recursive: true });
		installed.push(`${peer.name}@${peer.version}`);
	}
	return installed;
}

module.exports = { PEERS, installPeers };
