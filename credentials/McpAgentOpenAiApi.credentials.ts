import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

export class McpAgentOpenAiApi implements ICredentialType {
	name = 'mcpAgentOpenAiApi';

	displayName = 'MCP Agent: OpenAI API';

	documentationUrl = 'https://platform.openai.com/docs/api-reference/authentication';

	icon = 'file:openai.svg' as const;

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Leave empty only for an OpenAI-compatible server that needs no key (e.g. a local Ollama)',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.openai.com/v1',
			description: 'For OpenAI-compatible servers, e.g. http://localhost:11434/v1 (Ollama) or a vLLM / LiteLLM URL ending in /v1',
		},
		{
			displayName: 'Organization ID',
			name: 'organization',
			type: 'string',
			default: '',
		},
		{
			displayName: 'Project ID',
			name: 'project',
			type: 'string',
			default: '',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{ $credentials.apiKey ? "Bearer " + $credentials.apiKey : undefined }}',
				'OpenAI-Organization': '={{ $credentials.organization || undefined }}',
				'OpenAI-Project': '={{ $credentials.project || undefined }}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ ($credentials.baseUrl || "https://api.openai.com/v1").replace(/\\/+$/, "") }}',
			url: '/models',
			method: 'GET',
		},
	};
}
