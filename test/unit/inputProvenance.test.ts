/**
 * The n8n probes the resume routes trust an answer by (nodes/McpAgent/inputProvenance.ts), each on
 * its own against a fake n8n graph: what makes it true, and that every missing or failing lookup
 * trusts nothing (or, for the MCP Approval sign-in, counts it as required).
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { inputProvenance } from '../../nodes/McpAgent/inputProvenance';

const AGENT = 'MCP Agent';
const PACKAGE = 'n8n-nodes-mcp-agent';

interface GraphNode {
	name: string;
	type?: string;
	parameters?: Record<string, unknown>;
}

/**
 * A workflow around the Agent: `parents` of each node on the main input (direct ones; the
 * ancestors, for depth -1, follow them), its children, the input's source node, and the settings.
 * A lookup given as 'throws' throws; one given as 'missing' is absent (an older n8n).
 */
interface Graph {
	agentType?: string;
	source?: string;
	parents?: Record<string, GraphNode[]>;
	children?: GraphNode[] | 'throws' | 'missing';
	getParentNodes?: 'throws' | 'missing';
	getInputSourceData?: 'throws';
	settings?: Record<string, unknown> | 'throws' | 'missing';
}

function ancestors(parents: Record<string, GraphNode[]>, name: string, seen = new Set<string>()): GraphNode[] {
	return (parents[name] ?? []).flatMap((node) => (seen.has(node.name) ? [] : (seen.add(node.name), [node, ...ancestors(parents, node.name, seen)])));
}

function fakeContext(graph: Graph) {
	const parents = graph.parents ?? {};
	const fail = () => {
		throw new Error('lookup failed');
	};
	return {
		getNode: () => ({ name: AGENT, type: graph.agentType ?? `${PACKAGE}.mcpAgent`, typeVersion: 1, parameters: {}, id: '1', position: [0, 0] }),
		getInputSourceData: graph.getInputSourceData === 'throws' ? fail : () => (graph.source ? { previousNode: graph.source } : undefined),
		...(graph.getParentNodes === 'missing'
			? {}
			: {
					getParentNodes: (name: string, options: { connectionType?: string; depth?: number; includeNodeParameters?: boolean }) => {
						if (graph.getParentNodes === 'throws') fail();
						if (options.connectionType !== 'main') return [];
						const found = options.depth === -1 ? ancestors(parents, name) : (parents[name] ?? []);
						return found.map((node) => ({ name: node.name, type: node.type ?? 'n8n-nodes-base.set', typeVersion: 1, disabled: false, ...(options.includeNodeParameters ? { parameters: node.parameters ?? {} } : {}) }));
					},
				}),
		...(graph.children === 'missing'
			? {}
			: {
					getChildNodes: () => {
						if (graph.children === 'throws') fail();
						return (graph.children as GraphNode[] | undefined ?? []).map((node) => ({ name: node.name, type: node.type ?? 'x', typeVersion: 1, disabled: false, parameters: node.parameters ?? {} }));
					},
				}),
		...(graph.settings === 'missing' ? {} : { getWorkflowSettings: () => (graph.settings === 'throws' ? fail() : (graph.settings ?? { executionOrder: 'v1' })) }),
	};
}

const probe = (graph: Graph) => inputProvenance(fakeContext(graph) as never, true);

const approval = (parameters: Record<string, unknown> = {}): GraphNode => ({ name: 'MCP Approval', type: `${PACKAGE}.mcpApproval`, parameters });
const slack = (operation = 'sendAndWait'): GraphNode => ({ name: 'Slack', type: 'n8n-nodes-base.slack', parameters: { operation } });

/** Agent → Slack (send and wait) → Agent: the answer straight back from the channel. */
const SLACK_LOOP: Graph = { source: 'Slack', parents: { Slack: [{ name: AGENT }], [AGENT]: [slack()] } };
/** Agent → MCP Approval → Agent. */
const APPROVAL_LOOP: Graph = { source: 'MCP Approval', parents: { 'MCP Approval': [{ name: AGENT }], [AGENT]: [approval()] }, children: [approval()] };

describe('inputProvenance', () => {
	it('asks n8n nothing and trusts nothing while no run waits', () => {
		const asked = new Proxy({}, { get: (_target, key) => (key === 'then' ? undefined : () => { throw new Error(`asked ${String(key)}`); }) });
		expect(inputProvenance(asked as never, false)).toEqual({ pairedStraight: false, fromSendAndWait: false, legacyOrder: false, fromApprovalNode: false, approvalSignIn: false, pairedIndex: expect.any(Function) });
	});

	it('straight from here: the input\'s source has this Agent as its only parent', () => {
		expect(probe(SLACK_LOOP).pairedStraight).toBe(true);
		expect(probe({ ...SLACK_LOOP, parents: { ...SLACK_LOOP.parents, Slack: [{ name: AGENT }, { name: 'Other' }] } }).pairedStraight).toBe(false);
		expect(probe({ source: 'Sort', parents: { Sort: [{ name: 'Slack' }], Slack: [{ name: AGENT }] } }).pairedStraight).toBe(false);
		for (const failing of [{ source: undefined }, { getParentNodes: 'missing' as const }, { getParentNodes: 'throws' as const }, { getInputSourceData: 'throws' as const }]) {
			expect(probe({ ...SLACK_LOOP, ...failing }).pairedStraight).toBe(false);
		}
	});

	it('from send-and-wait: a direct parent with the sendAndWait operation that follows this Agent', () => {
		expect(probe(SLACK_LOOP).fromSendAndWait).toBe(true);
		expect(probe({ ...SLACK_LOOP, parents: { Slack: [{ name: AGENT }], [AGENT]: [slack('post')] } }).fromSendAndWait).toBe(false);
		// A send-and-wait node asking something else (it does not follow this Agent).
		expect(probe({ source: 'Slack', parents: { Slack: [{ name: 'Trigger' }], [AGENT]: [slack()] } }).fromSendAndWait).toBe(false);
		// The source is not among this node's direct parents.
		expect(probe({ ...SLACK_LOOP, source: 'Elsewhere' }).fromSendAndWait).toBe(false);
		for (const failing of [{ source: undefined }, { getParentNodes: 'missing' as const }, { getParentNodes: 'throws' as const }, { getInputSourceData: 'throws' as const }]) {
			expect(probe({ ...SLACK_LOOP, ...failing }).fromSendAndWait).toBe(false);
		}
	});

	it('from MCP Approval: the source parent is this package\'s MCP Approval node, by type', () => {
		expect(probe(APPROVAL_LOOP).fromApprovalNode).toBe(true);
		// n8n's own type names when the package is loaded without a prefix.
		expect(probe({ ...APPROVAL_LOOP, agentType: 'mcpAgent', parents: { [AGENT]: [{ ...approval(), type: 'mcpApproval' }] } }).fromApprovalNode).toBe(true);
		// Another package's node of the same name, or a node named "MCP Approval" of another type.
		expect(probe({ ...APPROVAL_LOOP, parents: { [AGENT]: [{ ...approval(), type: 'other-package.mcpApproval' }] } }).fromApprovalNode).toBe(false);
		expect(probe({ ...APPROVAL_LOOP, parents: { [AGENT]: [{ name: 'MCP Approval', type: 'n8n-nodes-base.set' }] } }).fromApprovalNode).toBe(false);
		expect(probe({ ...APPROVAL_LOOP, agentType: `${PACKAGE}.somethingElse` }).fromApprovalNode).toBe(false);
		for (const failing of [{ source: undefined }, { getParentNodes: 'missing' as const }, { getParentNodes: 'throws' as const }, { getInputSourceData: 'throws' as const }]) {
			expect(probe({ ...APPROVAL_LOOP, ...failing }).fromApprovalNode).toBe(false);
		}
	});

	it('MCP Approval sign-in: required unless plainly off; an n8n without getChildNodes or a failing lookup counts as on', () => {
		const signIn = (graph: Partial<Graph>) => probe({ ...APPROVAL_LOOP, ...graph }).approvalSignIn;
		expect(signIn({ children: [approval({ requireLogin: true })] })).toBe(true);
		expect(signIn({ children: [approval({ requireLogin: '={{ $json.login }}' })] })).toBe(true);
		expect(signIn({ children: [approval({ requireLogin: 'false' })] })).toBe(true);
		expect(signIn({ children: [approval({ requireLogin: false })] })).toBe(false);
		expect(signIn({ children: [approval()] })).toBe(false);
		expect(signIn({ children: [{ name: 'Other', type: 'other-package.mcpApproval', parameters: { requireLogin: true } }] })).toBe(false);
		expect(signIn({ children: [] })).toBe(false);
		expect(signIn({ children: 'missing' })).toBe(true);
		expect(signIn({ children: 'throws' })).toBe(true);
		// Not this package's Agent type: there is no MCP Approval type to look for.
		expect(signIn({ agentType: 'x.other', children: 'missing' })).toBe(false);
	});

	it('legacy order: anything but the v1 setting, a missing setting or lookup, or a failing one', () => {
		expect(probe({ settings: { executionOrder: 'v1' } }).legacyOrder).toBe(false);
		for (const settings of [{ executionOrder: 'v0' }, {}, 'missing' as const, 'throws' as const]) expect(probe({ settings }).legacyOrder).toBe(true);
	});

	it('paired index: the first pairing of the item, as a number or an object', () => {
		const { pairedIndex } = probe({});
		const item = (pairedItem: unknown) => ({ json: {}, pairedItem }) as INodeExecutionData;
		expect(pairedIndex(item(2))).toBe(2);
		expect(pairedIndex(item({ item: 1 }))).toBe(1);
		expect(pairedIndex(item([{ item: 3 }, { item: 0 }]))).toBe(3);
		expect(pairedIndex(item([4]))).toBe(4);
		expect(pairedIndex(item(undefined))).toBeUndefined();
		expect(pairedIndex(item([]))).toBeUndefined();
	});
});
