import type { INodeProperties } from 'n8n-workflow';

/** Fields all MCP server credentials share: annotation trust, timeouts, and keeping the server running. */
export function mcpServerCommonProperties(connectHint: string): INodeProperties[] {
	return [
		{
			displayName: 'Trust Tool Annotations',
			name: 'trustAnnotations',
			type: 'boolean',
			default: false,
			description: 'Whether to believe this server\'s tool annotations (such as read-only). Leave off unless you control the server: untrusted annotations are ignored, so tools count as possibly destructive.',
		},
		{
			displayName: 'Connect Timeout (Ms)',
			name: 'connectTimeout',
			type: 'number',
			default: 30000,
			typeOptions: { minValue: 100 },
			description: connectHint,
		},
		{
			displayName: 'Request Timeout (Ms)',
			name: 'requestTimeout',
			type: 'number',
			default: 60000,
			typeOptions: { minValue: 100 },
			description: 'How long to wait for each request, such as a tool call',
		},
		{
			displayName: 'Keep Server Running Between Executions',
			name: 'keepServerRunning',
			type: 'boolean',
			default: true,
			description:
				'Whether to keep the connection (and a local server\'s process) open after an execution, for the next one to reuse: no start-up cost per execution, and a stateful server keeps its state between runs of this credential. Off: a new connection per execution, closed at its end.',
		},
		{
			displayName: 'Idle Shutdown (Minutes)',
			name: 'idleShutdownMinutes',
			type: 'number',
			default: 5,
			typeOptions: { minValue: 0.1, numberPrecision: 1 },
			displayOptions: { show: { keepServerRunning: [true] } },
			description: 'Close the kept connection (and stop a local server) after this long without use',
		},
	];
}

/**
 * Roots (lib/mcp/roots.ts). Empty by default, and then the roots capability is not declared at all:
 * servers that take the client's roots as their allowed directories keep their own.
 */
export function mcpServerRootsProperty(whereHint: string): INodeProperties {
	return {
		displayName: 'Roots',
		name: 'roots',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: '/data/pdfs | PDFs',
		description: `Directories to give the server as the client's roots (MCP roots/list): one absolute path or file:// URI per line, optionally followed by " | " and a name. ${whereHint} Servers such as server-filesystem and server-pdf then allow exactly these directories instead of the ones on their command line. Empty: no roots are declared, and the server keeps its own.`,
	};
}
