/**
 * The built-in providers' credentials (issue 30, point 2): the package's own types and n8n's own
 * `anthropicApi` / `openAiApi`, picked by the Credential Type parameter; their fields read into a
 * provider connection; n8n's custom header sent with every model request and kept out of errors.
 */
import { NodeHelpers, Workflow, type INodeTypeDescription, type INodeTypes } from 'n8n-workflow';
import { McpAgent } from '../../nodes/McpAgent/McpAgent.node';
import { connectionFromCredential, credentialTypeFor, providerConnection, providerCredentials } from '../../nodes/McpAgent/providerCredential';
import { createModelClient } from '../../lib/providers/clients';
import type { ApiProviderId } from '../../lib/providers/types';

const EXTRA = { maxRetries: 0, timeoutMs: 5000 };

describe('which credential the node asks for', () => {
	const description = new McpAgent().description as INodeTypeDescription;
	/** The credential types n8n shows (and lets the node read) for saved parameters, defaults filled in as n8n's Workflow does. */
	const shownFor = (parameters: Record<string, unknown>) => {
		const nodeTypes = { getByName: () => ({ description }), getByNameAndVersion: () => ({ description }), getKnownTypes: () => ({}) } as unknown as INodeTypes;
		const saved = { id: 'a', name: 'MCP Agent', type: 'n8n-nodes-mcp-agent.mcpAgent', typeVersion: 1, position: [0, 0] as [number, number], parameters: parameters as never };
		const node = new Workflow({ id: 'w', name: 'w', nodes: [saved], connections: {}, active: false, nodeTypes }).getNode('MCP Agent')!;
		return (description.credentials ?? []).filter((credential) => NodeHelpers.displayParameter(node.parameters, credential, node, description, node.parameters)).map((credential) => credential.name);
	};

	it("keeps the package's own credential for saved workflows (Credential Type unset)", () => {
		expect(description.credentials).toBe(providerCredentials);
		expect(shownFor({})).toEqual(['mcpAgentAnthropicApi']);
		expect(shownFor({ provider: 'openaiChat' })).toEqual(['mcpAgentOpenAiApi']);
		expect(shownFor({ provider: 'openaiResponses', providerCredential: 'mcpAgent' })).toEqual(['mcpAgentOpenAiApi']);
	});

	it("asks for n8n's own anthropicApi / openAiApi with Credential Type Predefined", () => {
		expect(shownFor({ provider: 'anthropic', providerCredential: 'n8n' })).toEqual(['anthropicApi']);
		expect(shownFor({ provider: 'openaiChat', providerCredential: 'n8n' })).toEqual(['openAiApi']);
		expect(shownFor({ provider: 'openaiResponses', providerCredential: 'n8n' })).toEqual(['openAiApi']);
	});

	it('asks for none with a Chat Model sub-node', () => {
		expect(shownFor({ provider: 'chatModel' })).toEqual([]);
		expect(shownFor({ provider: 'chatModel', providerCredential: 'n8n' })).toEqual([]);
	});

	it('reads the type the kind names', async () => {
		expect(credentialTypeFor('anthropic', 'n8n')).toBe('anthropicApi');
		expect(credentialTypeFor('openaiResponses', 'mcpAgent')).toBe('mcpAgentOpenAiApi');
		const read: string[] = [];
		const context = { getCredentials: async (type: string) => (read.push(type), { apiKey: 'sk-n8n', url: 'https://gateway.example/v1', organizationId: 'org-1' }) };
		await expect(providerConnection(context as never, 'openaiChat', 'n8n', EXTRA)).resolves.toEqual({
			provider: 'openaiChat',
			apiKey: 'sk-n8n',
			baseUrl: 'https://gateway.example/v1',
			organization: 'org-1',
			project: undefined,
			...EXTRA,
		});
		expect(read).toEqual(['openAiApi']);
	});
});

describe('reading the credential fields', () => {
	it("the package's own: baseUrl, organization, project", () => {
		expect(connectionFromCredential('openaiChat', 'mcpAgent', { apiKey: 'k', baseUrl: ' http://localhost:11434/v1 ', organization: '', project: 'p1' }, EXTRA)).toEqual({
			provider: 'openaiChat',
			apiKey: 'k',
			baseUrl: 'http://localhost:11434/v1',
			organization: undefined,
			project: 'p1',
			...EXTRA,
		});
	});

	it("n8n's anthropicApi: apiKey and url (no organization for Anthropic)", () => {
		expect(connectionFromCredential('anthropic', 'n8n', { apiKey: 'sk-ant', url: 'https://api.anthropic.com', organizationId: 'ignored' }, EXTRA)).toEqual({
			provider: 'anthropic',
			apiKey: 'sk-ant',
			baseUrl: 'https://api.anthropic.com',
			organization: undefined,
			project: undefined,
			...EXTRA,
		});
	});

	it("n8n's custom header only when switched on and named; an older n8n's credential without url reads the default", () => {
		const on = connectionFromCredential('openaiResponses', 'n8n', { apiKey: 'k', header: true, headerName: 'X-Gateway-Key', headerValue: 'gw-secret-123456' }, EXTRA);
		expect(on.headers).toEqual({ 'X-Gateway-Key': 'gw-secret-123456' });
		expect(on.baseUrl).toBeUndefined();
		expect(connectionFromCredential('openaiChat', 'n8n', { apiKey: 'k', header: false, headerName: 'X-Gateway-Key', headerValue: 'v' }, EXTRA).headers).toBeUndefined();
		expect(connectionFromCredential('openaiChat', 'n8n', { apiKey: 'k', header: true, headerName: ' ', headerValue: 'v' }, EXTRA).headers).toBeUndefined();
		expect(connectionFromCredential('openaiChat', 'n8n', { apiKey: 42 }, EXTRA).apiKey).toBe('');
	});
});

describe("n8n's custom header on the wire", () => {
	const REPLY: Record<ApiProviderId, unknown> = {
		anthropic: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
		openaiChat: { id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] },
		openaiResponses: { id: 'r', object: 'response', status: 'completed', output: [] },
	};

	it.each(Object.keys(REPLY) as ApiProviderId[])('%s: sent with the request, beside the API key', async (provider) => {
		const headers: Headers[] = [];
		const fetch = (async (_input: unknown, init?: RequestInit) => {
			headers.push(new Headers(init?.headers));
			return new Response(JSON.stringify(REPLY[provider]), { status: 200, headers: { 'content-type': 'application/json' } });
		}) as typeof globalThis.fetch;
		const connection = connectionFromCredential(provider, 'n8n', { apiKey: 'sk-key-abcdef', url: provider === 'anthropic' ? 'http://fake.invalid' : 'http://fake.invalid/v1', header: true, headerName: 'X-Gateway-Key', headerValue: 'gw-secret-123456' }, EXTRA);
		await createModelClient({ ...connection, fetch }).send({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], input: 'hi' });
		expect(headers[0].get('x-gateway-key')).toBe('gw-secret-123456');
		// The SDK's own key header (Anthropic's SDK sends x-api-key or a bearer token, by release).
		expect(`${headers[0].get('x-api-key') ?? ''} ${headers[0].get('authorization') ?? ''}`).toMatch(/sk-key-abcdef/);
	});

	it("an error quoting the header's value does not show it", async () => {
		const fetch = (async () =>
			new Response(JSON.stringify({ error: { message: 'gateway refused key gw-secret-123456', type: 'invalid_request_error' } }), { status: 400, headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
		const connection = connectionFromCredential('openaiChat', 'n8n', { apiKey: 'sk-key-abcdef', url: 'http://fake.invalid/v1', header: true, headerName: 'X-Gateway-Key', headerValue: 'gw-secret-123456' }, EXTRA);
		const failure = await createModelClient({ ...connection, fetch })
			.send({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
			.then(
				() => undefined,
				(error: unknown) => error as Error & { description?: string },
			);
		expect(failure?.message).toMatch(/gateway refused key/);
		expect(JSON.stringify({ message: failure?.message, description: failure?.description, error: (failure as { error?: unknown })?.error })).not.toContain('gw-secret-123456');
	});
});
