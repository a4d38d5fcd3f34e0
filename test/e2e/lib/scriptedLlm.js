'use strict';
// A wire-compatible fake LLM for end-to-end runs (Anthropic Messages, OpenAI Chat Completions and
// Responses, and their model lists; Ollama's /api/chat, streamed as NDJSON as Ollama streams it;
// Gemini's generateContent) on 127.0.0.1. It keeps no state between requests: the plan
// comes from the user's message, and how far the run got comes from the transcript the real SDK
// sends back, exactly as a real, stateless provider API sees it.
//
// The user message is JSON: { "rounds": [[{ "tool": "echo", "args": { ... } }, ...], ...] }.
// Turn k (k = number of assistant turns so far) asks for the calls of round k, in parallel; after
// the last round the model answers with text "FINAL " + JSON of every tool result it received
// (in order, with is_error), so tests can assert what reached the model.

const http = require('node:http');

function json(res, status, body) {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		let data = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => (data += chunk));
		req.on('end', () => resolve(data ? JSON.parse(data) : {}));
		req.on('error', reject);
	});
}

function planFrom(text) {
	try {
		const plan = JSON.parse(text);
		return Array.isArray(plan.rounds) ? plan : { rounds: [] };
	} catch {
		return { rounds: [] };
	}
}

function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => part.text ?? part.content ?? '').join('');
	return '';
}

/** Provider-neutral view of a request: the plan, the round, the tool results so far. */
const views = {
	anthropic(body) {
		const messages = body.messages ?? [];
		// A person's message: a string, or text blocks (Prompt Caching marks the conversation's last block).
		const personWrote = (m) => m.role === 'user' && (typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0 && m.content.every((b) => b.type === 'text')));
		const firstUser = messages.find(personWrote);
		const results = [];
		for (const m of messages) {
			if (m.role !== 'user' || !Array.isArray(m.content)) continue;
			for (const block of m.content) if (block.type === 'tool_result') results.push({ id: block.tool_use_id, isError: block.is_error === true, text: textOf(block.content) });
		}
		return { plan: planFrom(firstUser ? textOf(firstUser.content) : ''), round: messages.filter((m) => m.role === 'assistant').length, results, toolNames: (body.tools ?? []).map((t) => t.name) };
	},
	chat(body) {
		const messages = body.messages ?? [];
		const firstUser = messages.find((m) => m.role === 'user' && typeof m.content === 'string');
		const results = messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, isError: /^Error:/.test(textOf(m.content)), text: textOf(m.content) }));
		return { plan: planFrom(firstUser ? firstUser.content : ''), round: messages.filter((m) => m.role === 'assistant').length, results, toolNames: (body.tools ?? []).map((t) => t.function.name) };
	},
	responses(body) {
		const input = Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input }];
		const firstUser = input.find((m) => m.role === 'user');
		const results = input.filter((i) => i.type === 'function_call_output').map((i) => ({ id: i.call_id, isError: /^Error:/.test(textOf(i.output)), text: textOf(i.output) }));
		const calls = new Set(input.filter((i) => i.type === 'function_call').map((i) => i.call_id));
		// Each tool round adds function_call items; the round is how many distinct call batches exist.
		const round = input.filter((i, index) => i.type === 'function_call' && (index === 0 || input[index - 1].type !== 'function_call')).length;
		return { plan: planFrom(firstUser ? textOf(firstUser.content) : ''), round: calls.size === 0 ? 0 : round, results, toolNames: (body.tools ?? []).map((t) => t.name) };
	},
	// Gemini's generateContent: contents of parts; tool results are functionResponse parts, in whatever role the client puts them.
	gemini(body) {
		const contents = body.contents ?? [];
		const firstUser = contents.find((c) => c.role === 'user' && (c.parts ?? []).some((p) => typeof p.text === 'string'));
		const results = [];
		for (const c of contents) {
			for (const part of c.parts ?? []) {
				if (!part.functionResponse) continue;
				const response = part.functionResponse.response;
				const text = typeof response === 'string' ? response : JSON.stringify(response);
				results.push({ id: part.functionResponse.id ?? part.functionResponse.name, isError: /Error:/.test(text), text });
			}
		}
		const toolNames = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));
		return { plan: planFrom(firstUser ? firstUser.parts.map((p) => p.text ?? '').join('') : ''), round: contents.filter((c) => c.role === 'model').length, results, toolNames };
	},
};

/**
 * A planned tool name of "$found" is the first tool the latest search result lists ("- name: ..."
 * lines, lib/agent/toolLoading.ts), so a plan can call what a search found without naming it.
 */
function toolName(planned, view) {
	if (planned !== '$found') return planned;
	const last = view.results.at(-1);
	return (last && /^- ([^\s:(]+)/m.exec(last.text)?.[1]) ?? '$nothing-found';
}

function decide(view) {
	const calls = view.plan.rounds[view.round];
	if (calls && calls.length) {
		return { calls: calls.map((c, i) => ({ id: `call_${view.round}_${i}`, name: toolName(c.tool, view), args: c.args ?? {} })) };
	}
	return { text: `FINAL ${JSON.stringify(view.results)}` };
}

const usage = { input_tokens: 11, output_tokens: 7 };

function anthropicReply(decision, body) {
	const content = decision.calls
		? decision.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args }))
		: [{ type: 'text', text: decision.text }];
	return { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content, stop_reason: decision.calls ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { ...usage, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } };
}

function chatReply(decision, body) {
	const message = decision.calls
		? { role: 'assistant', content: null, tool_calls: decision.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) }
		: { role: 'assistant', content: decision.text };
	return { id: 'chatcmpl_fake', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message, finish_reason: decision.calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } };
}

function responsesReply(decision, body) {
	const output = decision.calls
		? decision.calls.map((c) => ({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' }))
		: [{ type: 'message', id: 'msg_fake', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: decision.text, annotations: [] }] }];
	return { id: 'resp_fake', object: 'response', created_at: 0, model: body.model, status: 'completed', output, usage: { input_tokens: 11, output_tokens: 7, total_tokens: 18 } };
}

/** Ollama's /api/chat answer, streamed as NDJSON lines (the client asks with stream: true): the message, then the final counts. */
function ollamaReply(decision, body, res) {
	const created_at = new Date(0).toISOString();
	const message = decision.calls
		? { role: 'assistant', content: '', tool_calls: decision.calls.map((c) => ({ function: { name: c.name, arguments: c.args } })) }
		: { role: 'assistant', content: decision.text };
	const lines = [
		{ model: body.model, created_at, message, done: false },
		{ model: body.model, created_at, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 11, eval_count: 7 },
	];
	if (body.stream === false) return json(res, 200, { ...lines[1], message });
	res.writeHead(200, { 'content-type': 'application/x-ndjson' });
	res.end(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
}

function geminiReply(decision) {
	const parts = decision.calls ? decision.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) : [{ text: decision.text }];
	return { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 } };
}

async function startScriptedLlm({ port = 0 } = {}) {
	const requests = [];
	const server = http.createServer(async (req, res) => {
		try {
			const url = req.url.split('?')[0];
			if (req.method === 'GET' && /\/models$/.test(url)) {
				return json(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', type: 'model', display_name: 'Fake Model', created_at: '2026-01-01T00:00:00Z', created: 0, owned_by: 'test' }], has_more: false, first_id: 'fake-model', last_id: 'fake-model' });
			}
			const body = await readBody(req);
			requests.push({ url, body, headers: req.headers });
			if (url.endsWith('/v1/messages')) return json(res, 200, anthropicReply(decide(views.anthropic(body)), body));
			if (url.endsWith('/chat/completions')) return json(res, 200, chatReply(decide(views.chat(body)), body));
			if (url.endsWith('/responses')) return json(res, 200, responsesReply(decide(views.responses(body)), body));
			// Ollama's own API: messages and tools in the OpenAI chat shape.
			if (url === '/api/chat') return ollamaReply(decide(views.chat(body)), body, res);
			if (url.endsWith(':generateContent')) return json(res, 200, geminiReply(decide(views.gemini(body))));
			json(res, 404, { error: { message: `no route ${url}` } });
		} catch (error) {
			json(res, 500, { error: { message: String(error && error.message) } });
		}
	});
	await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
	const actualPort = server.address().port;
	return {
		port: actualPort,
		anthropicBaseUrl: `http://127.0.0.1:${actualPort}`,
		openAiBaseUrl: `http://127.0.0.1:${actualPort}/v1`,
		// Ollama's and Gemini's clients add their own paths (/api/chat, /v1beta/models/...).
		hostUrl: `http://127.0.0.1:${actualPort}`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

module.exports = { startScriptedLlm };
