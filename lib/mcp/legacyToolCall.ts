import type { CallToolRequestParams, Client, RequestOptions, StandardSchemaV1, Tool } from '@modelcontextprotocol/client';

/**
 * tools/call on a 2025-era session without Client.callTool's per-call work, validated exactly as
 * callTool validates it. On such a session callTool adds nothing we use: it compiles an output
 * validator from the definition we pass (which has no output schema: checkToolOutput checks
 * results), mirrors no headers (2026-07-28 only), and hands the request to `request()` without a
 * result schema, which then probes the era's validator with `undefined` on every call (a zod error
 * built and printed) before using it. Together about 13 µs a call: against an in-process server,
 * 70 µs per callTool and 56 µs per request() with a result schema, about what the 1.x client's
 * callTool costs (the Agent's host overhead against the raw 1.x SDK loop went from 1.22× to
 * 1.11–1.15×).
 *
 * The result schema given to `request()` here is the session's own wire validator: the client's
 * negotiated codec, reached through its internal `_resolveOutboundCodec` (the SDK version is
 * pinned; test/unit/legacyToolCall.test.ts fails if that changes). Without it, callTool is used.
 */

interface WireCodec {
	validateResult(method: string, value: unknown): { ok: true; value: unknown } | { ok: false; reason: string; message?: string };
}

interface CodecHolder {
	_resolveOutboundCodec?: (method: string) => WireCodec | undefined;
}

/** One validator per client: a session's codec is fixed once negotiated (a new session is a new client). */
const validators = new WeakMap<Client, StandardSchemaV1 | null>();

/** The session's tools/call result validator as a Standard Schema, or null when the client does not expose its codec. */
export function toolResultValidator(client: Client): StandardSchemaV1 | null {
	let validator = validators.get(client);
	if (validator !== undefined) return validator;
	const codec = (client as unknown as CodecHolder)._resolveOutboundCodec?.('tools/call');
	validator = codec && typeof codec.validateResult === 'function' ? wrap(codec) : null;
	validators.set(client, validator);
	return validator;
}

function wrap(codec: WireCodec): StandardSchemaV1 {
	return {
		'~standard': {
			version: 1,
			vendor: 'n8n-nodes-mcp-agent',
			validate(value: unknown) {
				const outcome = codec.validateResult('tools/call', value);
				if (outcome.ok) return { value: outcome.value };
				return { issues: [{ message: outcome.reason === 'invalid' ? String(outcome.message) : 'tools/call is not a method of this protocol version' }] };
			},
		},
	};
}

/**
 * tools/call on a 2025-era session (see above). `options` are the request's (timeout, signal,
 * progress); `toolDefinition` only serves the callTool fallback (it spares callTool's look-up).
 */
export function callToolOnLegacySession(
	client: Client,
	params: CallToolRequestParams,
	options: RequestOptions,
	toolDefinition: Tool | undefined,
): Promise<Record<string, unknown>> {
	const validator = toolResultValidator(client);
	if (!validator) return client.callTool(params, toolDefinition ? { ...options, toolDefinition } : options) as Promise<Record<string, unknown>>;
	return client.request({ method: 'tools/call', params }, validator, options) as Promise<Record<string, unknown>>;
}
