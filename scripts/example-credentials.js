#!/usr/bin/env node
'use strict';
// Prints, as an `n8n import:credentials` file, the credentials the workflows in examples/ use:
// server-everything (the MCP reference test server, a devDependency) as a local stdio command.
// Users without the repo's node_modules can use command `npx`, args `-y @modelcontextprotocol/server-everything`.

const path = require('node:path');

const repo = path.resolve(__dirname, '..');
const entry = path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const credentials = [
	{
		id: 'exampleEverythingStdio',
		name: 'Everything server (stdio)',
		type: 'mcpServerStdioApi',
		data: {
			command: 'node',
			args: JSON.stringify([entry, 'stdio']),
			environment: '',
			secretEnvironment: '',
			cwd: '',
		},
	},
	{
		id: 'exampleAnthropicKey1',
		name: 'Anthropic (put your API key here)',
		type: 'mcpAgentAnthropicApi',
		data: { apiKey: 'replace-with-your-anthropic-api-key', baseUrl: 'https://api.anthropic.com' },
	},
];

process.stdout.write(`${JSON.stringify(credentials, null, 2)}\n`);
