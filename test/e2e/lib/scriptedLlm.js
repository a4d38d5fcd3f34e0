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
//
// The providers' own tool search (Anthropic's tool_search_tool_bm25, Responses' hosted tool_search)
// is emulated when a request carries the search tool: a planned call of it (by the search tool's
// name, { query }) is answered on the "server side" with the provider's blocks (server_tool_use and
// tool_search_tool_result; tool_search_call and tool_search_output), the best deferred tool by
// word overlap with the query found, and the next round's calls follow in the same answer, as a
// real model continues after a server-side search. A call of a deferred tool no search of the
// conversation has found is refused with a 400, as the real APIs refuse it.

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
		const assistants = messages.filter((m) => m.role === 'assistant');
		// A server-side search and the round after it share one answer: each answer with a search used two rounds of the plan.
		const searched = assistants.filter((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'server_tool_use')).length;
		const found = [];
		for (const m of assistants) for (const block of Array.isArray(m.content) ? m.content : []) if (block.type === 'tool_search_tool_result') found.push(...(block.content?.tool_references ?? []).map((r) => r.tool_name));
		const called = assistants.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use').map((b) => b.name) : []));
		const tools = body.tools ?? [];
		const search = tools.find((t) => /^tool_search_tool_(bm25|regex)/.test(String(t.type))) ? 'tool_search_tool_bm25' : undefined;
		return {
			plan: planFrom(firstUser ? textOf(firstUser.content) : ''),
			round: assistants.length + searched,
			results,
			toolNames: tools.map((t) => t.name),
			nativeSearch: search && { tool: search, deferred: tools.filter((t) => t.defer_loading === true).map((t) => ({ name: t.name, description: t.description ?? '' })), found, called },
		};
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
		// A hosted search and the round after it share one answer: each search used a round of the plan.
		const searched = input.filter((i) => i.type === 'tool_search_call').length;
		const found = input.filter((i) => i.type === 'tool_search_output').flatMap((i) => (i.tools ?? []).map((t) => t.name));
		const tools = body.tools ?? [];
		const search = tools.some((t) => t.type === 'tool_search') ? 'tool_search' : undefined;
		return {
			plan: planFrom(firstUser ? textOf(firstUser.content) : ''),
			round: (calls.size === 0 ? 0 : round) + searched,
			results,
			toolNames: tools.map((t) => t.name ?? t.type),
			nativeSearch: search && { tool: search, deferred: tools.filter((t) => t.defer_loading === true).map((t) => ({ name: t.name, description: t.description ?? '', definition: t })), found, called: input.filter((i) => i.type === 'function_call').map((i) => i.name) },
		};
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
 * lines, lib/agent/toolLoading.ts), or the tool the provider's latest search found, so a plan can
 * call what a search found without naming it.
 */
function toolName(planned, view) {
	if (planned !== '$found') return planned;
	if (view.nativeSearch?.found.length) return view.nativeSearch.found.at(-1);
	const last = view.results.at(-1);
	return (last && /^- ([^\s:(]+)/m.exec(last.text)?.[1]) ?? '$nothing-found';
}

const words = (text) => new Set(String(text).toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 1));

/** The provider's search, emulated: the deferred tool sent whose name and description share the most words with the query. */
function bestDeferred(query, deferred) {
	const wanted = words(query);
	let best;
	let bestScore = 0;
	for (const tool of deferred) {
		const score = [...words(`${tool.name} ${tool.description}`)].filter((word) => wanted.has(word)).length;
		if (score > bestScore) [best, bestScore] = [tool, score];
	}
	return best;
}

function decide(view) {
	let round = view.round;
	let calls = view.plan.rounds[round];
	const native = view.nativeSearch;
	let search;
	if (native && calls && calls.length === 1 && calls[0].tool === native.tool) {
		const query = String(calls[0].args?.query ?? '');
		const tool = bestDeferred(query, native.deferred);
		search = { id: `srvtoolu_${round}`, query, tool };
		if (tool) native.found.push(tool.name);
		round += 1;
		calls = view.plan.rounds[round];
	}
	const planned = calls && calls.length ? calls.map((c, i) => ({ id: `call_${round}_${i}`, name: toolName(c.tool, view), args: c.args ?? {} })) : undefined;
	// The real APIs never let the model call a deferred tool it has not found: this fake refuses the request that would.
	const unfound = native && planned?.find((c) => native.deferred.some((t) => t.name === c.name) && !native.found.includes(c.name));
	if (unfound) return { refused: `Tool '${unfound.name}' is deferred and was not loaded by a tool search in this conversation` };
	return { ...(search ? { search } : {}), ...(planned ? { calls: planned } : { text: `FINAL ${JSON.stringify(view.results)}` }) };
}

/** A request whose transcript calls a deferred tool before any search found it (a dropped search block): refused as the real APIs refuse it. */
function inconsistentTranscript(view) {
	const native = view.nativeSearch;
	if (!native) return undefined;
	const bad = native.called.find((name) => native.deferred.some((t) => t.name === name) && !native.found.includes(name));
	return bad && `Tool '${bad}' is called in the conversation but was never loaded by a tool search (the search blocks must be sent back)`;
}

const usage = { input_tokens: 11, output_tokens: 7 };

function anthropicReply(decision, body) {
	const search = decision.search
		? [
				{ type: 'server_tool_use', id: decision.search.id, name: 'tool_search_tool_bm25', input: { query: decision.search.query }, caller: { type: 'direct' } },
				{ type: 'tool_search_tool_result', tool_use_id: decision.search.id, content: { type: 'tool_search_tool_search_result', tool_references: decision.search.tool ? [{ type: 'tool_reference', tool_name: decision.search.tool.name }] : [] } },
			]
		: [];
	const content = [
		...search,
		...(decision.calls ? decision.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })) : [{ type: 'text', text: decision.text }]),
	];
	return { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content, stop_reason: decision.calls ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { ...usage, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } };
}

function chatReply(decision, body) {
	const message = decision.calls
		? { role: 'assistant', content: null, tool_calls: decision.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) }
		: { role: 'assistant', content: decision.text };
	return { id: 'chatcmpl_fake', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message, finish_reason: decision.calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } };
}

function responsesReply(decision, body) {
	const loaded = decision.search?.tool ? [(({ defer_loading: _deferred, ...definition }) => definition)(decision.search.tool.definition)] : [];
	const search = decision.search
		? [
				{ type: 'tool_search_call', id: `tsc_${decision.search.id}`, call_id: null, execution: 'server', status: 'completed', arguments: { query: decision.search.query } },
				{ type: 'tool_search_output', id: `tso_${decision.search.id}`, call_id: null, execution: 'server', status: 'completed', tools: loaded },
			]
		: [];
	const output = [
		...search,
		...(decision.calls
			? decision.calls.map((c) => ({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' }))
			: [{ type: 'message', id: 'msg_fake', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: decision.text, annotations: [] }] }]),
	];
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

/** The answer to a request of an API with its own tool search, or the 400 a real API gives a request it refuses. */
function nativeAware(res, view, reply, api) {
	const problem = inconsistentTranscript(view);
	const decision = problem ? { refused: problem } : decide(view);
	if (decision.refused) {
		const error = api === 'anthropic' ? { type: 'error', error: { type: 'invalid_request_error', message: decision.refused } } : { error: { message: decision.refused, type: 'invalid_request_error', param: 'tools', code: null } };
		return json(res, 400, error);
	}
	return json(res, 200, reply(decision));
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
			if (url.endsWith('/v1/messages')) return nativeAware(res, views.anthropic(body), (decision) => anthropicReply(decision, body), 'anthropic');
			if (url.endsWith('/chat/completions')) return json(res, 200, chatReply(decide(views.chat(body)), body));
			if (url.endsWith('/responses')) return nativeAware(res, views.responses(body), (decision) => responsesReply(decision, body), 'responses');
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
