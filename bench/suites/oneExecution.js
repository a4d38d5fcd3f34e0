'use strict';
// Parts 'oneItem' and 'agentN8n' (issue 13): the fixed cost of one small execution in a real n8n
// 2.41.1, where webhook-triggered and scheduled workloads spend their time.
//
//   oneItem:  MCP Call Tool with one item over stdio and HTTP, its credential keeping the server
//             running (warm, the default) and not (cold: a new connection per execution, the path
//             every execution took before issue 13); n8n's MCP Client node with one item over
//             HTTP; and, once a round, the same one call without n8n (bench/scripts/warm-execution.js:
//             our library on a kept connection, and the raw SDK client's callTool on a warm one).
//   agentN8n: a webhook-triggered Agent run with one tool call: our MCP Agent (OpenAI Chat
//             Completions, one MCP Server sub-node over HTTP, kept connection) against n8n's AI
//             Agent with its OpenAI Chat Model and MCP Client Tool on the same fake model and server;
//             and our MCP Agent with Provider "Chat Model (Connected Sub-Node)" driving that same
//             OpenAI Chat Model node (issue 30), so that both agents use one model node.
//
// Same harness as the Call Tool part (suites/callTool.js): one n8n, one webhook chain per variant,
// every variant once per round in a shuffled order (suites/callTool.js roundOrder), medians over the rounds after a warm-up run.

const path = require('node:path');

const processes = require('../../test/e2e/lib/processes');
const { RUN_MARKER_NAME, log } = require('../lib/common');
const { analyseOneExecution } = require('../lib/derive');
const { runScript } = require('../lib/child');
const { oneExecutionCredentials } = require('../lib/workflow');
const { CallToolBench, runSuite } = require('./callTool');

/** The fake model's plan: one echo call, then the final answer "done after 1 turns". */
const AGENT_MODEL = 'bench:echo*1';
const AGENT_ANSWER = 'done after 1 turns';
/** What the agents' webhooks receive (the agents read body.message). */
const AGENT_BODY = { message: 'Echo something, then say you are done.' };
/** A oneItem execution: the webhook's body is its one item (bench/lib/workflow.js says why). */
const ONE_ITEM = { part: 'oneItem', concurrency: 1, items: 1, fromBody: true, body: { message: 'm0' } };
/** The agent variants' kinds: ours with the built-in provider, n8n's AI Agent, ours on n8n's Chat Model sub-node. */
const AGENT_KINDS = ['agentOurs', 'agentN8n', 'agentOursChatModel'];
/** Model calls in one run of AGENT_MODEL: the tool call, then the answer (each one run of a Chat Model sub-node). */
const AGENT_MODEL_CALLS = 2;
/** Runs of the library and raw SDK one-call loops per round (one process per round). */
const RAW_CALLS_PER_ROUND = 40;

function variants(parts, reps) {
	const list = [];
	if (parts.includes('oneItem')) {
		for (const transport of ['stdio', 'http']) {
			list.push({ key: `ours-${transport}-warm-1`, ...ONE_ITEM, kind: 'ours', transport, reps, args: 'fields', keep: true });
			list.push({ key: `ours-${transport}-cold-1`, ...ONE_ITEM, kind: 'ours', transport, reps, args: 'fields', keep: false, credential: `${transport}Cold` });
		}
		list.push({ key: 'builtin-http-1', ...ONE_ITEM, kind: 'builtin', transport: 'http', reps });
		// Supplementary: both nodes with a Bearer token credential, so both read one from n8n's database.
		list.push({ key: 'ours-http-bearer-warm-1', ...ONE_ITEM, kind: 'ours', transport: 'http', reps, args: 'fields', keep: true, credential: 'httpBearer' });
		list.push({ key: 'builtin-http-bearer-1', ...ONE_ITEM, kind: 'builtin', transport: 'http', reps, bearer: true });
	}
	if (parts.includes('agentN8n')) {
		list.push({ key: 'agent-ours-http', part: 'agentN8n', kind: 'agentOurs', transport: 'http', items: 1, reps, model: AGENT_MODEL, body: AGENT_BODY });
		list.push({ key: 'agent-n8n-http', part: 'agentN8n', kind: 'agentN8n', transport: 'http', items: 1, reps, model: AGENT_MODEL, body: AGENT_BODY });
		list.push({ key: 'agent-ours-chatmodel-http', part: 'agentN8n', kind: 'agentOursChatModel', transport: 'http', items: 1, reps, model: AGENT_MODEL, body: AGENT_BODY });
	}
	return list;
}

class OneExecutionBench extends CallToolBench {
	constructor(options) {
		super({ ...options, rawReps: options.parts.includes('oneItem') ? options.reps : 0 });
		this.parts = options.parts;
	}

	buildVariants() {
		return variants(this.parts, this.reps);
	}

	/** The zero-latency fake model on loopback, in its own process group (bench/scripts/fake-model-server.js). */
	async startServices() {
		const child = processes.spawnGroup(process.execPath, [path.join(__dirname, '..', 'scripts', 'fake-model-server.js')], {
			env: { ...process.env, [RUN_MARKER_NAME]: this.runId },
			stdio: ['pipe', 'pipe', 'inherit'],
		});
		this.pgids.add(child.pid);
		this.fakeModel = child;
		const port = await new Promise((resolve, reject) => {
			let out = '';
			child.stdout.on('data', (chunk) => {
				out += chunk;
				if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).port);
			});
			child.exited.then(({ code }) => reject(new Error(`fake model server exited (${code})`)));
		});
		this.fakeModelBaseUrl = `http://127.0.0.1:${port}/v1`;
		log(`fake model (OpenAI Chat Completions) on ${this.fakeModelBaseUrl}`);
	}

	async stopServices() {
		if (!this.fakeModel) return;
		this.fakeModel.stdin.end();
		await processes.stopGroup(this.fakeModel.pid, { graceMs: 2000 });
	}

	moreCredentials(ours) {
		return oneExecutionCredentials({ everythingUrl: this.everything.url, runMarker: this.runMarker, fakeModelBaseUrl: this.fakeModelBaseUrl, ours });
	}

	verify(variant, status, body) {
		if (!AGENT_KINDS.includes(variant.kind)) return super.verify(variant, status, body);
		if (status !== 200) throw new Error(`${variant.key}: webhook answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
		// Both agents answer { output }; the fake gives this text only after one tool result came back.
		if (!Array.isArray(body) || body.length !== 1 || body[0].output !== AGENT_ANSWER) {
			throw new Error(`${variant.key}: expected one item with output "${AGENT_ANSWER}", got ${JSON.stringify(body).slice(0, 500)}`);
		}
		// Ours lists its tool calls: exactly the one echo (it calls inside its own run, no tool node runs).
		if (variant.kind !== 'agentN8n') {
			const calls = (body[0].toolCalls ?? []).map((c) => c.tool);
			if (calls.length !== 1 || calls[0] !== 'echo') throw new Error(`${variant.key}: expected one echo call, got ${JSON.stringify(calls)}`);
			const provider = variant.kind === 'agentOursChatModel' ? 'chatModel' : 'openaiChat';
			if (body[0].provider !== provider) throw new Error(`${variant.key}: expected provider ${provider}, got ${JSON.stringify(body[0].provider)}`);
		}
	}

	/**
	 * For the agents, the root node's time: its executionTime from n8n's execution data. n8n's AI
	 * Agent (v3) may hand tool calls to n8n's engine, which runs the MCP Client Tool as a node of
	 * its own and runs the Agent again with the result; the time is then the span from the first
	 * start to the last end of the root's and the tool's runs, so that it covers the tool call
	 * wherever n8n runs it (in 2.41.1 with a webhook trigger, the Agent runs once and its tool's run
	 * lies inside it). The root's own executionTime (summed over its runs) is kept as rootSumMs.
	 */
	nodeTiming(variant, chain, execution) {
		if (!AGENT_KINDS.includes(variant.kind)) return super.nodeTiming(variant, chain, execution);
		const runs = execution.nodes[chain.node] ?? [];
		const ran = () => JSON.stringify(Object.fromEntries(Object.entries(execution.nodes).map(([name, list]) => [name, list.map((r) => r.executionTime)])));
		if (runs.length === 0 || (variant.kind !== 'agentN8n' && runs.length !== 1)) throw new Error(`${variant.key}: root node ran ${runs.length} times; node runs (ms): ${ran()}`);
		const toolRuns = variant.kind === 'agentN8n' ? (execution.nodes[`MCP Client Tool ${variant.key}`] ?? []) : [];
		// n8n's tool node must show exactly the one call (ours calls inside its run; verify() checks its list of calls).
		if (variant.kind === 'agentN8n' && toolRuns.length !== 1) throw new Error(`${variant.key}: MCP Client Tool ran ${toolRuns.length} times, expected 1; node runs (ms): ${ran()}`);
		// The OpenAI Chat Model sub-node: n8n's tracing records one run per model call, under either agent.
		if (variant.kind !== 'agentOurs') {
			const modelRuns = execution.nodes[`Model ${variant.key}`] ?? [];
			if (modelRuns.length !== AGENT_MODEL_CALLS)
				throw new Error(`${variant.key}: OpenAI Chat Model ran ${modelRuns.length} times, expected ${AGENT_MODEL_CALLS}; node runs (ms): ${ran()}`);
		}
		const spanRuns = [...runs, ...toolRuns];
		const start = Math.min(...spanRuns.map((r) => r.startTime));
		const end = Math.max(...spanRuns.map((r) => r.startTime + r.executionTime));
		return { nodeMs: end - start, rootSumMs: runs.reduce((sum, r) => sum + r.executionTime, 0), nodeRuns: runs.length };
	}

	/** Once a round: one call on a kept connection through our library and through the raw SDK client, no n8n. */
	async rawRound(raw, round, rounds) {
		const output = await this.track(() =>
			runScript(this.node24, 'warm-execution.js', { url: this.everything.url, reps: RAW_CALLS_PER_ROUND, coldReps: 0 }, { env: { [RUN_MARKER_NAME]: this.runId } }),
		);
		for (const [key, value] of Object.entries(output.results)) {
			(raw[key] ??= []).push(...value.ms);
			log(`round ${round + 1}/${rounds}: ${key} (no n8n): median ${value.median.toFixed(3)} ms`);
		}
	}

	/** Medians from the samples (bench/lib/derive.js), which are kept beside them. */
	analyse({ samples, raw }) {
		const { variants: variantsOut, noN8n } = analyseOneExecution(this.variants, samples, raw);
		return { variants: variantsOut, noN8n, samples, noN8nSamples: raw, rawCallsPerRound: RAW_CALLS_PER_ROUND, agentModel: AGENT_MODEL, agentModelCalls: AGENT_MODEL_CALLS };
	}
}

/** @param options as runCallToolSuite's, plus parts: ['oneItem', 'agentN8n'] (either or both) */
function runOneExecutionSuite(options) {
	return runSuite(new OneExecutionBench(options));
}

module.exports = { runOneExecutionSuite };
