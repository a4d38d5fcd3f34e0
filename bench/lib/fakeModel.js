'use strict';
// A zero-latency fake model, wire-compatible with Anthropic Messages and OpenAI Chat Completions.
// Stateless like the real APIs: the turn number comes from the length of the conversation sent,
// the plan from the model name ("bench:echo*100" = call echo in 100 turns, then answer;
// "bench:fetch_page*5,delete_record*1" = five fetch_page turns, one delete_record turn, answer).
// The same functions answer in-process (called directly) and over loopback HTTP, so both sides of a
// comparison always talk to the same fake.

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
	if (tool === 'echo') return { message: `turn ${turn}` };
	if (tool === 'fetch_page') return { url: `https://example.com/page/${turn}` };
	if (tool === 'delete_record') return { id: `rec-${turn}` };
	return {};
}

/** Conversations alternate user / assistant (one tool result message per turn), so length gives the turn. */
function turnOf(messages) {
	const offset = messages.length > 0 && messages[0].role === 'system' ? 1 : 0;
	return (messages.length - 1 - offset) / 2;
}

function anthropic(body) {
	const turn = turnOf(body.messages);
	const tool = planOf(body.model)[turn];
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
	const tool = planOf(body.model)[turn];
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

/** The fake behind a loopback HTTP server, for the real SDK clients (ours through createModelClient). */
async function startFakeModelServer() {
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			let reply;
			try {
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
				if (req.url.endsWith('/v1/messages')) reply = anthropic(body);
				else if (req.url.endsWith('/chat/completions')) reply = openaiChat(body);
			} catch (error) {
				res.writeHead(400, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: error.message } }));
				return;
			}
			if (!reply) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
				return;
			}
			const text = JSON.stringify(reply);
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
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

module.exports = { anthropic, openaiChat, startFakeModelServer, planOf };
