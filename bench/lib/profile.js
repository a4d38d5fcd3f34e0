'use strict';
// Summaries of V8 .cpuprofile files (node --cpu-prof): self and inclusive time per function and
// per package, so a missed target comes with where the time went.

const fs = require('node:fs');
const path = require('node:path');

function packageOf(url) {
	if (!url) return '(native/V8)';
	if (url.startsWith('node:')) return 'node core';
	const file = url.replace(/^file:\/\//, '');
	const parts = file.split('/node_modules/');
	if (parts.length > 1) {
		const last = parts[parts.length - 1].split('/');
		const name = last[0].startsWith('@') ? `${last[0]}/${last[1]}` : last[0];
		// Our package inside n8n's user folder is a node_modules package too.
		return name;
	}
	if (file.includes('/dist/lib/') || file.includes('/dist/nodes/')) return 'n8n-nodes-mcp-agent';
	return path.basename(file);
}

function label(frame) {
	const file = (frame.url || '').replace(/^file:\/\//, '');
	const short = file.includes('/node_modules/') ? file.slice(file.lastIndexOf('/node_modules/') + 14) : file.split('/').slice(-3).join('/');
	return `${frame.functionName || '(anonymous)'} ${short}:${frame.lineNumber + 1}`;
}

/**
 * @param file     a .cpuprofile
 * @param window   optional { from, to } in ms since the profile start, to look only at a run
 */
function summarizeProfile(file, { top = 25, focus } = {}) {
	const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map();
	for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
	const selfUs = new Map();
	profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) || 0) + (profile.timeDeltas[i] || 0)));
	const totalUs = profile.endTime - profile.startTime;
	const self = new Map();
	const inclusive = new Map();
	const packages = new Map();
	const focused = new Map();
	let focusUs = 0;
	let idleUs = 0;
	for (const [id, us] of selfUs) {
		const node = byId.get(id);
		const name = node.callFrame.functionName;
		if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
			const key = name;
			self.set(key, (self.get(key) || 0) + us);
			if (name === '(idle)') idleUs += us;
			continue;
		}
		const key = label(node.callFrame);
		self.set(key, (self.get(key) || 0) + us);
		const pkg = packageOf(node.callFrame.url);
		packages.set(pkg, (packages.get(pkg) || 0) + us);
		// Inclusive: every distinct frame on the stack gets the sample once.
		const seen = new Set();
		for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
			const frameKey = label(byId.get(cur).callFrame);
			if (seen.has(frameKey)) continue;
			seen.add(frameKey);
			inclusive.set(frameKey, (inclusive.get(frameKey) || 0) + us);
		}
		if (focus && [...seen].some((frame) => focus.test(frame))) {
			focusUs += us;
			focused.set(key, (focused.get(key) || 0) + us);
		}
	}
	const ms = (us) => Math.round(us / 100) / 10;
	const rank = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, ms: ms(us) }));
	return {
		file,
		totalMs: ms(totalUs),
		busyMs: ms(totalUs - idleUs),
		self: rank(self),
		inclusive: rank(inclusive),
		packages: rank(packages),
		...(focus ? { focus: String(focus), focusMs: ms(focusUs), focused: rank(focused) } : {}),
	};
}

function profileMarkdown(summary, title) {
	const lines = [`### ${title}`, '', `${path.basename(summary.file)}: ${summary.totalMs} ms profiled, ${summary.busyMs} ms busy`, ''];
	const table = (heading, rows) => {
		lines.push(`| ${heading} | ms |`, '|---|---:|', ...rows.map((r) => `| \`${r.name.replace(/\|/g, '\\|')}\` | ${r.ms} |`), '');
	};
	table('Package (self time)', summary.packages);
	table('Function (self time)', summary.self);
	table('Function (inclusive time)', summary.inclusive);
	if (summary.focus) table(`Self time on stacks matching ${summary.focus} (${summary.focusMs} ms in all)`, summary.focused);
	return lines.join('\n');
}

module.exports = { summarizeProfile, profileMarkdown };
