'use strict';
// A stateless, scripted fake of the Anthropic Messages API for the n8n-tools suite (issue 15), on
// 127.0.0.1. Like ../lib/scriptedLlm.js, the plan is JSON in the user message ({ "rounds": [[{ tool,
// args }], ...] }) and the final answer is "FINAL " + JSON of the tool results it received; unlike
// it, the plan is read from the *last* user text message (memory puts earlier turns before it), a
// tool name "/regex/" picks the first offered tool it matches, and a request with `stream: true` is
// answered with server-sent events, the sequence the Anthropic SDK parses (as in
// test/unit/streaming.test.ts). With "holdFinal": true in the plan, the streamed final answer stops
// after its first text delta until the test calls releaseHeld(): the test can prove that the first
// chunk reached the client while the model was still answering.

const http = require('node:http');

function readBody(req) {
	return new Promise((resolve, reject) => {
		let data = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => (data += chunk));
		req.on('end', () => resolve(data ? JSON.parse(data) : {}));
		req.on('error', reject);
	});
}

/** The text of a user message that a person (not a tool result) wrote, else undefined. */
function userText(message) {
	if (message.role !== 'user') return undefined;
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content) && message.content.length && message.content.every((b) => b.type === 'text')) return message.content.map((b) => b.text).join('');
	return undefined;
}

function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => part.text ?? '').join('');
	return '';
}

function parsePlan(text) {
	try {
		const plan = JSON.parse(text);
		return plan && Array.isArray(plan.rounds) ? plan : { rounds: [] };
	} catch {
		return { rounds: [] };
	}
}

/** What the model does next: the calls of this round, or the final text. */
function decide(body) {
	const messages = body.messages ?? [];
	let last = -1;
	messages.forEach((m, i) => userText(m) !== undefined && (last = i));
	const plan = parsePlan(last >= 0 ? userText(messages[last]) : '');
	const since = messages.slice(last + 1);
	const round = since.filter((m) => m.role === 'assistant').length;
	const results = [];
	for (const m of since) {
		if (m.role !== 'user' || !Array.isArray(m.content)) continue;
		for (const block of m.content) if (block.type === 'tool_result') results.push({ isError: block.is_error === true, text: textOf(block.content) });
	}
	const offered = (body.tools ?? []).map((t) => t.name);
	const resolve = (name) => (name.startsWith('/') ? offered.find((o) => new RegExp(name.slice(1, -1)).test(o)) ?? name : name);
	const calls = plan.rounds[round];
	if (calls && calls.length) return { calls: calls.map((c, i) => ({ id: `toolu_${round}_${i}`, name: resolve(c.tool), args: c.args ?? {} })) };
	return { text: `FINAL ${JSON.stringify(results)}`, holdFinal: plan.holdFinal === true };
}

const usage = { input_tokens: 11, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function reply(decision, body) {
	const content = decision.calls ? decision.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })) : [{ type: 'text', text: decision.text }];
	return { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content, stop_reason: decision.calls ? 'tool_use' : 'end_turn', stop_sequence: null, usage };
}

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** The events of one answer: head (up to the first text delta) and tail (the rest). */
function events(decision, body) {
	const head = [sse('message_start', { message: { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } })];
	const tail = [];
	if (decision.calls) {
		decision.calls.forEach((c, index) => {
			tail.push(
				sse('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }),
				sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.args) } }),
				sse('content_block_stop', { index }),
			);
		});
	} else {
		const cut = Math.min(6, decision.text.length);
		head.push(
			sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
			sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: decision.text.slice(0, cut) } }),
		);
		tail.push(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: decision.text.slice(cut) } }), sse('content_block_stop', { index: 0 }));
	}
	tail.push(sse('message_delta', { delta: { stop_reason: decision.calls ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }), sse('message_stop', {}));
	return { head, tail };
}

async function startStreamingLlm() {
	const requests = [];
	const held = { waiting: false, tailSent: false, release: null };
	const server = http.createServer(async (req, res) => {
		try {
			const url = req.url.split('?')[0];
			if (req.method === 'GET' && /\/models$/.test(url)) {
				res.writeHead(200, { 'content-type': 'application/json' });
				return res.end(JSON.stringify({ data: [{ id: 'fake-model', type: 'model', display_name: 'Fake Model', created_at: '2026-01-01T00:00:00Z' }], has_more: false, first_id: 'fake-model', last_id: 'fake-model' }));
			}
			const body = await readBody(req);
			requests.push({ url, body });
			if (!url.endsWith('/v1/messages')) {
				res.writeHead(404, { 'content-type': 'application/json' });
				return res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${url}` } }));
			}
			const decision = decide(body);
			if (!body.stream) {
				res.writeHead(200, { 'content-type': 'application/json' });
				return res.end(JSON.stringify(reply(decision, body)));
			}
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
			const { head, tail } = events(decision, body);
			for (const event of head) res.write(event);
			if (decision.holdFinal) {
				// Held until the test has seen the first chunk (or 30 s, so a failing test cannot hang).
				held.waiting = true;
				held.tailSent = false;
				await new Promise((resolve) => {
					const timer = setTimeout(resolve, 30000);
					held.release = () => (clearTimeout(timer), resolve());
				});
				held.waiting = false;
			}
			for (const event of tail) res.write(event);
			held.tailSent = true;
			res.end();
		} catch (error) {
			res.writeHead(500, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error && error.message) } }));
		}
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = server.address().port;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		held,
		releaseHeld: () => held.release && held.release(),
		close: () => new Promise((resolve) => (held.release && held.release(), server.close(() => resolve()))),
	};
}

module.exports = { startStreamingLlm };
