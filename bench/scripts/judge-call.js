'use strict';
// Bench part 'approvals', the plain-Node half (no n8n): what it costs to judge one call against 50
// approval rules and 1,000 standing approvals, with the package's own code as the Agent runs it for
// every call the model asks for: judgeCall (lib/agent/approvalRules.ts: the rules, Always/Never Ask
// For, Require Approval For) and, for a call that would wait for a person, applyGrants
// (lib/agent/grants.ts: which grant, if any, covers it) over the node's grants as readGrants hands
// them over (parsed). One sample = one call, timed alone (process.hrtime.bigint), in a warm process;
// the CPU time of each measured pass is kept beside the samples.
//
// Rules: the 11 of the n8n workload (bench/lib/approvalWorkload.js) and 39 more over the same five
// tools (patterns on paths and SQL, enums, maxima; three on every tool of the server), most of
// which do not match, so that a call is checked against every rule of its tool. Grants: the 36 of
// the workload and 964 more in the same scope, 200 per tool, half "exactly these arguments" and half
// field conditions. Calls: 1,000 calls made like the workload's (same argument variants).
// Supplementary: all 1,000 grants on the tool called (send_money), send_money calls only.
//
// Input (argv[2], JSON): { passes, warmupPasses }
// Output: { samples: { <verdict kind>: [µs, ...] }, passCpu: [{ calls, cpuUs, wallUs }], concentrated: { ... }, ... }

const path = require('node:path');
const { REPO, emitResult } = require('../lib/common');
const { GRANTS, POLICY, RULES, SERVER, TOOLS, workloadCalls } = require('../lib/approvalWorkload');

const DIST = path.join(REPO, 'dist', 'lib');
const { judgeCall, checkRules } = require(path.join(DIST, 'agent', 'approvalRules.js'));
const { applyGrants, makeGrant, parseGrant } = require(path.join(DIST, 'agent', 'grants.js'));
const { hashArguments } = require(path.join(DIST, 'agent', 'argumentHash.js'));
const { fingerprintTool } = require(path.join(DIST, 'tools', 'fingerprint.js'));

const input = JSON.parse(process.argv[2] || '{}');
const PASSES = input.passes ?? 4;
const WARMUP = input.warmupPasses ?? 3;
const RULE_COUNT = 50;
const GRANT_COUNT = 1000;
const SCOPE = { workflowId: 'benchJudgeWorkflow', nodeId: 'bench-judge-agent' };
const NOW = Date.now();
const FINGERPRINTS = Object.fromEntries(TOOLS.map((tool) => [tool.name, fingerprintTool(tool)]));
const listOf = (text) =>
	text
		.split(',')
		.map((p) => p.trim())
		.filter(Boolean);

function moreRules(count) {
	const effects = ['run', 'ask', 'refuse'];
	const rules = [];
	for (let k = 0; k < count; k++) {
		const effect = effects[k % 3];
		const base = {
			label: `Generated rule ${k + 1}`,
			effect,
			...(effect === 'refuse' ? { reason: `Refused by generated rule ${k + 1}.` } : {}),
			...(effect === 'ask' && k % 2 ? { decisions: ['approve', 'deny'] } : {}),
		};
		if (k % 13 === 12) {
			// On every tool of the server: a condition on a field few calls have.
			rules.push({
				...base,
				tools: [`${SERVER}/*`],
				when: { properties: { note: { type: 'string', pattern: `[Ii]gnore (all )?previous instructions ${k}` } }, required: ['note'] },
			});
			continue;
		}
		const tool = TOOLS[k % 5].name;
		const when = {
			send_money: {
				properties: {
					to: { enum: [`CH93007620116238529${String(k).padStart(2, '0')}`, `NL91ABNA04171643${String(k).padStart(2, '0')}`] },
					amount: { maximum: 100 + k },
					currency: { enum: ['EUR', 'CHF'] },
				},
				required: ['to', 'amount'],
			},
			write_file: { properties: { path: { type: 'string', pattern: `^/srv/app${k}/[a-z0-9_./-]+$` }, content: { type: 'string', maxLength: 10000 } }, required: ['path'] },
			run_query: { properties: { sql: { type: 'string', pattern: `^\\s*[Ss][Ee][Ll][Ee][Cc][Tt]\\b[^;]*\\b[Ff][Rr][Oo][Mm]\\s+t${k}\\b` } }, required: ['sql'] },
			read_file: { properties: { path: { type: 'string', pattern: `^/var/log/app${k}/[^/]+\\.log$` } }, required: ['path'] },
			delete_record: { properties: { table: { enum: [`t${k}`, `t${k}_old`] }, id: { type: 'string', pattern: '^[a-z]+[0-9]+$' } }, required: ['table'] },
		}[tool];
		rules.push({ ...base, tools: [k % 2 ? `${SERVER}/${tool}` : tool], when });
	}
	return rules;
}

/** A grant as readGrants hands it to applyGrants: made by makeGrant, stored as JSON, parsed back. */
function grant(spec, i) {
	const made = makeGrant({
		...SCOPE,
		approvalId: `bench-judge-${i}`,
		callId: `call-${i}`,
		server: SERVER,
		tool: spec.tool,
		fingerprint: FINGERPRINTS[spec.tool],
		arguments: spec.exact ?? spec.from,
		constraint: spec.exact ? { kind: 'exact', argumentsHash: hashArguments(spec.exact) } : { kind: 'fields', fields: spec.fields },
		duration: '30d',
		grantedBy: 'Bench Reviewer',
		now: NOW - 60_000,
	});
	if (made instanceof Error) throw made;
	return parseGrant(JSON.parse(JSON.stringify(made)));
}

/** The k-th filler grant of a tool: exact arguments (even k) or field conditions (odd k), never matching the workload's calls. */
function fillerSpec(tool, k) {
	const exact = k % 2 === 0;
	switch (tool) {
		case 'send_money':
			return exact
				? { tool, exact: { to: `DE02120300000000${String(202050 + k)}`, amount: 40 + k, currency: 'EUR', note: `order ${k}` } }
				: {
						tool,
						fields: [
							{ path: ['to'], equals: `DE02500105170000${String(137000 + k)}` },
							{ path: ['amount'], atMost: 200 + k },
						],
						from: { to: `DE02500105170000${String(137000 + k)}`, amount: 200 + k, currency: 'EUR' },
					};
		case 'write_file':
			return exact
				? { tool, exact: { path: `/srv/share/u${k}/draft.md`, content: `# Draft ${k}\n\nText of the draft.` } }
				: { tool, fields: [{ path: ['path'], equals: `/srv/share/u${k}/notes.md` }], from: { path: `/srv/share/u${k}/notes.md`, content: 'x' } };
		case 'run_query':
			return exact
				? { tool, exact: { sql: `UPDATE orders SET shipped = true WHERE id = ${100000 + k}` } }
				: { tool, fields: [{ path: ['sql'], equals: `DELETE FROM carts WHERE id = ${k}` }], from: { sql: `DELETE FROM carts WHERE id = ${k}` } };
		case 'read_file':
			return exact
				? { tool, exact: { path: `/home/user${k}/Documents/report.txt` } }
				: { tool, fields: [{ path: ['path'], equals: `/home/user${k}/notes.txt` }], from: { path: `/home/user${k}/notes.txt` } };
		default:
			return exact
				? { tool, exact: { table: 'orders', id: `o${100000 + k}` } }
				: {
						tool,
						fields: [
							{ path: ['table'], equals: `t_${k}` },
							{ path: ['id'], equals: `r${k}` },
						],
						from: { table: `t_${k}`, id: `r${k}` },
					};
	}
}

function grantSet(fillerTools, count) {
	const own = GRANTS.filter((g) => !g.scope && g.fingerprint !== 'stale' && !g.revoked && !g.agoMs && fillerTools.includes(g.tool));
	const list = own.map((spec, i) => grant(spec, i));
	for (let k = 0; list.length < count; k++) list.push(grant(fillerSpec(fillerTools[k % fillerTools.length], Math.floor(k / fillerTools.length)), 10_000 + k));
	return list;
}

const rules = [...RULES.map((r) => ({ ...r, tools: listOf(r.tools) })), ...moreRules(RULE_COUNT - RULES.length)];
checkRules(rules);
const policy = { mode: POLICY.requireApprovalFor, listed: [], alwaysAsk: listOf(POLICY.alwaysAsk), neverAsk: listOf(POLICY.neverAsk), rules };
const annotationsOf = Object.fromEntries(TOOLS.map((tool) => [tool.name, tool.annotations]));

/** One call as the Agent judges it: the rules and the policy, then (when it would wait) the grants. Returns its kind. */
function judge(call, grants, i) {
	const tool = { serverName: SERVER, mcpName: call.tool, annotations: annotationsOf[call.tool], annotationsTrusted: false };
	const verdict = judgeCall(policy, tool, call.arguments);
	if (verdict.effect !== 'ask') return verdict.effect === 'refuse' ? 'refused' : 'ranByRuleOrPolicy';
	const planned = {
		id: `call_${i}`,
		providerName: call.tool,
		tool: { serverId: 'ops', serverName: SERVER, mcpName: call.tool, fingerprint: FINGERPRINTS[call.tool] },
		arguments: call.arguments,
		review: {
			status: 'pending',
			argsHash: 'sha256:bench',
			warnings: [],
			rounds: 0,
			...(verdict.by !== 'policy' ? { askedBy: verdict.by } : {}),
			...(verdict.decisions.length < 3 ? { decisions: verdict.decisions } : {}),
		},
	};
	const phase = applyGrants({ calls: [planned], outcomes: {} }, grants, SCOPE, NOW);
	return phase.calls[0].allowedBy ? 'granted' : 'asked';
}

/**
 * Each call's wall time in µs, by verdict kind, and each measured pass's CPU time (the process's,
 * from getrusage, which is too coarse to time one call): on a shared machine a sample's wall time
 * also holds any time the process was not running, the pass's CPU time does not.
 */
function sample(calls, grants, passes, warmup) {
	const samples = {};
	const passCpu = [];
	for (let pass = 0; pass < warmup + passes; pass++) {
		const c0 = process.cpuUsage();
		const w0 = process.hrtime.bigint();
		for (let i = 0; i < calls.length; i++) {
			const t0 = process.hrtime.bigint();
			const kind = judge(calls[i], grants, i);
			const us = Number(process.hrtime.bigint() - t0) / 1000;
			if (pass >= warmup) (samples[kind] ??= []).push(Math.round(us * 10) / 10);
		}
		const cpu = process.cpuUsage(c0);
		if (pass >= warmup) passCpu.push({ calls: calls.length, cpuUs: cpu.user + cpu.system, wallUs: Math.round(Number(process.hrtime.bigint() - w0) / 1000) });
	}
	return { samples, passCpu };
}

const calls = workloadCalls(1000, 2801);
const grants = grantSet(
	TOOLS.map((t) => t.name),
	GRANT_COUNT,
);
const t0 = process.hrtime.bigint();
const { samples, passCpu } = sample(calls, grants, PASSES, WARMUP);
const totalS = Number(process.hrtime.bigint() - t0) / 1e9;
const oneTool = grantSet(['send_money'], GRANT_COUNT);
const moneyCalls = calls.filter((c) => c.tool === 'send_money');
const concentrated = sample(moneyCalls, oneTool, PASSES, WARMUP);

emitResult({
	rules: rules.length,
	rulesWithCondition: rules.filter((r) => r.when).length,
	grants: grants.length,
	grantsPerTool: Object.fromEntries(TOOLS.map((t) => [t.name, grants.filter((g) => g.tool === t.name).length])),
	distinctCalls: calls.length,
	passes: PASSES,
	warmupPasses: WARMUP,
	totalS,
	samples,
	passCpu,
	concentrated: { tool: 'send_money', grantsOnTool: oneTool.filter((g) => g.tool === 'send_money').length, calls: moneyCalls.length, ...concentrated },
});
