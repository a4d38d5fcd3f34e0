import type { INodeProperties } from 'n8n-workflow';

/** The HTTP transport choice, shared by the HTTP and the OAuth credential. */
export const mcpServerTransportProperty: INodeProperties = {
	displayName: 'Transport',
	name: 'transport',
	type: 'options',
	default: 'streamableHttp',
	options: [
		{ name: 'Streamable HTTP', value: 'streamableHttp', description: 'The current MCP HTTP transport' },
		{ name: 'Legacy SSE', value: 'sse', description: 'The older HTTP+SSE transport (GET an event stream, POST messages)' },
		{ name: 'Auto', value: 'auto', description: 'Try Streamable HTTP, fall back to legacy SSE when the server rejects it' },
	],
};
