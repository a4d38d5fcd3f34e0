'use strict';
// Issue 30: the MCP Agent driving n8n's own OpenAI Chat Model node (a LangChain ChatOpenAI with
// n8n's openAiApi credential) connected to its Chat Model input, against the scripted,
// wire-compatible fake LLM: a tool call on a real MCP server, then the answer.

const assert = require('node:assert/strict');
const { latestFinishedExecution } = require('../lib/executions');

module.exports = function chatModelCases(e2e, ctx, { plan, call, finalResults }) {
	e2e("Chat Model input: n8n's OpenAI Chat Model node drives the Agent through a tool call to the answer", async () => {
		const before = ctx.llm.requests.length;
		const { status, body } = await ctx.n8n.trigger('agent-chatmodel', { plan: plan([call('echo', { message: 'via a chat model node' })]) });
		assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
		const out = Array.isArray(body) ? body[0] : body;
		assert.equal(out.status, 'completed', JSON.stringify(out).slice(0, 800));
		assert.equal(out.provider, 'chatModel');
		// The model the sub-node names, not the Agent's (hidden) Model parameter.
		assert.equal(out.model, 'fake-model');
		assert.equal(out.iterations, 2);
		const results = finalResults(out);
		assert.equal(results.length, 1);
		assert.match(results[0].text, /Echo: via a chat model node/);
		assert.deepEqual(out.toolCalls.map((c) => [c.server, c.tool, c.isError]), [['Everything', 'echo', false]]);
		// Token usage as the built-in adapters report it: the fake's 11 + 7 per request, from LangChain's usage_metadata.
		assert.deepEqual(out.usage, { inputTokens: 22, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0 });

		// The requests went out as LangChain's ChatOpenAI sends them: Chat Completions, the tools bound.
		const sent = ctx.llm.requests.slice(before);
		assert.deepEqual(sent.map((r) => r.url), ['/v1/chat/completions', '/v1/chat/completions']);
		assert.ok(sent[0].body.tools.some((t) => t.function.name === 'echo'), JSON.stringify(sent[0].body.tools.map((t) => t.function.name)));
		assert.equal(sent[0].body.model, 'fake-model');
		assert.deepEqual(sent[1].body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);

		// The sub-node's runs carry each request and answer (n8n's own tracing on the chat model), as under n8n's AI Agent.
		const execution = await latestFinishedExecution(ctx.n8n, ctx.ids.chatmodel);
		assert.equal(execution.status, 'success', JSON.stringify(execution));
		assert.equal(execution.runs['OpenAI Chat Model'], 2, JSON.stringify(execution.runs));
	});
};
