'use strict';
// Issue 30: the MCP Agent driving n8n's own OpenAI Chat Model node (a LangChain ChatOpenAI with
// n8n's openAiApi credential) connected to its Chat Model input, against the scripted,
// wire-compatible fake LLM: a tool call on a real MCP server, then the answer; the same with n8n's
// Anthropic, Ollama (Ollama's own API) and Google Gemini Chat Model nodes, each on its own wire
// protocol, and with n8n's anthropicApi credential on the built-in provider; and a
// call paused for review across an n8n restart, resumed with the sub-node's model after it.

const assert = require('node:assert/strict');
const { latestFinishedExecution } = require('../lib/executions');

module.exports = function chatModelCases(e2e, ctx, { plan, call, finalResults, reviewPage, decide, assertRecorded, counterLabels }) {
	/** What each provider's requests look like on the fake: the path, the tool names, the message roles of the second request. */
	const WIRE = {
		openai: { url: '/v1/chat/completions', toolNames: (body) => body.tools.map((t) => t.function.name), roles: ['system', 'user', 'assistant', 'tool'] },
		anthropic: { url: '/v1/messages', toolNames: (body) => body.tools.map((t) => t.name), roles: ['user', 'assistant', 'user'] },
		ollama: { url: '/api/chat', toolNames: (body) => body.tools.map((t) => t.function.name), roles: ['system', 'user', 'assistant', 'tool'] },
		gemini: {
			url: '/v1beta/models/fake-model:generateContent',
			modelInUrl: true,
			toolNames: (body) => body.tools.flatMap((t) => t.functionDeclarations.map((d) => d.name)),
			// Gemini has no system or tool roles: the result goes back as a functionResponse part.
			check: (body) => assert.ok(body.contents.some((c) => c.parts.some((p) => p.functionResponse && p.functionResponse.name === 'echo')), JSON.stringify(body.contents)),
		},
	};

	/** One run: a tool call on server-everything, then the answer; returns the Agent's output and the requests the fake got. */
	async function toolCallRun(path, wire, message) {
		const before = ctx.llm.requests.length;
		const { status, body } = await ctx.n8n.trigger(path, { plan: plan([call('echo', { message })]) });
		assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
		const out = Array.isArray(body) ? body[0] : body;
		assert.equal(out.status, 'completed', JSON.stringify(out).slice(0, 800));
		assert.equal(out.model, 'fake-model');
		assert.equal(out.iterations, 2);
		const results = finalResults(out);
		assert.equal(results.length, 1);
		assert.match(results[0].text, new RegExp(`Echo: ${message}`));
		assert.deepEqual(out.toolCalls.map((c) => [c.server, c.tool, c.isError]), [['Everything', 'echo', false]]);
		// Token usage as every adapter reports it: the fake's 11 + 7 per request.
		assert.deepEqual(out.usage, { inputTokens: 22, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0 });
		const sent = ctx.llm.requests.slice(before);
		assert.deepEqual(sent.map((r) => r.url), [wire.url, wire.url]);
		assert.ok(wire.toolNames(sent[0].body).includes('echo'), JSON.stringify(wire.toolNames(sent[0].body)));
		// Gemini names the model in the URL, the others in the body.
		if (!wire.modelInUrl) assert.equal(sent[0].body.model, 'fake-model');
		if (wire.roles) assert.deepEqual(sent[1].body.messages.map((m) => m.role), wire.roles);
		if (wire.check) wire.check(sent[1].body);
		return { out, sent };
	}

	for (const [model, node, path] of [
		['openai', 'OpenAI Chat Model', 'agent-chatmodel'],
		['anthropic', 'Anthropic Chat Model', 'agent-chatmodelanthropic'],
		['ollama', 'Ollama Chat Model', 'agent-chatmodelollama'],
		['gemini', 'Google Gemini Chat Model', 'agent-chatmodelgemini'],
	]) {
		e2e(`Chat Model input: n8n's ${node} node drives the Agent through a tool call to the answer`, async () => {
			const { out } = await toolCallRun(path, WIRE[model], `via ${model}`);
			assert.equal(out.provider, 'chatModel');
			// The sub-node's runs carry each request and answer (n8n's own tracing on the chat model), as under n8n's AI Agent.
			const execution = await latestFinishedExecution(ctx.n8n, ctx.ids[path.replace('agent-', '')]);
			assert.equal(execution.status, 'success', JSON.stringify(execution));
			assert.equal(execution.runs[node], 2, JSON.stringify(execution.runs));
		});
	}

	e2e("n8n's own anthropicApi credential drives the built-in Anthropic provider, its custom header sent", async () => {
		const { out, sent } = await toolCallRun('agent-n8ncredential', WIRE.anthropic, 'via a predefined credential');
		assert.equal(out.provider, 'anthropic');
		for (const request of sent) {
			assert.match(`${request.headers['x-api-key'] ?? ''} ${request.headers.authorization ?? ''}`, /sk-ant-n8n-e2e-fake/);
			assert.equal(request.headers['x-e2e-gateway'], 'gw-e2e-value');
		}
	});

	e2e('Chat Model input: a call paused for review survives an n8n restart; approved, it runs once and the answer comes from the sub-node', async () => {
		const label = 'chatmodel-restart-1';
		await ctx.n8n.trigger('agent-reviewchatmodel', { plan: plan([call('record', { label })]) });
		const pending = await ctx.inbox.next('pending', 'reviewchatmodel');
		assert.deepEqual(pending.calls.map((c) => [c.server, c.tool]), [['Counter', 'record']]);
		assert.deepEqual(counterLabels().filter((l) => l === label), []);
		await reviewPage(pending.reviewUrl);
		// The paused run (its conversation in neutral JSON) waits in n8n's database; the model object is gone with the process.
		await ctx.n8n.stop();
		await ctx.n8n.start();
		await reviewPage(pending.reviewUrl);
		assertRecorded(await decide(pending, { record: 'approve' }));
		const done = await ctx.inbox.next('done', 'reviewchatmodel');
		assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 800));
		assert.equal(done.provider, 'chatModel');
		assert.deepEqual(counterLabels().filter((l) => l === label), [label]);
		assert.match(finalResults(done)[0].text, new RegExp(`recorded ${label}`));
		assert.equal(done.toolCalls[0].review.decision, 'approved');
		assert.deepEqual(done.usage, { inputTokens: 22, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0 });
	}, 400000);
};
