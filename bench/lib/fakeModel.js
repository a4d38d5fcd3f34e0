'use strict';
// A zero-latency fake model, wire-compatible with Anthropic Messages and OpenAI Chat Completions.
// Stateless like the real APIs: the turn number comes from the length of the conversation sent,
// the plan from the model name ("bench:echo*100" = call echo in 100 turns, then answer;
// "bench:fetch_page*5,delete_record*1" = five fetch_page turns, one delete_record turn, answer).
// The same functions answer in-process (called directly, or through fakeFetch for the SDK clients)
// and over loopback HTTP, so both sides of a comparison always talk to the same fake.

const http = require('node:http');

const planCache = new Map();

function planOf(model) {
	let plan = planCache.get(model);
	if (!plan) {
		plan = [];
		for (const part of String(model).replace(/^bench:/, '').split(',')) {
			const [tool, count] = part.split('*');
			for (let i = 0; i < Number(count); i++) plan.push(tool);
		}
		planCache.set(model, plan);
	}
	return plan;
}

function argsFor(tool, turn) {
	tool = tool.replace(/^.*_(?=echo$|fetch_page$|delete_record$)/, '');
	if (tool === 'echo') return { message: `turn ${turn}` };
	if (tool === 'fetch_page') return { url: `https://example.com/page/${turn}` };
	if (tool === 'delete_record') return { id: `rec-${turn}` };
	return {};
}

/**
 * The offered tool a plan step means: its own name, or else the one offered name ending in
 * "_<name>" (n8n's MCP Client Tool prefixes each tool with its node's name, e.g.
 * "MCP_Client_Tool_echo"), as a real model picks from the tools it was given.
 */
function offeredName(tool, offered) {
	if (!tool || offered.length === 0 || offered.includes(tool)) return tool;
	const prefixed = offered.filter((name) => name.endsWith(`_${tool}`));
	return prefixed.length === 1 ? prefixed[0] : tool;
}

/** Conversations alternate user / assistant (one tool result message per turn), so length gives the turn. */
function turnOf(messages) {
	const offset = messages.length > 0 && messages[0].role === 'system' ? 1 : 0;
	return (messages.length - 1 - offset) / 2;
}

function anthropic(body) {
	const turn = turnOf(body.messages);
	const tool = offeredName(planOf(body.model)[turn], (body.tools ?? []).map((t) => t.name));
	const usage = { input_tokens: 100 + turn, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
	if (tool) {
		return {
			id: `msg_${turn}`,
			type: 'message',
			role: 'assistant',
			model: body.model,
			content: [{ type: 'tool_use', id: `toolu_${turn}`, name: tool, input: argsFor(tool, turn) }],
			stop_reason: 'tool_use',
			stop_sequence: null,
			usage,
		};
	}
	return { id: `msg_${turn}`, type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: `done after ${turn} turns` }], stop_reason: 'end_turn', stop_sequence: null, usage };
}

function openaiChat(body) {
	const turn = turnOf(body.messages);
	const tool = offeredName(planOf(body.model)[turn], (body.tools ?? []).map((t) => t.function?.name));
	const usage = { prompt_tokens: 100 + turn, completion_tokens: 10, total_tokens: 110 + turn };
	const message = tool
		? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: tool, arguments: JSON.stringify(argsFor(tool, turn)) } }] }
		: { role: 'assistant', content: `done after ${turn} turns`, refusal: null };
	return {
		id: `chatcmpl_${turn}`,
		object: 'chat.completion',
		created: 0,
		model: body.model,
		choices: [{ index: 0, message, finish_reason: tool ? 'tool_calls' : 'stop', logprobs: null }],
		usage,
	};
}

/**
 * One request to the fake, as status and body text: the same bytes whether it arrives over
 * loopback HTTP or through the in-process fetch below.
 */
function answer(pathname, bodyText) {
	let reply;
	try {
		const body = JSON.parse(bodyText);
		// The fake answers in one JSON body only: a client that asks for a stream (n8n's chat model
		// nodes can) must fail loudly here instead of being measured on a reply it did not expect.
		if (body.stream === true) return { status: 400, text: JSON.stringify({ error: { message: 'fake model: streaming requests are not supported' } }) };
		if (pathname.endsWith('/v1/messages')) reply = anthropic(body);
		else if (pathname.endsWith('/chat/completions')) reply = openaiChat(body);
	} catch (error) {
		return { status: 400, text: JSON.stringify({ error: { message: error.message } }) };
	}
	if (!reply) return { status: 404, text: JSON.stringify({ error: { message: `no route ${pathname}` } }) };
	return { status: 200, text: JSON.stringify(reply) };
}

/** The fake behind a loopback HTTP server, for the real SDK clients (ours through createModelClient). */
async function startFakeModelServer() {
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const { status, text } = answer(req.url.split('?')[0], Buffer.concat(chunks).toString('utf8'));
			res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
			res.end(text);
		});
	});
	server.keepAliveTimeout = 60_000;
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		anthropicBaseUrl: `http://127.0.0.1:${port}`,
		openAiBaseUrl: `http://127.0.0.1:${port}/v1`,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}

/**
 * The in-process fake's answer, at next to no CPU cost: a zero-latency provider should not spend the
 * host's CPU either. The turn is the number of tool results in the conversation, counted in the
 * request text instead of parsing it (the bench's tool results never contain the marker), the model
 * is read from the text, and each answer's bytes are built once. The answers are the bytes answer()
 * gives for the same request (checked on first use of each).
 */
const TOOL_RESULT_MARKERS = { anthropic: '"tool_result"', openai: '"role":"tool"' };
const cheapAnswers = new Map();

function cheapAnswer(pathname, bodyText) {
	const api = pathname.endsWith('/v1/messages') ? 'anthropic' : pathname.endsWith('/chat/completions') ? 'openai' : null;
	const modelAt = bodyText.indexOf('"model":"');
	if (!api || modelAt < 0) return answer(pathname, bodyText);
	const model = bodyText.slice(modelAt + 9, bodyText.indexOf('"', modelAt + 9));
	const marker = TOOL_RESULT_MARKERS[api];
	let turn = 0;
	for (let at = bodyText.indexOf(marker); at >= 0; at = bodyText.indexOf(marker, at + marker.length)) turn++;
	const key = `${api} ${model} ${turn}`;
	let reply = cheapAnswers.get(key);
	if (!reply) {
		const parsedTurn = turnOf(JSON.parse(bodyText).messages);
		if (parsedTurn !== turn) throw new Error(`fake model: counted turn ${turn}, the conversation says ${parsedTurn}`);
		reply = answer(pathname, bodyText);
		cheapAnswers.set(key, reply);
	}
	return reply;
}

/** Base URLs for the SDK clients when they use fakeFetch (never resolved: no socket is opened). */
const FETCH_BASE_URLS = { anthropic: 'http://fake-model.invalid', openai: 'http://fake-model.invalid/v1' };

/**
 * The fake as a `fetch` for the SDK clients' `fetch` option: zero latency and no socket. The SDK
 * still builds and serializes the request and parses the Response as it would over the network.
 */
async function fakeFetch(input, init) {
	const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
	const query = url.indexOf('?');
	const path = query < 0 ? url : url.slice(0, query);
	const body = typeof init?.body === 'string' ? init.body : '';
	const { status, text } = cheapAnswer(path, body);
	recording?.push(`${status} ${text}`);
	return new Response(text, { status, headers: { 'content-type': 'application/json' } });
}

let recording = null;

/** Collects what fakeFetch answers while fn() runs (status and body text per request). */
async function recordResponses(fn) {
	const list = [];
	recording = list;
	try {
		await fn();
	} finally {
		recording = null;
	}
	return list;
}

module.exports = { anthropic, openaiChat, startFakeModelServer, fakeFetch, recordResponses, FETCH_BASE_URLS, planOf };
