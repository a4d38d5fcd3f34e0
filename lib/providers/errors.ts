import { ORIGINAL_WAIT } from './modelFetch';
import { AnswerTooLarge } from '../mcp/streamLimits';
import { refusalIn } from '../mcp/urlPolicy';
import type { Redactor } from '../mcp/secrets';
import { hasMarker, McpAgentError } from '../errors';

const NO_SECRETS = (text: string) => text;

const PROVIDER_MARKER = Symbol.for('n8n-nodes-mcp-agent.error.ProviderError');

/**
 * Provider SDK errors explained for a person. Status codes come from the SDKs' APIError; a
 * context overflow is not an error for the run, it ends it with status context_exceeded.
 */
export class ProviderError extends McpAgentError {
	readonly [PROVIDER_MARKER] = true;

	constructor(
		message: string,
		status?: number,
		/** From a 429's (or 503's) retry-after / retry-after-ms header: how long the provider asked to wait. */
		readonly retryAfterSeconds?: number,
		/** What to do about it (the wait a 429 asked for is added by itself). */
		description?: string,
	) {
		const advice = [description, retryAfterDescription(retryAfterSeconds)].filter((part): part is string => Boolean(part)).join(' ');
		super(message, { code: 'remote', ...(status !== undefined ? { httpStatus: status } : {}), ...(advice ? { description: advice } : {}) });
		this.name = 'ProviderError';
	}

	/** The provider's HTTP status (the family's httpStatus, under the name the SDKs use). */
	get status(): number | undefined {
		return this.httpStatus;
	}

	static isInstance(error: unknown): error is ProviderError {
		return hasMarker(error, PROVIDER_MARKER);
	}
}

/** A 429's wait, said the way a workflow builder can act on it (Retry On Fail, Max Retries). */
function retryAfterDescription(wait: number | undefined): string | undefined {
	if (wait === undefined) return undefined;
	return `The provider asked to wait ${wait} s before retrying. With Retry On Fail, set Wait Between Tries to at least ${wait * 1000} ms; raise Max Retries to let the Agent wait and retry by itself.`;
}

/** A ProviderError's description without the retry-after advice its constructor adds again. */
function ownAdvice(error: ProviderError): string | undefined {
	const wait = retryAfterDescription(error.retryAfterSeconds);
	const own = wait && error.description?.endsWith(wait) ? error.description.slice(0, -wait.length).trim() : error.description;
	return own || undefined;
}

function header(error: unknown, name: string): string | undefined {
	const headers = (error as { headers?: unknown })?.headers;
	if (!headers || typeof headers !== 'object') return undefined;
	const value = typeof (headers as Headers).get === 'function' ? (headers as Headers).get(name) : (headers as Record<string, unknown>)[name];
	return typeof value === 'string' ? value : undefined;
}

/** retry-after-ms, else retry-after in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(error: unknown, now = Date.now()): number | undefined {
	// The server's own values when modelFetch shortened them for the SDK's retries.
	const ms = Number.parseFloat(header(error, ORIGINAL_WAIT.ms) ?? header(error, 'retry-after-ms') ?? '');
	if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
	const raw = header(error, ORIGINAL_WAIT.seconds) ?? header(error, 'retry-after');
	if (raw === undefined) return undefined;
	const seconds = Number(raw.trim());
	if (raw.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
	const date = Date.parse(raw);
	return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function statusOf(error: unknown): number | undefined {
	const status = (error as { status?: unknown })?.status;
	return typeof status === 'number' ? status : undefined;
}

function bodyMessage(error: unknown): string {
	const e = error as { error?: { error?: { message?: string }; message?: string }; message?: string };
	return e?.error?.error?.message ?? e?.error?.message ?? e?.message ?? String(error);
}

export function isContextOverflow(error: unknown): boolean {
	if (statusOf(error) !== 400) return false;
	const e = error as { code?: unknown; error?: { code?: unknown; error?: { code?: unknown } } };
	const code = e?.code ?? e?.error?.code ?? e?.error?.error?.code;
	return code === 'context_length_exceeded' || /prompt is too long|context window|context length|maximum context/i.test(bodyMessage(error));
}

/**
 * `redactor` holds the credential's API key: SDK errors and proxies can quote it ("Incorrect API
 * key provided: sk-...", a URL with the key), so it is removed before the text is cut or shown.
 */
export function explainProviderError(error: unknown, provider: string, redactor?: Redactor): ProviderError {
	const redact = redactor?.active ? redactor.text : NO_SECRETS;
	if (ProviderError.isInstance(error)) {
		const message = redact(error.message);
		return message === error.message ? error : new ProviderError(message, error.status, error.retryAfterSeconds, ownAdvice(error));
	}
	// An answer cut for its size (modelFetch): the SDK reports it as a connection error, its cause says why.
	const cause = (error as { cause?: unknown })?.cause;
	if (cause instanceof AnswerTooLarge) return new ProviderError(`${provider}: ${cause.message}`);
	// A redirect the URL policy refused (modelFetch): its message names the host and the reason, its description what to do.
	const refused = refusalIn(error);
	if (refused) return new ProviderError(`${provider}: ${refused.message} ${refused.description ?? ''}`.trim());
	// Our own findings about the answer (a stream past its bound, malformed or cut short): named with the provider, their advice kept.
	if (McpAgentError.isInstance(error)) return new ProviderError(`${provider}: ${redact(error.message)}`, error.httpStatus, undefined, error.description);
	const status = statusOf(error);
	const detail = redact(bodyMessage(error)).replace(/\s+/g, ' ').slice(0, 400);
	const name = (error as Error)?.name ?? '';
	if (status === 401) return new ProviderError(`${provider} rejected the API key (401 Unauthorized). Check the API key in the credential.`, status);
	if (status === 403) return new ProviderError(`${provider} refused the request (403 Forbidden): ${detail}`, status);
	if (status === 404) return new ProviderError(`${provider} answered 404: ${detail}. Check the model name and the base URL.`, status);
	const wait = status === 429 || status === 503 ? retryAfterSeconds(error) : undefined;
	const asked = wait !== undefined ? ` (it asked to retry after ${wait} s)` : '';
	if (status === 429) return new ProviderError(`${provider} is rate limiting requests (429) and retries ran out${asked}: ${detail}`, status, wait);
	if (status !== undefined && status >= 500) return new ProviderError(`${provider} had a server error (${status}) and retries ran out${asked}: ${detail}`, status, wait);
	if (status !== undefined) return new ProviderError(`${provider} rejected the request (${status}): ${detail}`, status);
	if (/APIConnectionError|APIConnectionTimeoutError/.test(name) || /Connection error|ECONNREFUSED|timed out/i.test(detail)) {
		return new ProviderError(`Could not reach ${provider}: ${detail}. Check the base URL and the network.`);
	}
	return new ProviderError(`${provider} request failed: ${detail}`);
}
