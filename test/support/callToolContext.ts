import * as path from 'node:path';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { FIXTURES_DIR } from './servers';

/**
 * The n8n context MCP Call Tool's execute sees, for one item, on a stdio fixture server of
 * test/fixtures (started by the node per call unless kept): tool by name, arguments as JSON;
 * `more` adds or replaces what a test needs (node context, graph lookups, resume URL).
 */
export function callToolContext(fixture: string, credentialName: string) {
	return function context(
		tool: string,
		args: Record<string, unknown>,
		options: Record<string, unknown>,
		extra: { continueOnFail?: boolean; signal?: AbortSignal; items?: INodeExecutionData[]; keepServerRunning?: boolean; more?: Record<string, unknown> } = {},
	): IExecuteFunctions {
		const parameters: Record<string, unknown> = { connection: 'stdio', tool: { mode: 'name', value: tool }, argumentsMode: 'json', argumentsJson: JSON.stringify(args), options };
		const items: INodeExecutionData[] = extra.items ?? [{ json: {} }];
		const node = {
			id: 'n1',
			name: 'MCP Call Tool',
			type: 'mcpCallTool',
			typeVersion: 1,
			position: [0, 0],
			parameters,
			credentials: { mcpServerStdioApi: { id: 'c1', name: credentialName } },
		};
		return {
			getInputData: () => items,
			getNode: () => node,
			getNodeParameter: (name: string, _index: number, fallback: unknown, more?: { extractValue?: boolean }) => {
				const value = parameters[name] ?? fallback;
				return more?.extractValue && value && typeof value === 'object' ? (value as { value: unknown }).value : value;
			},
			getCredentials: async () => ({ command: process.execPath, args: JSON.stringify([path.join(FIXTURES_DIR, fixture)]), keepServerRunning: extra.keepServerRunning ?? false }),
			continueOnFail: () => extra.continueOnFail ?? false,
			...(extra.signal ? { getExecutionCancelSignal: () => extra.signal } : {}),
			helpers: { prepareBinaryData: async () => ({}) },
			...extra.more,
		} as unknown as IExecuteFunctions;
	};
}
