import type { ICredentialType, INodeType } from 'n8n-workflow';
import { McpAgentAnthropicApi } from '../../credentials/McpAgentAnthropicApi.credentials';
import { McpServerHttpApi } from '../../credentials/McpServerHttpApi.credentials';
import { McpServerOAuth2Api } from '../../credentials/McpServerOAuth2Api.credentials';
import { McpServerStdioApi } from '../../credentials/McpServerStdioApi.credentials';
import { McpAgent } from '../../nodes/McpAgent/McpAgent.node';
import { McpApproval } from '../../nodes/McpApproval/McpApproval.node';
import { McpCallTool } from '../../nodes/McpCallTool/McpCallTool.node';
import { McpListTools } from '../../nodes/McpListTools/McpListTools.node';
import { McpServer } from '../../nodes/McpServer/McpServer.node';
import { serverCredentials } from '../../nodes/shared/serverConnection';

// What n8n's community-node checks ask of the node descriptions (issue 16), kept true by tests:
// themed icons, a subtitle, an explicit usableAsTool decision, the codex from the codex file, and
// server credentials that n8n's lint can see are tested by the nodes' credentialTest.

const NODES: INodeType[] = [new McpAgent(), new McpApproval(), new McpCallTool(), new McpListTools(), new McpServer()];

describe('node descriptions', () => {
	it.each(NODES.map((node) => [node.description.name, node] as const))('%s has its own light and dark icon', (name, node) => {
		expect(node.description.icon).toEqual({ light: `file:${name}.svg`, dark: `file:${name}.dark.svg` });
	});

	it.each(NODES.map((node) => [node.description.name, node] as const))('%s has a subtitle and no inline codex', (_name, node) => {
		expect(node.description.subtitle).toMatch(/^=\{\{.+\}\}$/);
		// For community packages n8n takes an inline codex over the X.node.json file.
		expect(node.description.codex).toBeUndefined();
	});

	it('decides usableAsTool for every node that is not an AI-only sub-node', () => {
		expect(new McpListTools().description.usableAsTool).toBe(true);
		expect(new McpCallTool().description.usableAsTool).toBe(true);
		// n8n's tool version of a node drops its inputs (the Agent's Tools and Memory), and both pause runs.
		for (const node of [new McpAgent(), new McpApproval()]) {
			expect(Object.keys(node.description)).toContain('usableAsTool');
			expect(node.description.usableAsTool).toBeUndefined();
		}
	});

	it('writes out the same server credentials, each tested by the connection test', () => {
		for (const node of [new McpListTools(), new McpCallTool(), new McpServer()]) {
			expect(node.description.credentials).toEqual(serverCredentials);
		}
		for (const credential of serverCredentials) expect(credential.testedBy).toBe('mcpServerConnectionTest');
	});
});

describe('credential icons', () => {
	it('gives the MCP server credentials light and dark icons and keeps the provider logos', () => {
		const server: ICredentialType[] = [new McpServerHttpApi(), new McpServerOAuth2Api()];
		for (const credential of server) expect(credential.icon).toEqual({ light: 'file:mcpServer.svg', dark: 'file:mcpServer.dark.svg' });
		expect(new McpServerStdioApi().icon).toEqual({ light: 'file:mcpServerLocal.svg', dark: 'file:mcpServerLocal.dark.svg' });
		expect(new McpAgentAnthropicApi().icon).toBe('file:anthropic.svg');
	});
});
