import type { INodeProperties } from 'n8n-workflow';
import { serverConnectionProperty } from '../shared/serverConnection';

const show = (...operation: string[]) => ({ show: { operation } });

export const listToolsProperties: INodeProperties[] = [
	serverConnectionProperty,
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		default: 'listTools',
		options: [
			{ name: 'Get Prompt', value: 'getPrompt', action: 'Get a prompt', description: 'Render one prompt with arguments (prompts/get)' },
			{ name: 'List Prompts', value: 'listPrompts', action: 'List prompts', description: 'All prompts of the server (prompts/list)' },
			{ name: 'List Resource Templates', value: 'listResourceTemplates', action: 'List resource templates', description: 'All resource templates (resources/templates/list)' },
			{ name: 'List Resources', value: 'listResources', action: 'List resources', description: 'All resources of the server (resources/list)' },
			{ name: 'List Tools', value: 'listTools', action: 'List tools', description: 'All tools of the server (tools/list) with fingerprints and warnings, and its instructions as a "(server instructions)" entry' },
			{ name: 'Read Resource', value: 'readResource', action: 'Read a resource', description: 'Read one resource by URI (resources/read)' },
		],
	},
	{
		displayName: 'Output',
		name: 'outputMode',
		type: 'options',
		default: 'perTool',
		displayOptions: show('listTools', 'listResources', 'listResourceTemplates', 'listPrompts'),
		options: [
			{ name: 'One Item per Entry', value: 'perTool' },
			{ name: 'One Item With All Entries', value: 'single' },
		],
	},
	{
		displayName: 'Include',
		name: 'include',
		type: 'string',
		default: '',
		placeholder: 'e.g. get_*, search',
		displayOptions: show('listTools', 'listResources', 'listPrompts'),
		description: 'Only names matching one of these glob patterns (comma-separated; * and ? wildcards; case-sensitive). Empty means all.',
	},
	{
		displayName: 'Exclude',
		name: 'exclude',
		type: 'string',
		default: '',
		placeholder: 'e.g. delete_*',
		displayOptions: show('listTools', 'listResources', 'listPrompts'),
		description: 'Leave out names matching one of these glob patterns (comma-separated)',
	},
	{
		displayName: 'Resource URI',
		name: 'uri',
		type: 'string',
		default: '',
		required: true,
		displayOptions: show('readResource'),
		placeholder: 'e.g. file:///data/report.txt',
	},
	{
		displayName: 'Prompt Name',
		name: 'promptName',
		type: 'string',
		default: '',
		required: true,
		displayOptions: show('getPrompt'),
	},
	{
		displayName: 'Prompt Arguments (JSON)',
		name: 'promptArguments',
		type: 'json',
		default: '{}',
		displayOptions: show('getPrompt'),
		description: 'An object of string values, as the prompt\'s arguments',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show('listTools', 'readResource'),
		options: [
			{
				displayName: 'Include Provider Formats',
				name: 'providerFormats',
				type: 'boolean',
				default: false,
				description: 'Whether to add each tool converted to the Anthropic, OpenAI Chat Completions and OpenAI Responses tool formats',
			},
			{
				displayName: 'Binary Property Prefix',
				name: 'binaryPropertyPrefix',
				type: 'string',
				default: 'data',
				description: 'Binary resource contents are stored under this name (data, data_1, ...)',
			},
		],
	},
];
