/**
 * n8n tool nodes on the Agent's tools input: their zod schemas (built with the zod n8n 2.41.1 uses,
 * in the shapes n8n's tool nodes build them) as JSON Schema, grouping by node, the catalog merged
 * with MCP tools (unique names, default approval, pins), and the runner's second executor.
 */
import { z } from 'zod';
import * as z4 from 'zod/v4';
import { buildCatalog, mergeCatalogs, parsePinnedFingerprints } from '../../lib/agent/catalog';
import { buildN8nToolCatalog, groupN8nTools, invokeN8nTool, n8nResultText, N8nToolRefused, type N8nTool } from '../../lib/agent/n8nTools';
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { RunSettings } from '../../lib/agent/types';
import type { ModelTurn } from '../../lib/providers/modelTypes';
import { toolSchemaToJsonSchema } from '../../lib/agent/zodSchema';
import { validateArguments } from '../../lib/tools/argumentValidator';
import { riskBadges } from '../../lib/approvals/riskBadges';
import { buildApprovalRequest } from '../../lib/approvals/approvalRequest';
import { toolUseTurn } from '../support/modelTurns';

/** A LangChain StructuredTool as n8n hands it over: invoke parses with the zod schema, then runs. */
function tool(name: string, schema: unknown, run: (args: unknown) => unknown, node = name): N8nTool & { calls: unknown[] } {
	const calls: unknown[] = [];
	return {
		name,
		description: `The ${name} tool`,
		schema,
		metadata: { sourceNodeName: node },
		calls,
		async invoke(input: unknown) {
			const parsed = (schema as { parse(v: unknown): unknown }).parse(input);
			calls.push(parsed);
			return run(parsed);
		},
	};
}

describe('zod schemas of n8n tools as JSON Schema', () => {
	it('converts what a Code Tool with an input schema builds (objects, descriptions, optional, enums, arrays, nested)', () => {
		const schema = z.object({
			city: z.string().describe('City name'),
			days: z.number().int().min(1).max(14).optional(),
			units: z.enum(['metric', 'imperial']).default('metric'),
			tags: z.array(z.string()).max(3),
			where: z.object({ lat: z.number(), lon: z.number() }).strict(),
			note: z.string().nullable(),
		});
		expect(toolSchemaToJsonSchema(schema)).toEqual({
			type: 'object',
			properties: {
				city: { type: 'string', description: 'City name' },
				days: { type: 'integer', minimum: 1, maximum: 14 },
				units: { enum: ['metric', 'imperial'], default: 'metric' },
				tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
				where: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'], additionalProperties: false },
				note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
			},
			required: ['city', 'tags', 'where', 'note'],
		});
	});

	it('reads a node used as a tool ($fromAI placeholders: z.object(...).required()) and a string tool (DynamicTool transform)', () => {
		const fromAi = z.object({ message: z.string().describe('What to send'), count: z.number() }).required();
		expect(toolSchemaToJsonSchema(fromAi)).toMatchObject({ type: 'object', required: ['message', 'count'], properties: { message: { type: 'string', description: 'What to send' } } });
		const stringTool = z.object({ input: z.string().optional() }).transform((o) => o.input);
		expect(toolSchemaToJsonSchema(stringTool)).toEqual({ type: 'object', properties: { input: { type: 'string' } } });
	});

	it('reads zod 4 schemas (zod/v4 in the same package) the same way', () => {
		const schema = z4.object({ q: z4.string().describe('query'), k: z4.number().int().optional(), mode: z4.enum(['a', 'b']) });
		expect(toolSchemaToJsonSchema(schema)).toEqual({
			type: 'object',
			properties: { q: { type: 'string', description: 'query' }, k: { type: 'integer' }, mode: { enum: ['a', 'b'] } },
			required: ['q', 'mode'],
		});
	});

	it('passes a JSON Schema through, wraps a non-object root, and gives a schema-less tool one text input', () => {
		expect(toolSchemaToJsonSchema({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
		expect(toolSchemaToJsonSchema(z.string())).toEqual({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
		expect(toolSchemaToJsonSchema(undefined)).toEqual({ type: 'object', properties: { input: { type: 'string' } } });
	});

	it('stops at a recursive schema instead of looping', () => {
		type Tree = { name: string; children?: Tree[] };
		const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree).optional() }));
		const json = JSON.stringify(toolSchemaToJsonSchema(z.object({ root: tree })));
		expect(json.length).toBeLessThan(200_000);
	});

	it('the converted schema rejects what the zod schema rejects, so our check runs before the tool', () => {
		const schema = z.object({ city: z.string(), days: z.number().int().optional() });
		const json = toolSchemaToJsonSchema(schema);
		expect(validateArguments(json, { city: 'Oslo', days: 2 }).valid).toBe(true);
		expect(validateArguments(json, { days: 2 }).valid).toBe(false);
		expect(validateArguments(json, { city: 3 }).valid).toBe(false);
		expect(validateArguments(json, { city: 'x', days: 1.5 }).valid).toBe(false);
	});
});

describe('n8n tools grouped by the node that supplied them', () => {
	it('flattens toolkits, keeps each tool under its node, and refuses n8n\'s human-review gate tools', () => {
		const a = tool('add', z.object({ x: z.number() }), () => 1, 'Calculator');
		const kitTools = [tool('search', z.object({ q: z.string() }), () => '', 'Docs'), tool('fetch', z.object({ id: z.string() }), () => '', 'Docs')];
		const groups = groupN8nTools([a, { tools: kitTools, getTools: () => kitTools }]);
		expect(groups.map((g) => [g.node, g.tools.map((t) => t.name)])).toEqual([['Calculator', ['add']], ['Docs', ['search', 'fetch']]]);
		const gated = { ...tool('send', z.object({}), () => ''), metadata: { sourceNodeName: 'Approve', gatedToolNodeName: 'Slack' } };
		expect(() => groupN8nTools([gated])).toThrow(N8nToolRefused);
	});
});

const SETTINGS: RunSettings = {
	model: 'm', maxIterations: 5, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000,
	approval: { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [] },
};

const turn = (calls: Array<{ id: string; name: string; args: unknown }>): ModelTurn => toolUseTurn(calls);

describe('n8n tools in the catalog', () => {
	const mcpSide = buildCatalog([{ id: 'Files', name: 'Files', tools: [{ name: 'search', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }], trustAnnotations: true }]).tools;

	it('keeps names unique across MCP servers and n8n tool nodes (a shared name gets its source as prefix)', () => {
		const n8n = buildN8nToolCatalog(groupN8nTools([tool('search', z.object({ q: z.string() }), () => '', 'Docs'), tool('code', z.object({}), () => '', 'Code Tool')]));
		const merged = mergeCatalogs(mcpSide, n8n.tools);
		expect(merged.map((t) => [t.providerName, t.serverName, t.source ?? 'mcp'])).toEqual([
			['Docs__search', 'Docs', 'n8n'],
			['Files__search', 'Files', 'mcp'],
			['code', 'Code Tool', 'n8n'],
		]);
		// Without a clash, the MCP catalog is unchanged.
		expect(mergeCatalogs(mcpSide, [])).toBe(mcpSide);
	});

	it('sends every n8n tool call to review by default (no annotations), unless Never Ask For names it', () => {
		const n8n = buildN8nToolCatalog(groupN8nTools([tool('code', z.object({ x: z.number() }), () => '', 'Code Tool')]));
		const run = (neverAsk: string[]) =>
			step(createRun({ provider: 'anthropic', settings: { ...SETTINGS, approval: { ...SETTINGS.approval!, neverAsk } }, tools: n8n.tools, userMessage: 'go' }), {
				type: 'model_turn',
				turn: turn([{ id: 'c1', name: 'code', args: { x: 1 } }]),
			});
		expect(nextEffect(run([]))).toMatchObject({ type: 'request_approval', calls: [{ id: 'c1', tool: { serverName: 'Code Tool', mcpName: 'code' } }] });
		expect(nextEffect(run(['Code Tool/code']))).toMatchObject({ type: 'run_tools' });
	});

	it('fingerprints name, description and schema; with pinning on, an unpinned n8n tool is withheld with its fingerprint, a qualified pin admits it', () => {
		const code = tool('code', z.object({ x: z.number() }), () => '', 'Code Tool');
		const open = buildN8nToolCatalog(groupN8nTools([code]));
		const fingerprint = open.tools[0].fingerprint;
		expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
		const changed = buildN8nToolCatalog(groupN8nTools([{ ...code, description: 'Now also deletes' }]));
		expect(changed.tools[0].fingerprint).not.toBe(fingerprint);

		const pinnedElsewhere = buildN8nToolCatalog(groupN8nTools([code]), { pinned: parsePinnedFingerprints({ 'Files/search': 'sha256:x' }) });
		expect(pinnedElsewhere.tools).toEqual([]);
		expect(pinnedElsewhere.withheld[0]).toMatchObject({ server: 'Code Tool', tool: 'code', fingerprint });
		// An unqualified pin is for the one MCP server; it never admits an n8n tool.
		expect(buildN8nToolCatalog(groupN8nTools([code]), { pinned: parsePinnedFingerprints({ code: fingerprint }) }).tools).toEqual([]);
		expect(buildN8nToolCatalog(groupN8nTools([code]), { pinned: parsePinnedFingerprints({ 'Code Tool/code': fingerprint }) }).tools).toHaveLength(1);
	});

	it('shows an n8n tool on the review page with its own badge, never as trusted read-only', () => {
		const n8n = buildN8nToolCatalog(groupN8nTools([tool('code', z.object({ x: z.number() }), () => '', 'Code Tool')]));
		let state = createRun({ provider: 'anthropic', settings: SETTINGS, tools: n8n.tools, userMessage: 'go' });
		state = step(state, { type: 'model_turn', turn: turn([{ id: 'c1', name: 'code', args: { x: 1 } }]) });
		state = step(state, { type: 'approval_opened', approval: { id: 'a1', requestedAt: 't0', expiresAt: 't1' } });
		const request = buildApprovalRequest(state, { id: 'a1', requestedAt: 't0', expiresAt: 't1' }, (state.phase as unknown as { calls: never[] }).calls);
		expect(request.calls[0]).toMatchObject({ server: 'Code Tool', tool: 'code', source: 'n8n' });
		const kinds = riskBadges(request.calls[0]).map((b) => b.kind);
		expect(kinds).toEqual(['destructive', 'n8n-tool']);
	});
});

describe('the tool runner\'s n8n executor', () => {
	it('validates before the call: invalid arguments go back to the model and the tool is never invoked', async () => {
		const code = tool('code', z.object({ x: z.number() }), (a) => `got ${JSON.stringify(a)}`, 'Code Tool');
		const n8n = buildN8nToolCatalog(groupN8nTools([code]));
		let state = createRun({ provider: 'anthropic', settings: { ...SETTINGS, approval: undefined }, tools: n8n.tools, userMessage: 'go' });
		state = step(state, { type: 'model_turn', turn: turn([{ id: 'bad', name: 'code', args: { x: 'one' } }, { id: 'good', name: 'code', args: { x: 1 } }]) });
		const effect = nextEffect(state);
		expect(effect).toMatchObject({ type: 'run_tools', calls: [{ id: 'good' }] });
		const observed: string[] = [];
		const result = await runToolCalls((effect as unknown as { calls: never[] }).calls, {
			connections: new Map(),
			n8nTools: n8n.index,
			concurrency: 2,
			timeoutMs: 1000,
			limits: DEFAULT_OUTCOME_LIMITS,
			observer: (call) => {
				observed.push(`start ${call.id}`);
				return (outcome, ms) => observed.push(`end ${call.id} ${outcome?.isError} ${typeof ms}`);
			},
		});
		expect(code.calls).toEqual([{ x: 1 }]);
		expect(result.outcomes).toEqual([{ id: 'good', isError: false, text: 'got {"x":1}', images: [] }]);
		expect(observed).toEqual(['start good', 'end good false number']);
		const done = step(state, { type: 'tool_outcomes', outcomes: result.outcomes, durations: result.durations });
		expect(JSON.stringify(done.transcript)).toContain('Invalid arguments for tool \\"code\\"');
	});

	it('caps results like MCP results, turns failures and timeouts into error results, and reads objects as JSON', async () => {
		const limits = { timeoutMs: 50, maxChars: 100 };
		const long = await invokeN8nTool(tool('t', z.object({}), () => 'x'.repeat(500)), {}, limits);
		expect(long).toMatchObject({ isError: false });
		expect(long.text).toContain('[trimmed by the agent: you see the first 100 of 500 characters');
		const failing = await invokeN8nTool(tool('t', z.object({}), () => { throw new Error('sandbox exploded'); }), {}, limits);
		expect(failing).toEqual({ isError: true, text: 'The tool call failed: sandbox exploded' });
		const slow = await invokeN8nTool(tool('t', z.object({}), () => new Promise(() => undefined)), {}, limits);
		expect(slow).toEqual({ isError: true, text: 'The tool call failed: the tool did not answer within 50 ms' });
		// The tool is told to stop (LangChain's config.signal), so it does not run on unseen.
		let signal: AbortSignal | undefined;
		const listening: N8nTool = { name: 't', description: 'd', invoke: (_input, config) => new Promise(() => (signal = (config as { signal?: AbortSignal }).signal)) };
		await invokeN8nTool(listening, {}, limits);
		expect(signal?.aborted).toBe(true);
		expect(String((signal?.reason as Error).message)).toBe('the tool did not answer within 50 ms');
		expect(n8nResultText([{ response: 'ok' }])).toBe('[{"response":"ok"}]');
		expect(n8nResultText({ content: 'from a ToolMessage', tool_call_id: 'c' })).toBe('from a ToolMessage');
	});

	it('an n8n tool that is gone on resume fails its call instead of reaching another tool', async () => {
		const result = await runToolCalls(
			[{ id: 'c', providerName: 'code', tool: { serverId: 'Code Tool', serverName: 'Code Tool', mcpName: 'code', fingerprint: 'f' }, arguments: {} }],
			{ connections: new Map(), n8nTools: new Map([['Code Tool', new Map()]]), concurrency: 1, timeoutMs: 100, limits: DEFAULT_OUTCOME_LIMITS },
		);
		expect(result.outcomes[0]).toMatchObject({ isError: true, text: expect.stringContaining('no longer connected') });
	});
});
