import type { INodeProperties } from 'n8n-workflow';

/** Fields both MCP server credentials share: annotation trust and timeouts. */
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
	];
}
