'use strict';
// Wire-compatible fakes of Anthropic Messages, OpenAI Chat Completions and OpenAI Responses on
// 127.0.0.1 that bill like the providers do: each request's input is tokenized (gpt-tokenizer,
// o200k_base: OpenAI's tokenizer for its current models; Anthropic publishes none, so its counts are
// an approximation) and its cache reads are recorded as each provider's cache works:
//   OpenAI     automatic prefix caching: the longest common token prefix with an earlier request,
//              counted in 128-token steps once it reaches 1,024 tokens (prompt_tokens_details /
//              input_tokens_details.cached_tokens).
//   Anthropic  cache_control breakpoints: a breakpoint's prefix is written once it is at least 1,024
//              tokens long (the minimum Anthropic documents for Claude Sonnet models; some models need more); a later request reads the
//              longest written prefix ending on a block boundary at or up to 20 blocks before one of its
//              breakpoints (cache_read_input_tokens), and writes what follows up to its last breakpoint
//              (cache_creation_input_tokens); input_tokens is the rest.
// The prompt is billed in the order the providers document for caching: tools, then the system
// prompt (Anthropic `system`, Chat's system message, Responses `instructions`), then the messages;
// each tool, system block and message (Anthropic: message content block) is one block, serialized
// as JSON as it was sent (cache_control markers left out: they mark the prompt, they are not in it).
// The model is scripted (bench/scripts/tool-tokens.js gives `decide`); each fake's cache starts empty.
// The providers' own tool search (Anthropic's tool_search_tool_bm25, Responses' hosted tool_search)
// is emulated when a request carries the search tool: deferred tools (defer_loading) are not in the
// prompt, as the providers bill them; a tool a search found costs its definition where the search
// result loads it (Anthropic: each tool_reference expands to the tool's definition; Responses: the
// definitions in the tool_search_output item). The fake's search ranks the deferred tools by the
// words their name and description share with the query.

const crypto = require('node:crypto');
const http = require('node:http');
const { encode } = require('gpt-tokenizer/encoding/o200k_base');

const OPENAI_CACHE_MIN = 1024;
const OPENAI_CACHE_STEP = 128;
const ANTHROPIC_CACHE_MIN = 1024;
const ANTHROPIC_LOOKBACK_BLOCKS = 20;
const TOKENIZER = 'gpt-tokenizer 4.0.0, o200k_base';

const tokenCache = new Map();
/** Tokens of one block's text (each tool's JSON is the same on every turn: tokenized once). */
function tokensOf(text) {
	let tokens = tokenCache.get(text);
	if (!tokens) {
		tokens = encode(text);
		if (tokenCache.size > 20_000) tokenCache.clear();
		tokenCache.set(text, tokens);
	}
	return tokens;
}

function withoutCacheControl(value) {
	if (!value || typeof value !== 'object' || Array.isArray(value) || !('cache_control' in value)) return value;
	const { cache_control: _marker, ...rest } = value;
	return rest;
}

const block = (part, value, breakpoint = false) => ({ part, text: typeof value === 'string' ? value : JSON.stringify(value), breakpoint });

/** A tool_search_tool_result as Anthropic bills it: each tool_reference is the referenced tool's definition. */
function withLoadedDefinitions(content, tools) {
	if (content.type !== 'tool_search_tool_result' || !Array.isArray(content.content?.tool_references)) return content;
	const definitions = content.content.tool_references.map((reference) => {
		const tool = tools.find((t) => t.name === reference.tool_name);
		return tool ? (({ defer_loading: _deferred, cache_control: _marker, ...definition }) => definition)(tool) : reference;
	});
	return { ...content, content: { ...content.content, tool_references: definitions } };
}

/** The billed prompt of one request as blocks in cache order: { part: 'tools'|'system'|'messages', text, breakpoint }. */
function promptBlocks(api, body) {
	// A deferred tool is not in the prompt until a search loads it (then it is billed where it is loaded).
	const blocks = (body.tools ?? []).filter((tool) => tool.defer_loading !== true).map((tool) => block('tools', withoutCacheControl(tool), Boolean(tool.cache_control)));
	if (api === 'anthropic') {
		const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
		for (const entry of system) blocks.push(block('system', entry.text, Boolean(entry.cache_control)));
		for (const message of body.messages ?? []) {
			// A text message is its one text block to the API (and to its cache).
			if (typeof message.content === 'string') blocks.push(block('messages', { role: message.role, type: 'text', text: message.content }));
			else for (const content of message.content ?? []) blocks.push(block('messages', { role: message.role, ...withLoadedDefinitions(withoutCacheControl(content), body.tools ?? []) }, Boolean(content.cache_control)));
		}
	} else if (api === 'openaiChat') {
		const messages = body.messages ?? [];
		for (const message of messages) blocks.push(block(message.role === 'system' || message.role === 'developer' ? 'system' : 'messages', message));
	} else {
		if (body.instructions) blocks.push(block('system', body.instructions));
		const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []);
		for (const item of input) blocks.push(block('messages', item));
	}
	return blocks.map((b) => ({ ...b, tokens: tokensOf(b.text) }));
}

function commonPrefixLength(a, b) {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a[i] === b[i]) i++;
	return i;
}

/** OpenAI's automatic prefix cache: every earlier request's tokens, the longest common prefix read. */
function openAiCache() {
	const seen = [];
	return (blocks) => {
		const tokens = blocks.flatMap((b) => b.tokens);
		let longest = 0;
		for (const earlier of seen) longest = Math.max(longest, commonPrefixLength(tokens, earlier));
		seen.push(tokens);
		const read = longest >= OPENAI_CACHE_MIN ? Math.floor(longest / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP : 0;
		return { total: tokens.length, read, write: 0 };
	};
}

/** Anthropic's breakpoint cache: prefixes (by hash) written at breakpoints, read at block boundaries. */
function anthropicCache() {
	const written = new Set();
	return (blocks) => {
		const hashes = [];
		const ends = [];
		const hash = crypto.createHash('sha256');
		let total = 0;
		for (const b of blocks) {
			hash.update(`${b.text.length}:${b.text}`);
			hashes.push(hash.copy().digest('hex'));
			total += b.tokens.length;
			ends.push(total);
		}
		const breakpoints = blocks.map((b, i) => (b.breakpoint ? i : -1)).filter((i) => i >= 0);
		let read = 0;
		for (const at of breakpoints) {
			for (let i = at; i >= Math.max(0, at - ANTHROPIC_LOOKBACK_BLOCKS); i--) {
				if (written.has(hashes[i])) {
					read = Math.max(read, ends[i]);
					break;
				}
			}
		}
		let write = 0;
		for (const at of breakpoints) {
			if (ends[at] < ANTHROPIC_CACHE_MIN || written.has(hashes[at])) continue;
			written.add(hashes[at]);
			write = Math.max(write, ends[at] - read, 0);
		}
		return { total, read, write };
	};
}

/** The calls of the conversation in order; a provider-side search is { search: { query }, found: [names] }. */
function normalizedCalls(api, body) {
	const calls = [];
	if (api === 'anthropic') {
		for (const message of body.messages ?? []) {
			if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
			for (const c of message.content) {
				if (c.type === 'tool_use') calls.push({ name: c.name, arguments: c.input });
				if (c.type === 'server_tool_use') {
					const result = message.content.find((r) => r.type === 'tool_search_tool_result' && r.tool_use_id === c.id);
					calls.push({ search: { query: c.input?.query }, found: (result?.content?.tool_references ?? []).map((r) => r.tool_name) });
				}
			}
		}
	} else if (api === 'openaiChat') {
		for (const message of body.messages ?? []) for (const c of message.tool_calls ?? []) calls.push({ name: c.function.name, arguments: JSON.parse(c.function.arguments) });
	} else {
		const input = Array.isArray(body.input) ? body.input : [];
		input.forEach((item, at) => {
			if (item.type === 'function_call') calls.push({ name: item.name, arguments: JSON.parse(item.arguments) });
			if (item.type === 'tool_search_call') calls.push({ search: { query: item.arguments?.query }, found: ((input.slice(at + 1).find((o) => o.type === 'tool_search_output') ?? {}).tools ?? []).map((t) => t.name) });
		});
	}
	return calls;
}

/** The provider's own search tool the request carries, if any: its name. */
function nativeSearchTool(api, body) {
	const tools = body.tools ?? [];
	if (api === 'anthropic') return tools.find((t) => /^tool_search_tool_/.test(String(t.type)))?.name;
	if (api === 'openaiResponses') return tools.some((t) => t.type === 'tool_search') ? 'tool_search' : undefined;
	return undefined;
}

/** The tools the model has: the ones loaded from the start, and under the provider's search the deferred ones its searches found. */
function offeredNames(api, body, calls = []) {
	const tools = (body.tools ?? []).filter((tool) => tool.defer_loading !== true && !(api === 'openaiResponses' && tool.type === 'tool_search'));
	const found = calls.flatMap((call) => call.found ?? []);
	return [...tools.map((tool) => (api === 'openaiChat' ? tool.function?.name : tool.name)), ...found.filter((name, i) => found.indexOf(name) === i)];
}

const STOP = new Set('a an and are as at be by can do does for from has have how in is it its me my of on or that the their this to was what when where which with you your'.split(' '));
const words = (text) => new Set(String(text).toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 1 && !STOP.has(word)));
/** Tools one emulated search returns at most. */
const SEARCH_RESULTS = 3;

/** The emulated provider search: the deferred tools sharing the most words (name and description) with the query, best first. */
function searchDeferred(tools, query) {
	const wanted = words(query);
	return tools
		.filter((tool) => tool.defer_loading === true)
		.map((tool, index) => ({ tool, index, score: [...words(`${tool.name} ${tool.description ?? ''}`)].filter((word) => wanted.has(word)).length }))
		.filter((entry) => entry.score > 0)
		.sort((a, b) => b.score - a.score || a.index - b.index)
		.slice(0, SEARCH_RESULTS)
		.map((entry) => entry.tool);
}

/** The response body one API gives for a decision ({ call: { name, arguments } } or { text }). */
function responseBody(api, body, turn, decision, usage, searches = []) {
	const id = `${turn}`;
	const outputTokens = tokensOf(JSON.stringify(decision)).length;
	const definition = ({ defer_loading: _deferred, ...rest }) => rest;
	if (api === 'anthropic') {
		const searched = searches.flatMap((search, i) => [
			{ type: 'server_tool_use', id: `srvtoolu_${id}_${i}`, name: decision.searchTool, input: { query: search.query }, caller: { type: 'direct' } },
			{ type: 'tool_search_tool_result', tool_use_id: `srvtoolu_${id}_${i}`, content: { type: 'tool_search_tool_search_result', tool_references: search.found.map((tool) => ({ type: 'tool_reference', tool_name: tool.name })) } },
		]);
		const content = [...searched, ...(decision.call ? [{ type: 'tool_use', id: `toolu_${id}`, name: decision.call.name, input: decision.call.arguments }] : [{ type: 'text', text: decision.text }])];
		return {
			id: `msg_${id}`,
			type: 'message',
			role: 'assistant',
			model: body.model,
			content,
			stop_reason: decision.call ? 'tool_use' : 'end_turn',
			stop_sequence: null,
			usage: { input_tokens: usage.total - usage.read - usage.write, output_tokens: outputTokens, cache_creation_input_tokens: usage.write, cache_read_input_tokens: usage.read },
		};
	}
	if (api === 'openaiChat') {
		const message = decision.call
			? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: decision.call.name, arguments: JSON.stringify(decision.call.arguments) } }] }
			: { role: 'assistant', content: decision.text, refusal: null };
		return {
			id: `chatcmpl_${id}`,
			object: 'chat.completion',
			created: 0,
			model: body.model,
			choices: [{ index: 0, message, finish_reason: decision.call ? 'tool_calls' : 'stop', logprobs: null }],
			usage: { prompt_tokens: usage.total, completion_tokens: outputTokens, total_tokens: usage.total + outputTokens, prompt_tokens_details: { cached_tokens: usage.read } },
		};
	}
	const searched = searches.flatMap((search, i) => [
		{ type: 'tool_search_call', id: `tsc_${id}_${i}`, call_id: null, execution: 'server', status: 'completed', arguments: { query: search.query } },
		{ type: 'tool_search_output', id: `tso_${id}_${i}`, call_id: null, execution: 'server', status: 'completed', tools: search.found.map(definition) },
	]);
	const output = [...searched, ...(decision.call
		? [{ type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: decision.call.name, arguments: JSON.stringify(decision.call.arguments), status: 'completed' }]
		: [{ type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: decision.text, annotations: [] }] }])];
	return {
		id: `resp_${id}`,
		object: 'response',
		created_at: 0,
		status: 'completed',
		model: body.model,
		output,
		usage: { input_tokens: usage.total, input_tokens_details: { cached_tokens: usage.read }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.total + outputTokens },
	};
}

const ROUTES = { '/v1/messages': 'anthropic', '/v1/chat/completions': 'openaiChat', '/v1/responses': 'openaiResponses' };

/**
 * A fake of one API on 127.0.0.1 for one conversation. `decide({ calls, offered, nativeSearch })` is
 * the scripted model: the calls made so far (read from the conversation sent, as a stateless API
 * would), the tool names it has, and whether the provider's own search is there; it returns
 * { call }, { text }, or (with the provider's search) { search: { query } }: the fake searches on the
 * "server side" and asks again, as a model continues after a server-side search, so one answer may
 * hold searches and then a call. Every request is recorded in `requests`.
 */
async function startTokenFake(api, decide) {
	const bill = api === 'anthropic' ? anthropicCache() : openAiCache();
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			let status = 200;
			let reply;
			try {
				const route = ROUTES[req.url.split('?')[0]];
				if (route !== api) throw new Error(`the ${api} fake got ${req.method} ${req.url}`);
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
				if (body.stream === true) throw new Error('streaming requests are not supported by this fake');
				const blocks = promptBlocks(api, body);
				const usage = bill(blocks);
				const sum = (part) => blocks.filter((b) => b.part === part).reduce((n, b) => n + b.tokens.length, 0);
				const calls = normalizedCalls(api, body);
				const searchTool = nativeSearchTool(api, body);
				const searches = [];
				let decision;
				for (;;) {
					decision = decide({ calls, offered: offeredNames(api, body, calls), nativeSearch: Boolean(searchTool) });
					if (!decision.search) break;
					if (!searchTool) throw new Error('the script searched with the provider\'s search, but the request carries no search tool');
					if (searches.length >= 5) throw new Error('five provider searches in one answer');
					const found = searchDeferred(body.tools ?? [], decision.search.query);
					searches.push({ query: decision.search.query, found });
					calls.push({ search: decision.search, found: found.map((tool) => tool.name) });
				}
				// Recorded with the names found (the definitions go into the answer).
				if (searches.length) decision = { ...decision, searches: searches.map((search) => ({ query: search.query, found: search.found.map((tool) => tool.name) })), searchTool };
				const offered = offeredNames(api, body, normalizedCalls(api, body));
				requests.push({ ...usage, tools: sum('tools'), system: sum('system'), messages: sum('messages'), offered: offered.length, decision });
				reply = responseBody(api, body, requests.length, decision, usage, searches);
			} catch (error) {
				status = 400;
				reply = { type: 'error', error: { type: 'invalid_request_error', message: `token fake: ${error.message}` } };
			}
			const text = JSON.stringify(reply);
			res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
			res.end(text);
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		baseUrl: api === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise((resolve) => {
			server.closeAllConnections?.();
			server.close(() => resolve());
		}),
	};
}

module.exports = { startTokenFake, promptBlocks, searchDeferred, normalizedCalls, offeredNames, openAiCache, anthropicCache, TOKENIZER, OPENAI_CACHE_MIN, OPENAI_CACHE_STEP, ANTHROPIC_CACHE_MIN, ANTHROPIC_LOOKBACK_BLOCKS };
