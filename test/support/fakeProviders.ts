/**
 * Wire-compatible fake model providers for tests: small node:http servers on 127.0.0.1 that speak
 * the documented request/response shapes of the Anthropic Messages API, OpenAI Chat Completions and
 * the OpenAI Responses API. The real SDK clients are pointed at them through their base URL.
 *
 * Each fake answers model requests from a SCRIPT (one handler per request, or one function for all
 * of them) and records every request, so tests can assert what the SDK actually sent. Before a
 * request reaches the script it is checked against the rules the real APIs enforce on the
 * conversation (tool results correlated with tool calls, tool definitions well-formed, ...); a
 * request breaking them gets the 400 invalid_request_error the real API would send, so a run that
 * completes against a fake has produced a conversation the real API accepts.
 *
 * Test code only.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FakeKind = 'anthropic' | 'openaiChat' | 'openaiResponses';

export interface FakeReply {
	status?: number;
	body: unknown;
	headers?: Record<string, string>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FakeHandler = (body: any, index: number) => FakeReply | Promise<FakeReply>;

/**
 * A list (request i gets entry i: a handler, or a fixed reply) or a single function answering every
 * request.
 */
export type FakeScript = Array<FakeHandler | FakeReply> | FakeHandler;

export interface RecordedRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: unknown;
}

export interface FakeProvider {
	/** What to pass as the provider base URL (Anthropic: without /v1; OpenAI: with /v1). */
	baseUrl: string;
	/** Parsed bodies of every model request (retries included), in arrival order. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	requests: any[];
	/** Every HTTP request the fake received (model calls, model listing, anything else). */
	log: RecordedRequest[];
	/** Problems the wire check found (each was answered with a 400). */
	rejected: Array<{ index: number; problems: string[] }>;
	close(): Promise<void>;
}

export interface FakeOptions {
	/** Model ids served by GET /v1/models. */
	models?: string[];
	/** Check requests against the APIs' conversation rules (default true). */
	validate?: boolean;
}

const MODEL_PATH: Record<FakeKind, string> = {
	anthropic: '/v1/messages',
	openaiChat: '/v1/chat/completions',
	openaiResponses: '/v1/responses',
};

export async function startFakeProvider(kind: FakeKind, script: FakeScript, options: FakeOptions = {}): Promise<FakeProvider> {
	const requests: unknown[] = [];
	const log: RecordedRequest[] = [];
	const rejected: FakeProvider['rejected'] = [];
	const models = options.models ?? (kind === 'anthropic' ? ['claude-test-1', 'claude-test-2'] : ['gpt-test-b', 'gpt-test-a']);
	const validate = options.validate ?? true;
	const sockets = new Set<Socket>();

	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const raw = await readBody(req);
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		let body: unknown = undefined;
		if (raw.length > 0) {
			try {
				body = JSON.parse(raw);
			} catch {
				return send(res, errorReply(kind, 400, 'invalid_request_error', 'The request body is not valid JSON.'));
			}
		}
		log.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body });

		if (req.method === 'GET' && url.pathname === '/v1/models') return send(res, { body: modelList(kind, models) });
		if (req.method !== 'POST' || url.pathname !== MODEL_PATH[kind]) {
			return send(res, errorReply(kind, 404, 'not_found_error', `No route for ${req.method} ${url.pathname}`));
		}
		const index = requests.length;
		requests.push(body);
		if (validate) {
			const problems = wireProblems(kind, body);
			if (problems.length > 0) {
				rejected.push({ index, problems });
				return send(res, errorReply(kind, 400, 'invalid_request_error', problems.join('; ')));
			}
		}
		const entry = typeof script === 'function' ? script : script[index];
		if (!entry) {
			return send(res, { ...errorReply(kind, 400, 'invalid_request_error', `fake ${kind}: script has no reply for request ${index}`), headers: { 'x-should-retry': 'false' } });
		}
		try {
			send(res, typeof entry === 'function' ? await entry(body, index) : entry);
		} catch (error) {
			send(res, { ...errorReply(kind, 400, 'invalid_request_error', `fake ${kind}: handler ${index} threw: ${(error as Error).message}`), headers: { 'x-should-retry': 'false' } });
		}
	};

	const server = createServer((req, res) => {
		handle(req, res).catch((error) => {
			if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	const origin = `http://127.0.0.1:${port}`;
	return {
		baseUrl: kind === 'anthropic' ? origin : `${origin}/v1`,
		requests,
		log,
		rejected,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function send(res: ServerResponse, reply: FakeReply): void {
	const payload = JSON.stringify(reply.body ?? null);
	res.writeHead(reply.status ?? 200, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(payload),
		'request-id': 'req_fake',
		'x-request-id': 'req_fake',
		...(reply.headers ?? {}),
	});
	res.end(payload);
}

function modelList(kind: FakeKind, ids: string[]): unknown {
	if (kind === 'anthropic') {
		return {
			data: ids.map((id, i) => ({ type: 'model', id, display_name: `Model ${i + 1} (${id})`, created_at: '2026-01-01T00:00:00Z' })),
			has_more: false,
			first_id: ids[0] ?? null,
			last_id: ids[ids.length - 1] ?? null,
		};
	}
	return { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' })) };
}

// ---------------------------------------------------------------------------------------------
// Errors

/** The documented error body of each API, with a status. */
export function errorReply(kind: FakeKind, status: number, type: string, message: string, code?: string, headers?: Record<string, string>): FakeReply {
	if (kind === 'anthropic') return { status, body: { type: 'error', error: { type, message } }, headers };
	return { status, body: { error: { message, type, param: null, code: code ?? null } }, headers };
}

/** 429 with a short retry-after-ms, so the SDK's retry is quick. */
export function rateLimited(kind: FakeKind): FakeReply {
	return errorReply(kind, 429, kind === 'anthropic' ? 'rate_limit_error' : 'requests', 'Rate limit reached, slow down.', kind === 'anthropic' ? undefined : 'rate_limit_exceeded', {
		'retry-after-ms': '10',
		'retry-after': '0',
	});
}

export function unauthorized(kind: FakeKind): FakeReply {
	return kind === 'anthropic'
		? errorReply(kind, 401, 'authentication_error', 'invalid x-api-key')
		: errorReply(kind, 401, 'invalid_request_error', 'Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_api_key');
}

export function contextTooLong(kind: FakeKind): FakeReply {
	return kind === 'anthropic'
		? errorReply(kind, 400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum')
		: errorReply(kind, 400, 'invalid_request_error', "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens.", 'context_length_exceeded');
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages responses

export interface FakeUsage {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}_${(++idCounter).toString(36).padStart(6, '0')}`;

export type AnthropicBlock =
	| { type: 'text'; text: string }
	| { type: 'tool_use'; id: string; name: string; input: unknown }
	| Record<string, unknown>;

export function anthropicText(text: string): AnthropicBlock {
	return { type: 'text', text };
}

export function anthropicToolUse(id: string, name: string, input: unknown): AnthropicBlock {
	return { type: 'tool_use', id, name, input };
}

export function anthropicMessage(
	content: AnthropicBlock[],
	stopReason: string,
	usage: FakeUsage = {},
	extra: { id?: string; model?: string } = {},
): FakeReply {
	return {
		body: {
			id: extra.id ?? nextId('msg'),
			type: 'message',
			role: 'assistant',
			model: extra.model ?? 'claude-test-1',
			content,
			stop_reason: stopReason,
			stop_sequence: null,
			usage: {
				input_tokens: usage.input ?? 10,
				output_tokens: usage.output ?? 5,
				cache_read_input_tokens: usage.cacheRead ?? 0,
				cache_creation_input_tokens: usage.cacheWrite ?? 0,
			},
		},
	};
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions responses

export interface ChatToolCall {
	id: string;
	name: string;
	/** A JSON string, as the API sends it (possibly malformed). */
	arguments: string;
}

export function chatCompletion(
	message: { content?: string | null; toolCalls?: ChatToolCall[]; refusal?: string | null },
	finishReason: string,
	usage: FakeUsage = {},
	extra: { id?: string; model?: string } = {},
): FakeReply {
	const input = usage.input ?? 10;
	const cached = usage.cacheRead ?? 0;
	const output = usage.output ?? 5;
	const toolCalls = message.toolCalls ?? [];
	return {
		body: {
			id: extra.id ?? nextId('chatcmpl'),
			object: 'chat.completion',
			created: 1_700_000_000,
			model: extra.model ?? 'gpt-test-a',
			choices: [
				{
					index: 0,
					message: {
						role: 'assistant',
						content: message.content ?? null,
						refusal: message.refusal ?? null,
						...(toolCalls.length > 0
							? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
							: {}),
						annotations: [],
					},
					logprobs: null,
					finish_reason: finishReason,
				},
			],
			usage: {
				// prompt_tokens includes the cached part, as the API reports it.
				prompt_tokens: input + cached,
				completion_tokens: output,
				total_tokens: input + cached + output,
				prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
				completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
			},
			service_tier: 'default',
			system_fingerprint: null,
		},
	};
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses responses

export type ResponsesItem = Record<string, unknown>;

export function responsesMessage(text: string): ResponsesItem {
	return {
		type: 'message',
		id: nextId('msg'),
		status: 'completed',
		role: 'assistant',
		content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
	};
}

export function responsesRefusal(refusal: string): ResponsesItem {
	return { type: 'message', id: nextId('msg'), status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal }] };
}

export function responsesFunctionCall(callId: string, name: string, args: string): ResponsesItem {
	return { type: 'function_call', id: nextId('fc'), call_id: callId, name, arguments: args, status: 'completed' };
}

export function responsesResponse(
	output: ResponsesItem[],
	usage: FakeUsage = {},
	extra: { status?: 'completed' | 'incomplete' | 'failed'; incompleteReason?: string; id?: string; model?: string } = {},
): FakeReply {
	const input = usage.input ?? 10;
	const cached = usage.cacheRead ?? 0;
	const outputTokens = usage.output ?? 5;
	return {
		body: {
			id: extra.id ?? nextId('resp'),
			object: 'response',
			created_at: 1_700_000_000,
			status: extra.status ?? 'completed',
			error: null,
			incomplete_details: extra.incompleteReason ? { reason: extra.incompleteReason } : null,
			instructions: null,
			max_output_tokens: null,
			model: extra.model ?? 'gpt-test-a',
			output,
			parallel_tool_calls: true,
			previous_response_id: null,
			reasoning: { effort: null, summary: null },
			store: false,
			temperature: 1,
			text: { format: { type: 'text' } },
			tool_choice: 'auto',
			tools: [],
			top_p: 1,
			truncation: 'disabled',
			usage: {
				input_tokens: input + cached,
				input_tokens_details: { cached_tokens: cached },
				output_tokens: outputTokens,
				output_tokens_details: { reasoning_tokens: 0 },
				total_tokens: input + cached + outputTokens,
			},
			metadata: {},
		},
	};
}

// ---------------------------------------------------------------------------------------------
// Wire checks: the conversation rules each API enforces with a 400.

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function wireProblems(kind: FakeKind, body: unknown): string[] {
	if (!isObject(body)) return ['the request body must be a JSON object'];
	if (kind === 'anthropic') return anthropicProblems(body);
	if (kind === 'openaiChat') return chatProblems(body);
	return responsesProblems(body);
}

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function anthropicProblems(body: Record<string, unknown>): string[] {
	const problems: string[] = [];
	if (typeof body.model !== 'string' || !body.model) problems.push('model: Field required');
	if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) problems.push('max_tokens: Field required (a positive integer)');
	let breakpoints = 0;
	const countCache = (block: unknown) => {
		if (isObject(block) && block.cache_control !== undefined) breakpoints++;
	};
	const toolNames = new Set<string>();
	if (body.tools !== undefined) {
		if (!Array.isArray(body.tools)) problems.push('tools: Input should be a valid list');
		else
			body.tools.forEach((tool, i) => {
				countCache(tool);
				if (!isObject(tool) || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) problems.push(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
				else if (toolNames.has(tool.name)) problems.push(`tools: Tool names must be unique (${tool.name})`);
				else toolNames.add(tool.name);
				if (!isObject(tool) || !isObject(tool.input_schema) || tool.input_schema.type !== 'object') problems.push(`tools.${i}.input_schema.type: Input should be 'object'`);
			});
	}
	if (body.tool_choice !== undefined) {
		const choice = body.tool_choice;
		if (!isObject(choice) || !['auto', 'any', 'tool', 'none'].includes(String(choice.type))) problems.push('tool_choice: invalid type');
		else {
			if (!body.tools) problems.push('tool_choice may only be specified while providing tools');
			if (choice.type === 'tool' && !toolNames.has(String(choice.name))) problems.push(`tool_choice: tool "${String(choice.name)}" is not among the tools`);
			if (choice.type === 'none' && choice.disable_parallel_tool_use !== undefined) problems.push('tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted');
		}
	}
	if (body.system !== undefined) {
		if (typeof body.system === 'string') {
			// fine
		} else if (Array.isArray(body.system)) {
			body.system.forEach((block, i) => {
				countCache(block);
				if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string' || !block.text) problems.push(`system.${i}: text content blocks must be non-empty`);
			});
		} else problems.push('system: Input should be a valid string or list');
	}
	const messages = body.messages;
	if (!Array.isArray(messages) || messages.length === 0) {
		problems.push('messages: at least one message is required');
		return problems;
	}
	if (!isObject(messages[0]) || messages[0].role !== 'user') problems.push('messages: first message must use the "user" role');
	const blocksOf = (message: Record<string, unknown>): Array<Record<string, unknown>> =>
		typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : [];
	messages.forEach((message, i) => {
		if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
			problems.push(`messages.${i}.role: Input should be 'user' or 'assistant'`);
			return;
		}
		if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
			problems.push(`messages.${i}.content: Input should be a valid string or list`);
			return;
		}
		const blocks = blocksOf(message);
		const isFinalAssistant = i === messages.length - 1 && message.role === 'assistant';
		if (blocks.length === 0 && !isFinalAssistant) problems.push(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
		blocks.forEach((block, j) => {
			countCache(block);
			if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) problems.push(`messages.${i}.content.${j}: text content blocks must be non-empty`);
			if (message.role === 'user' && ['tool_use', 'server_tool_use'].includes(String(block.type))) problems.push(`messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`);
			if (message.role === 'assistant' && block.type === 'tool_result') problems.push(`messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`);
			if (block.type === 'tool_result') {
				const content = block.content;
				const parts = typeof content === 'string' ? [] : Array.isArray(content) ? content : null;
				if (parts === null && content !== undefined) problems.push(`messages.${i}.content.${j}.content: Input should be a valid string or list`);
				for (const part of parts ?? []) {
					if (!isObject(part) || !['text', 'image', 'document', 'search_result'].includes(String(part.type))) problems.push(`messages.${i}.content.${j}.content: unsupported block`);
					else if (part.type === 'text' && (typeof part.text !== 'string' || part.text === '')) problems.push(`messages.${i}.content.${j}.content: text content blocks must be non-empty`);
				}
				if (block.is_error !== undefined && typeof block.is_error !== 'boolean') problems.push(`messages.${i}.content.${j}.is_error: Input should be a valid boolean`);
			}
			if (block.type === 'tool_use' && !isObject(block.input)) problems.push(`messages.${i}.content.${j}.input: Input should be a valid dictionary`);
		});
		// Every tool_use must be answered by a tool_result in the very next (user) message, and every
		// tool_result must answer a tool_use of the message right before it; results come first.
		if (message.role === 'assistant') {
			const ids = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
			if (ids.length > 0) {
				const next = messages[i + 1];
				const answered = isObject(next) && next.role === 'user' ? blocksOf(next).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) : [];
				const missing = ids.filter((id) => !answered.includes(id));
				if (missing.length > 0) problems.push(`messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
			}
		} else {
			const results = blocks.filter((b) => b.type === 'tool_result');
			if (results.length > 0) {
				const previous = messages[i - 1];
				const ids = isObject(previous) && previous.role === 'assistant' ? blocksOf(previous).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
				for (const result of results) {
					if (!ids.includes(String(result.tool_use_id))) problems.push(`messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(result.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
				}
				const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
				const lastResult = blocks.map((b) => b.type).lastIndexOf('tool_result');
				if (firstOther !== -1 && firstOther < lastResult) problems.push(`messages.${i}.content: tool_result blocks must come before any other content`);
			}
		}
	});
	if (breakpoints > 4) problems.push(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
	return problems;
}

function chatProblems(body: Record<string, unknown>): string[] {
	const problems: string[] = [];
	if (typeof body.model !== 'string' || !body.model) problems.push("Missing required parameter: 'model'.");
	const toolNames = new Set<string>();
	if (body.tools !== undefined) {
		if (!Array.isArray(body.tools) || body.tools.length === 0) problems.push("Invalid 'tools': empty array. Expected an array with minimum length 1.");
		else
			body.tools.forEach((tool, i) => {
				const fn = isObject(tool) && tool.type === 'function' && isObject(tool.function) ? tool.function : undefined;
				if (!fn || typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) {
					problems.push(`Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`);
					return;
				}
				toolNames.add(fn.name);
				if (fn.parameters !== undefined && (!isObject(fn.parameters) || fn.parameters.type !== 'object')) problems.push(`Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"'.`);
				if (fn.strict === true) problems.push(...strictSchemaProblems(fn.name, fn.parameters));
			});
	}
	if (body.tool_choice !== undefined) {
		const choice = body.tool_choice;
		if (!body.tools) problems.push("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
		else if (typeof choice === 'string') {
			if (!['none', 'auto', 'required'].includes(choice)) problems.push(`Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`);
		} else if (!isObject(choice) || choice.type !== 'function' || !isObject(choice.function) || !toolNames.has(String(choice.function.name))) {
			problems.push("Invalid value for 'tool_choice': the named function must be one of the tools.");
		}
	}
	if (body.parallel_tool_calls !== undefined && !body.tools) problems.push("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.");
	const messages = body.messages;
	if (!Array.isArray(messages) || messages.length === 0) {
		problems.push("Invalid 'messages': empty array. Expected an array with minimum length 1.");
		return problems;
	}
	let pending: string[] = [];
	messages.forEach((message, i) => {
		if (!isObject(message) || !['system', 'developer', 'user', 'assistant', 'tool'].includes(String(message.role))) {
			problems.push(`Invalid value for 'messages[${i}].role'.`);
			return;
		}
		if (message.role !== 'tool' && pending.length > 0) {
			problems.push(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`);
			pending = [];
		}
		if (message.role === 'assistant') {
			const calls = message.tool_calls;
			if (calls !== undefined) {
				if (!Array.isArray(calls)) problems.push(`Invalid type for 'messages[${i}].tool_calls'.`);
				else
					calls.forEach((call, j) => {
						if (!isObject(call) || call.type !== 'function' || typeof call.id !== 'string' || !isObject(call.function)) problems.push(`Invalid 'messages[${i}].tool_calls[${j}]'.`);
						else if (typeof call.function.arguments !== 'string') problems.push(`Invalid type for 'messages[${i}].tool_calls[${j}].function.arguments': expected a string.`);
						else pending.push(call.id);
					});
			}
			const hasCalls = Array.isArray(calls) && calls.length > 0;
			if ((message.content === null || message.content === undefined) && !hasCalls && !message.refusal) problems.push(`Invalid value for 'messages[${i}].content': expected a string, got null.`);
		} else if (message.role === 'tool') {
			const id = String(message.tool_call_id);
			if (!pending.includes(id)) problems.push(`Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (tool_call_id ${id})`);
			pending = pending.filter((p) => p !== id);
			if (typeof message.content !== 'string' && !Array.isArray(message.content)) problems.push(`Invalid type for 'messages[${i}].content'.`);
		} else if (message.role === 'user') {
			if (typeof message.content !== 'string' && !Array.isArray(message.content)) problems.push(`Invalid type for 'messages[${i}].content'.`);
			if (Array.isArray(message.content)) {
				message.content.forEach((part, j) => {
					if (!isObject(part) || !['text', 'image_url', 'input_audio', 'file'].includes(String(part.type))) problems.push(`Invalid 'messages[${i}].content[${j}].type'.`);
				});
			}
		}
	});
	if (pending.length > 0) problems.push(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`);
	if (isObject(body.response_format)) {
		const format = body.response_format;
		if (format.type === 'json_schema' && (!isObject(format.json_schema) || typeof format.json_schema.name !== 'string')) problems.push("Missing required parameter: 'response_format.json_schema.name'.");
	}
	return problems;
}

/** OpenAI strict mode: every object lists all properties as required and forbids others. */
function strictSchemaProblems(name: string, schema: unknown, path = 'root'): string[] {
	if (!isObject(schema)) return [];
	const problems: string[] = [];
	if (schema.type === 'object' || schema.properties !== undefined) {
		const properties = isObject(schema.properties) ? Object.keys(schema.properties) : [];
		const required = Array.isArray(schema.required) ? schema.required : [];
		if (schema.additionalProperties !== false) problems.push(`Invalid schema for function '${name}': In context=(${path}), 'additionalProperties' is required to be supplied and to be false.`);
		const missing = properties.filter((p) => !required.includes(p));
		if (missing.length > 0) problems.push(`Invalid schema for function '${name}': In context=(${path}), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`);
		for (const key of properties) problems.push(...strictSchemaProblems(name, (schema.properties as Record<string, unknown>)[key], `${path}, 'properties', '${key}'`));
	}
	if (schema.items !== undefined) problems.push(...strictSchemaProblems(name, schema.items, `${path}, 'items'`));
	return problems;
}

function responsesProblems(body: Record<string, unknown>): string[] {
	const problems: string[] = [];
	if (typeof body.model !== 'string' || !body.model) problems.push("Missing required parameter: 'model'.");
	const toolNames = new Set<string>();
	if (body.tools !== undefined) {
		if (!Array.isArray(body.tools)) problems.push("Invalid type for 'tools'.");
		else
			body.tools.forEach((tool, i) => {
				if (!isObject(tool) || tool.type !== 'function' || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
					problems.push(`Invalid 'tools[${i}].name': string does not match pattern.`);
					return;
				}
				toolNames.add(tool.name);
				if (!isObject(tool.parameters) || tool.parameters.type !== 'object') problems.push(`Invalid schema for function '${tool.name}': schema must be a JSON Schema of 'type: "object"'.`);
				if (typeof tool.strict !== 'boolean') problems.push(`Missing required parameter: 'tools[${i}].strict'.`);
				if (tool.strict === true) problems.push(...strictSchemaProblems(tool.name, tool.parameters));
			});
	}
	if (body.tool_choice !== undefined) {
		const choice = body.tool_choice;
		if (typeof choice === 'string') {
			if (!['none', 'auto', 'required'].includes(choice)) problems.push(`Invalid value: '${choice}'.`);
		} else if (!isObject(choice) || choice.type !== 'function' || !toolNames.has(String(choice.name))) {
			problems.push("Invalid value for 'tool_choice': the named function must be one of the tools.");
		}
	}
	const input = body.input;
	if (typeof input === 'string') return problems;
	if (!Array.isArray(input) || input.length === 0) {
		problems.push("Invalid 'input': expected a string or a non-empty array.");
		return problems;
	}
	const calls = new Set<string>();
	const outputs = new Set<string>();
	input.forEach((item, i) => {
		if (!isObject(item)) {
			problems.push(`Invalid 'input[${i}]'.`);
			return;
		}
		const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
		switch (type) {
			case 'message': {
				if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role))) problems.push(`Invalid value for 'input[${i}].role'.`);
				if (typeof item.content !== 'string' && !Array.isArray(item.content)) problems.push(`Invalid type for 'input[${i}].content'.`);
				if (Array.isArray(item.content)) {
					const allowed = item.role === 'assistant' ? ['output_text', 'refusal'] : ['input_text', 'input_image', 'input_file'];
					item.content.forEach((part, j) => {
						if (!isObject(part) || !allowed.includes(String(part.type))) problems.push(`Invalid value for 'input[${i}].content[${j}].type'.`);
					});
				}
				break;
			}
			case 'function_call':
				if (typeof item.call_id !== 'string' || typeof item.name !== 'string') problems.push(`Missing required parameter: 'input[${i}].call_id'.`);
				if (typeof item.arguments !== 'string') problems.push(`Invalid type for 'input[${i}].arguments': expected a string.`);
				calls.add(String(item.call_id));
				break;
			case 'function_call_output':
				if (!calls.has(String(item.call_id))) problems.push(`No tool call found for function call output with call_id ${String(item.call_id)}.`);
				outputs.add(String(item.call_id));
				if (typeof item.output !== 'string' && !Array.isArray(item.output)) problems.push(`Invalid type for 'input[${i}].output'.`);
				break;
			case 'reasoning':
				if (body.store === false && typeof item.encrypted_content !== 'string') problems.push(`Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input. (input[${i}])`);
				break;
			default:
				problems.push(`Invalid value for 'input[${i}].type': '${String(type)}'.`);
		}
	});
	for (const id of calls) if (!outputs.has(id)) problems.push(`No tool output found for function call ${id}.`);
	if (isObject(body.text) && isObject(body.text.format) && body.text.format.type === 'json_schema' && typeof body.text.format.name !== 'string') {
		problems.push("Missing required parameter: 'text.format.name'.");
	}
	return problems;
}

// ---------------------------------------------------------------------------------------------
// Provider-neutral helpers, so one scenario can be scripted (and checked) for every API.

export interface NeutralCall {
	id: string;
	name: string;
	/** An object (sent as the API sends it), or a string sent verbatim as OpenAI's JSON arguments. */
	args: unknown;
}

export interface Replies {
	text(text: string, usage?: FakeUsage): FakeReply;
	toolCalls(calls: NeutralCall[], usage?: FakeUsage, text?: string): FakeReply;
	maxTokens(text: string, usage?: FakeUsage): FakeReply;
	refusal(text: string, usage?: FakeUsage): FakeReply;
}

const argString = (args: unknown) => (typeof args === 'string' ? args : JSON.stringify(args));

export function replies(kind: FakeKind): Replies {
	if (kind === 'anthropic') {
		return {
			text: (text, usage) => anthropicMessage([anthropicText(text)], 'end_turn', usage),
			toolCalls: (calls, usage, text) =>
				anthropicMessage([...(text ? [anthropicText(text)] : []), ...calls.map((c) => anthropicToolUse(c.id, c.name, c.args))], 'tool_use', usage),
			maxTokens: (text, usage) => anthropicMessage([anthropicText(text)], 'max_tokens', usage),
			refusal: (text, usage) => anthropicMessage(text ? [anthropicText(text)] : [], 'refusal', usage),
		};
	}
	if (kind === 'openaiChat') {
		return {
			text: (text, usage) => chatCompletion({ content: text }, 'stop', usage),
			toolCalls: (calls, usage, text) =>
				chatCompletion({ content: text ?? null, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: argString(c.args) })) }, 'tool_calls', usage),
			maxTokens: (text, usage) => chatCompletion({ content: text }, 'length', usage),
			refusal: (text, usage) => chatCompletion({ content: null, refusal: text }, 'stop', usage),
		};
	}
	return {
		text: (text, usage) => responsesResponse([responsesMessage(text)], usage),
		toolCalls: (calls, usage, text) =>
			responsesResponse([...(text ? [responsesMessage(text)] : []), ...calls.map((c) => responsesFunctionCall(c.id, c.name, argString(c.args)))], usage),
		maxTokens: (text, usage) => responsesResponse([responsesMessage(text)], usage, { status: 'incomplete', incompleteReason: 'max_output_tokens' }),
		refusal: (text, usage) => responsesResponse([responsesRefusal(text)], usage),
	};
}

export interface SeenToolResult {
	id: string;
	isError: boolean;
	/** The result text; OpenAI's "Error: " marker is removed (it is reported as isError). */
	text: string;
}

/** Every tool result in a request's conversation, in order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toolResultsIn(kind: FakeKind, body: any): SeenToolResult[] {
	const unmark = (text: string) => (text.startsWith('Error: ') ? { isError: true, text: text.slice('Error: '.length) } : { isError: false, text });
	if (kind === 'anthropic') {
		const results: SeenToolResult[] = [];
		for (const message of body.messages ?? []) {
			if (message.role !== 'user' || !Array.isArray(message.content)) continue;
			for (const block of message.content) {
				if (block.type !== 'tool_result') continue;
				const text =
					typeof block.content === 'string'
						? block.content
						: (block.content ?? []).filter((p: { type: string }) => p.type === 'text').map((p: { text: string }) => p.text).join('');
				results.push({ id: block.tool_use_id, isError: block.is_error === true, text });
			}
		}
		return results;
	}
	if (kind === 'openaiChat') {
		return (body.messages ?? [])
			.filter((m: { role: string }) => m.role === 'tool')
			.map((m: { tool_call_id: string; content: string }) => ({ id: m.tool_call_id, ...unmark(String(m.content)) }));
	}
	return (body.input ?? [])
		.filter((item: { type?: string }) => item.type === 'function_call_output')
		.map((item: { call_id: string; output: unknown }) => {
			const text = typeof item.output === 'string' ? item.output : (item.output as Array<{ type: string; text?: string }>).filter((p) => p.type === 'input_text').map((p) => p.text).join('');
			return { id: item.call_id, ...unmark(text) };
		});
}

/** Names of the tools offered in a request. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toolNamesIn(kind: FakeKind, body: any): string[] {
	const tools: Array<Record<string, any>> = body.tools ?? [];
	if (kind === 'openaiChat') return tools.map((t) => t.function.name);
	return tools.map((t) => t.name);
}

/** The conversation part of a request (Anthropic/Chat messages, Responses input). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function conversationIn(kind: FakeKind, body: any): any[] {
	return kind === 'openaiResponses' ? body.input : body.messages;
}
