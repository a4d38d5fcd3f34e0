// The agentN8n part's third variant (issue 30): our MCP Agent through n8n's OpenAI Chat Model
// sub-node. Its ratios are paired (the two runs of one round), recomputed from the samples the
// results keep, decide the target "no slower than n8n's AI Agent with the same model node", and
// the report prints them from this run's data only.

export {};

const { deriveResults, pairedSampleRatio } = require('../../bench/lib/derive');
const { evaluateTargets } = require('../../bench/lib/targets');
const { renderMarkdown } = require('../../bench/lib/report');
const { buildWorkflow } = require('../../bench/lib/workflow');

const run = (nodeMs: number, round: number) => ({ nodeMs, wallMs: nodeMs + 50, executionMs: nodeMs + 5, cpuMs: 10, rootSumMs: nodeMs, round });
const agentVariant = (key: string, kind: string) => ({ key, part: 'agentN8n', kind, transport: 'http', nodeMs: 1, wallMs: 1 });

/**
 * Three rounds. The sub-node variant's samples are stored out of round order, so that pairing by
 * position would give other ratios (about 0.8 against n8n) than pairing by round (0.5, 2, 0.5).
 */
const SAMPLES = {
	'agent-ours-http': [run(30, 0), run(20, 1), run(40, 2)],
	'agent-n8n-http': [run(60, 0), run(40, 1), run(100, 2)],
	'agent-ours-chatmodel-http': [run(50, 2), run(30, 0), run(80, 1)],
};

function oneExecution(samples: Record<string, unknown[]> = SAMPLES): any {
	const keys = Object.keys(samples);
	const kinds: Record<string, string> = { 'agent-ours-http': 'agentOurs', 'agent-n8n-http': 'agentN8n', 'agent-ours-chatmodel-http': 'agentOursChatModel' };
	return {
		variants: keys.map((key) => agentVariant(key, kinds[key])),
		samples,
		noN8nSamples: {},
		agentModel: 'bench:echo*1',
		agentModelCalls: 2,
		// Stored figures a re-render must not trust.
		agentPairs: { chatModelVsN8n: { numerator: 'agent-ours-chatmodel-http', denominator: 'agent-n8n-http', nodeMs: { median: 9, n: 9 }, wallMs: { median: 9, n: 9 } } },
	};
}

function results(one = oneExecution()): any {
	const meta = {
		date: '2026-12-03T00:00:00.000Z',
		package: 'n8n-nodes-mcp-agent@0.0.0',
		commit: 'test',
		machine: { cpu: 'Test CPU', cores: 2, memoryGb: 1, os: 'Test' },
		loadAverageStart: [0.5, 0.5, 0.5],
		loadAverageEnd: [0.6, 0.6, 0.6],
		node: { orchestrator: 'v20', benchmarks: 'v24' },
		n8n: '2.41.1',
		quick: false,
	};
	const derived = deriveResults({ meta, oneExecution: one });
	return { ...derived, targets: evaluateTargets(derived) };
}

describe('bench agentN8n: paired ratios of the Chat Model sub-node variant', () => {
	it('pairs the samples of one round, and by position when the samples carry no round', () => {
		const byRound = pairedSampleRatio(SAMPLES['agent-ours-chatmodel-http'], SAMPLES['agent-n8n-http'], 'nodeMs');
		expect(byRound).toMatchObject({ median: 0.5, n: 3 });
		const noRound = (list: any[]) => list.map(({ round: _round, ...rest }) => rest);
		const byPosition = pairedSampleRatio(noRound(SAMPLES['agent-ours-chatmodel-http']), noRound(SAMPLES['agent-n8n-http']), 'nodeMs');
		expect(byPosition.median).toBeCloseTo(0.8);
	});

	it('recomputes the pairs from the samples, whatever the results stored', () => {
		const { agentPairs, variants } = results().oneExecution;
		expect(agentPairs.chatModelVsN8n.nodeMs).toMatchObject({ median: 0.5, n: 3 });
		// Webhook round trips: 100/150, 80/110, 130/90 → the median 80/110.
		expect(agentPairs.chatModelVsN8n.wallMs.median).toBeCloseTo(80 / 110);
		// Against the built-in provider: 30/30, 80/20, 50/40.
		expect(agentPairs.chatModelVsBuiltIn.nodeMs.median).toBeCloseTo(1.25);
		expect(variants.find((v: any) => v.key === 'agent-ours-chatmodel-http')).toMatchObject({ kind: 'agentOursChatModel', nodeMs: 50, reps: 3 });
	});

	it("decides the target by the paired ratio against n8n's AI Agent on the same sub-node (≤ 1.0), and reports the built-in comparison without a target", () => {
		const targets = results().targets;
		const sameModel = targets.find((t: any) => t.id === 'agent-chatmodel-vs-n8n-ai-agent');
		expect(sameModel).toMatchObject({ value: 0.5, met: true });
		expect(sameModel.target).toContain("no slower than n8n's AI Agent with the same model node");
		expect(sameModel.measured).toContain('0.50× paired over 3 rounds');
		expect(sameModel.measured).toContain('medians 50 vs 60 ms');
		const builtIn = targets.find((t: any) => t.id === 'agent-chatmodel-vs-built-in');
		expect(builtIn).toMatchObject({ value: 1.25, met: null });
		expect(builtIn.target).toMatch(/^supplementary:/);

		// Slower than n8n's in every round: missed.
		const slower = { ...SAMPLES, 'agent-ours-chatmodel-http': [run(70, 0), run(50, 1), run(120, 2)] };
		expect(results(oneExecution(slower)).targets.find((t: any) => t.id === 'agent-chatmodel-vs-n8n-ai-agent')).toMatchObject({ met: false });
	});

	it('adds no Chat Model target or row when the run did not measure that variant', () => {
		const twoVariants = { 'agent-ours-http': SAMPLES['agent-ours-http'], 'agent-n8n-http': SAMPLES['agent-n8n-http'] };
		const r = results(oneExecution(twoVariants));
		expect(r.targets.map((t: any) => t.id)).toEqual(['agent-vs-n8n-ai-agent']);
		const markdown = renderMarkdown(r);
		expect(markdown).not.toContain('Provider Chat Model with');
		expect(markdown).not.toContain('through the sub-node');
	});

	it('prints the third row and the paired ratios of this run, the sub-node runs from the results', () => {
		const markdown = renderMarkdown(results());
		const row = markdown.split('\n').find((line: string) => line.includes("Provider Chat Model with n8n's OpenAI Chat Model sub-node"));
		expect(row?.split('|').map((cell: string) => cell.trim())[2]).toBe('**50.0 ms**');
		expect(markdown).toContain("n8n's AI Agent with the same sub-node: 0.50×");
		expect(markdown).toContain('MCP Agent with its built-in provider: 1.25×');
		expect(markdown).toContain('medians over 3 rounds');
		expect(markdown).toContain('the OpenAI Chat Model sub-node ran 2 times');
		expect(markdown).not.toContain('ran ? times');
	});
});

describe('bench agentN8n: the Chat Model sub-node variant’s workflow', () => {
	const ctx = { everythingUrl: 'http://127.0.0.1:1/mcp', ourCredentials: { http: { id: 'h', name: 'H' }, agentOpenAi: { id: 'o', name: 'O' } } };
	const variant = (key: string, kind: string) => ({ key, kind, transport: 'http', items: 1, model: 'bench:echo*1' });
	const { workflow, chains } = buildWorkflow([variant('agent-n8n-http', 'agentN8n'), variant('agent-ours-chatmodel-http', 'agentOursChatModel')], ctx);
	const node = (name: string) => workflow.nodes.find((n: any) => n.name === name);

	it('gives our Agent Provider Chat Model and, on its Chat Model input, the same OpenAI Chat Model node n8n’s AI Agent gets', () => {
		const agent = node(chains['agent-ours-chatmodel-http'].node);
		expect(agent.type).toBe('n8n-nodes-mcp-agent.mcpAgent');
		expect(agent.parameters.provider).toBe('chatModel');
		expect(agent.parameters.model).toBeUndefined();
		expect(agent.credentials).toBeUndefined();
		const ours = node('Model agent-ours-chatmodel-http');
		const theirs = node('Model agent-n8n-http');
		expect(ours).toMatchObject({ type: '@n8n/n8n-nodes-langchain.lmChatOpenAi', typeVersion: 1.3, parameters: { responsesApiEnabled: false } });
		expect({ ...ours, id: 0, name: 0, position: 0 }).toEqual({ ...theirs, id: 0, name: 0, position: 0 });
		expect(workflow.connections['Model agent-ours-chatmodel-http']).toEqual({ ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]] });
		expect(workflow.connections['Server agent-ours-chatmodel-http'].ai_tool[0][0].node).toBe(agent.name);
	});
});
