'use strict';
// The Agent over three real MCP servers with the scripted fake LLM: a webhook-triggered run
// (Anthropic Messages, and OpenAI Responses) and a scheduled-style run (Manual Trigger executed
// from the CLI, OpenAI Chat Completions).

const assert = require('node:assert/strict');
const path = require('node:path');
const { parseExecuteOutput } = require('../lib/environment');
const { freePorts } = require('../lib/net');

module.exports = function agentCases(e2e, ctx, { plan, call, finalResults, MANUAL_PLAN }) {
	function assertAgentOutput(out, { iterations, servers }) {
		assert.equal(out.status, 'completed', JSON.stringify(out).slice(0, 800));
		assert.equal(out.stopReason, 'end_turn');
		assert.equal(out.iterations, iterations);
		assert.deepEqual(Object.keys(out.usage).sort(), ['cacheReadTokens', 'cacheWriteTokens', 'inputTokens', 'outputTokens']);
		assert.equal(out.usage.inputTokens, 11 * iterations);
		assert.equal(out.usage.outputTokens, 7 * iterations);
		assert.deepEqual(out.toolCalls.map((c) => c.server), servers);
		for (const entry of out.toolCalls) {
			assert.equal(typeof entry.durationMs, 'number');
			assert.equal(typeof entry.resultSummary, 'string');
			assert.equal(entry.isError, false, JSON.stringify(entry));
		}
		assert.ok(Array.isArray(out.transcript) && out.transcript.length >= 2 * iterations);
	}

	for (const [name, label] of [['three', 'Anthropic Messages'], ['threeresponses', 'OpenAI Responses']]) {
		e2e(`webhook-triggered agent run over three MCP servers (${label})`, async () => {
			const note = path.join(ctx.filesDir, `${name}.txt`);
			const rounds = plan(
				[call('Everything__echo', { message: 'from stdio' }), call('EverythingHttp__echo', { message: 'from http' }), call('write_file', { path: note, content: `hello ${name}` })],
				[call('read_text_file', { path: note })],
			);
			const { status, body } = await ctx.n8n.trigger(`agent-${name}`, { plan: rounds });
			assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
			const out = Array.isArray(body) ? body[0] : body;
			assertAgentOutput(out, { iterations: 3, servers: ['Everything', 'EverythingHttp', 'Files', 'Files'] });
			const results = finalResults(out);
			assert.equal(results.length, 4);
			assert.match(results[0].text, /Echo: from stdio/);
			assert.match(results[1].text, /Echo: from http/);
			assert.match(results[3].text, new RegExp(`hello ${name}`));
			assert.deepEqual(out.toolCalls.map((c) => c.tool), ['echo', 'echo', 'write_file', 'read_text_file']);
		});
	}

	e2e('a task-only tool runs as an MCP task, over stdio and HTTP (server-everything simulate-research-query, issue 29)', async () => {
		const rounds = plan([call('Everything__simulate-research-query', { topic: 'e2e tide pools' }), call('EverythingHttp__simulate-research-query', { topic: 'e2e coral reefs' })]);
		const { status, body } = await ctx.n8n.trigger('agent-three', { plan: rounds });
		assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
		const out = Array.isArray(body) ? body[0] : body;
		assert.equal(out.status, 'completed', JSON.stringify(out).slice(0, 800));
		assert.deepEqual(
			out.toolCalls.map((c) => [c.server, c.tool, c.isError, c.task && c.task.status, typeof (c.task && c.task.taskId)]),
			[
				['Everything', 'simulate-research-query', false, 'completed', 'string'],
				['EverythingHttp', 'simulate-research-query', false, 'completed', 'string'],
			],
		);
		const results = finalResults(out);
		assert.match(results[0].text, /tide pools/i);
		assert.match(results[1].text, /coral reefs/i);
	});

	e2e('scheduled-style run (Manual Trigger from the CLI) with OpenAI Chat Completions', async () => {
		const run = parseExecuteOutput(ctx.manualOutput);
		const runs = run.data.resultData.runData['MCP Agent'];
		assert.equal(runs[0].error, undefined, JSON.stringify(runs[0].error));
		const out = runs[0].data.main[0][0].json;
		assertAgentOutput(out, { iterations: 2, servers: ['Everything', 'Files'] });
		assert.equal(out.provider, 'openaiChat');
		const results = finalResults(out);
		assert.match(results[0].text, /Echo: scheduled/);
		assert.ok(MANUAL_PLAN().includes('list_directory'));
	});
};

module.exports.credentialTests = function credentialTestCases(e2e, ctx, { credentials, ownerSession }) {
	e2e('credential Test buttons work in n8n: provider keys and real MCP handshakes', async () => {
		const { cookie, headers } = await ownerSession();
		const test = async (credential) => {
			const response = await fetch(`${ctx.n8n.baseUrl}/rest/credentials/test`, { method: 'POST', headers: { ...headers, cookie }, body: JSON.stringify({ credentials: credential }) });
			const text = await response.text();
			assert.equal(response.status, 200, text);
			return JSON.parse(text).data ?? JSON.parse(text);
		};
		const all = credentials();
		const byType = (type) => all.find((c) => c.type === type);
		assert.deepEqual(await test(byType('mcpAgentAnthropicApi')), { status: 'OK', message: 'Connection successful!' });
		assert.deepEqual(await test(byType('mcpAgentOpenAiApi')), { status: 'OK', message: 'Connection successful!' });
		const stdio = await test(byType('mcpServerStdioApi'));
		assert.equal(stdio.status, 'OK', JSON.stringify(stdio));
		assert.match(stdio.message, /^Connected to counter-server 1\.0\.0, protocol [\d-]+: 4 tools\.$/);
		const http = all.find((c) => c.type === 'mcpServerHttpApi');
		assert.match((await test(http)).message, /^Connected to .*: \d+ tools\.$/);
		const [closedPort] = await freePorts(1);
		const dead = await test({ ...http, data: { ...http.data, url: `http://127.0.0.1:${closedPort}/mcp`, connectTimeout: 3000 } });
		assert.equal(dead.status, 'Error');
		assert.match(dead.message, new RegExp(`Connection refused by http://127\\.0\\.0\\.1:${closedPort}/mcp`));
	});
};
