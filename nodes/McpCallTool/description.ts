import type { INodeProperties } from 'n8n-workflow';
import { serverConnectionProperty } from '../shared/serverConnection';
import { callToolTaskPauseAfterOption, maxTaskWaitOption, pauseLongTasksOption, runAsTaskOption } from '../shared/taskOptions';

export const callToolProperties: INodeProperties[] = [
	serverConnectionProperty,
	{
		displayName: 'Tool',
		name: 'tool',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The tool to call',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchTools', searchable: true },
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. echo',
			},
		],
	},
	{
		displayName: 'Arguments',
		name: 'argumentsMode',
		type: 'options',
		noDataExpression: true,
		default: 'fields',
		options: [
			{ name: 'Fields From the Tool Schema', value: 'fields' },
			{ name: 'Input Item', value: 'item', description: "Each input item's JSON (or one of its fields) is the arguments object; no expression runs per item, which is much faster on large inputs" },
			{ name: 'JSON', value: 'json' },
		],
	},
	{
		displayName: 'Arguments Field',
		name: 'argumentsField',
		type: 'string',
		noDataExpression: true,
		default: '',
		placeholder: 'e.g. arguments or payload.args',
		displayOptions: { show: { argumentsMode: ['item'] } },
		description: 'Dot path of the field that holds the arguments object; leave empty to use the whole item JSON',
	},
	{
		displayName: 'Tool Arguments',
		name: 'arguments',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		displayOptions: { show: { argumentsMode: ['fields'] } },
		typeOptions: {
			loadOptionsDependsOn: ['tool.value', 'connection'],
			resourceMapper: {
				resourceMapperMethod: 'getToolArgumentFields',
				mode: 'add',
				fieldWords: { singular: 'argument', plural: 'arguments' },
				addAllFields: true,
				supportAutoMap: false,
			},
		},
	},
	{
		displayName: 'Arguments (JSON)',
		name: 'argumentsJson',
		type: 'json',
		default: '{}',
		displayOptions: { show: { argumentsMode: ['json'] } },
		description: 'A JSON object with the tool\'s arguments; checked against the tool\'s input schema before the call',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Binary Property Prefix',
				name: 'binaryPropertyPrefix',
				type: 'string',
				default: 'data',
				description: 'Images, audio and files returned by the tool are stored as binary properties named like this (data, data_1, ...)',
			},
			{
				displayName: 'Concurrency',
				name: 'concurrency',
				type: 'number',
				default: 1,
				typeOptions: { minValue: 1, maxValue: 64 },
				description: 'How many items to call at the same time over the one connection; output order always follows input order',
			},
			{
				displayName: 'Extend Timeout on Progress',
				name: 'resetTimeoutOnProgress',
				type: 'boolean',
				default: true,
				description: 'Whether progress notifications from the server restart the timeout (up to ten times the timeout in total)',
			},
			maxTaskWaitOption('the node', 'the item fails'),
			{
				displayName: 'On Input Request',
				name: 'onInputRequest',
				type: 'options',
				default: 'decline',
				options: [
					{
						name: 'Decline',
						value: 'decline',
						description: 'Answer every request for input with decline, so the server can finish; the output item gets a note (notes) that input was requested and declined',
					},
					{ name: 'Fail the Item', value: 'fail', description: "Fail the item with a message naming the tool and the server's request (Continue On Fail applies)" },
				],
				description: 'What to do when the server asks for input (elicitation) during the call: nobody can answer here, use the MCP Agent with MCP Approval to let a person answer. Requests for a model completion (sampling) are always declined.',
			},
			{
				displayName: 'On Tool Error',
				name: 'isErrorHandling',
				type: 'options',
				default: 'fail',
				options: [
					{ name: 'Fail the Item', value: 'fail', description: 'Treat it like any other error (Continue On Fail applies)' },
					{
						name: 'Return as Data',
						value: 'data',
						description: 'Output the result with isError: true; a JSON-RPC error the server answers with becomes such an item too (its message as text, the error as jsonRpcError)',
					},
				],
				description:
					'What to do when the tool reports a failure: an isError result, or a JSON-RPC error the server answers the call with (a bad query, say). Timeouts, connection, authorization and argument-validation failures always fail the item.',
			},
			pauseLongTasksOption,
			runAsTaskOption('the node', 'outputs its result like any other call'),
			callToolTaskPauseAfterOption,
			{
				displayName: 'Timeout (Ms)',
				name: 'timeout',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0 },
				description: 'Per call (for a task: per request, each poll); 0 uses the request timeout of the credential',
			},
		],
	},
];
