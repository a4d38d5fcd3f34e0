import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

export class McpAgentAnthropicApi implements ICredentialType {
	name = 'mcpAgentAnthropicApi';

	displayName = 'MCP Agent: Anthropic API';

	documentationUrl = 'https://docs.anthropic.com/en/api/getting-started';

	icon = 'file:anthropic.svg' as const;

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.anthropic.com',
			description: 'Change only for a proxy or gateway that speaks the Anthropic Messages API (without /v1)',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'x-api-key': '={{$credentials.apiKey}}',
				'anthropic-version': '2023-06-01',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ ($credentials.baseUrl || "https://api.anthropic.com").replace(/\\/+$/, "") }}',
			url: '/v1/models',
			method: 'GET',
		},
	};
}
