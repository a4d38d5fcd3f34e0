import {
	AuthorizationServerMismatchError,
	InsecureTokenEndpointError,
	InsufficientScopeError,
	IssuerMismatchError,
	OAuthClientFlowError,
	OAuthError,
	ProtocolError,
	SdkError,
	SdkErrorCode,
	UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { McpServerConfig } from './serverConfig';
import { describeServer, redactorForServer, type Redactor } from './secrets';
import type { McpAuth } from './oauth/types';
import { howToAskForScope } from './oauth/scopeAdvice';
import type { McpFailureKind } from './failureKind';
import { hasMarker, McpAgentError } from '../errors';

/**
 * An MCP failure explained for a person: what went wrong and where (`message`), what to do about it
 * (`description`, when there is advice), and for local commands what the server last wrote to stderr
 * (`serverOutput`, kept out of the message: it is the server's text, not ours). `kind` lets callers
 * and tests branch without parsing text.
 */
export type { McpFailureKind };

/** A JSON-RPC error the server answered with: its own code, message and data (redacted). */
export interface ServerErrorAnswer {
	code: number;
	message: string;
	data?: unknown;
}

const FAILURE_MARKER = Symbol.for('n8n-nodes-mcp-agent.error.McpFailure');

export class McpFailure extends McpAgentError {
	readonly [FAILURE_MARKER] = true;

	constructor(
		message: string,
		readonly kind: McpFailureKind,
		/** The tail of a local server's stderr (redacted); shown apart from the message (failureDetails). */
		readonly serverOutput?: string,
		httpStatus?: number,
		/** What to do about it. */
		description?: string,
		/**
		 * Set when the server itself answered the request with a JSON-RPC error over a working
		 * connection (a bad query, unknown parameters); never for timeouts, transport, auth or
		 * process failures. MCP Call Tool's "On Tool Error: Return as Data" outputs it as an item.
		 */
		readonly serverError?: ServerErrorAnswer,
	) {
		super(message, {
			// A server that is disabled here or a credential that does not parse is the user's to fix; the rest happened on the remote side.
			code: kind === 'config' || kind === 'disabled' ? 'config' : 'remote',
			...(httpStatus !== undefined ? { httpStatus } : {}),
			...(description !== undefined ? { description } : {}),
		});
		this.name = 'McpFailure';
	}

	/** The message (the server output is never part of it); kept for the callers that read `summary`. */
	get summary(): string {
		return this.message;
	}

	static isInstance(error: unknown): error is McpFailure {
		return hasMarker(error, FAILURE_MARKER);
	}
}

/** How the server output is introduced wherever it is shown. */
const SERVER_OUTPUT_HEADING = 'Last output of the server:';

/**
 * What n8n shows under a failure's message: its advice, then the server's last output under its
 * own heading; undefined when there is neither.
 */
export function failureDetails(failure: Pick<McpFailure, 'description' | 'serverOutput'>): string | undefined {
	const parts = [failure.description, failure.serverOutput ? `${SERVER_OUTPUT_HEADING}\n${failure.serverOutput}` : undefined].filter((part): part is string => Boolean(part));
	return parts.length ? parts.join('\n\n') : undefined;
}

/** The message with the server output after it, for the one place that has a single text field (the credential Test button). */
export function messageWithServerOutput(failure: McpFailure): string {
	return failure.serverOutput ? `${failure.message}\n\n${SERVER_OUTPUT_HEADING}\n${failure.serverOutput}` : failure.message;
}

interface Causal {
	code?: unknown;
	cause?: unknown;
	message?: unknown;
}

function errorChain(error: unknown): Causal[] {
	const chain: Causal[] = [];
	let current: unknown = error;
	while (current && typeof current === 'object' && chain.length < 6) {
		chain.push(current as Causal);
		current = (current as Causal).cause;
	}
	return chain;
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|EPROTO$)/;
const NETWORK_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']);

/**
 * Turns anything thrown while connecting or talking to a server into an McpFailure. `phase` says
 * what we were doing ("connecting", "calling tool echo"); `serverOutput` is the stderr tail;
 * `serverName` the name the server gave in its handshake, when it got that far.
 */
export function explainMcpError(
	error: unknown,
	config: McpServerConfig,
	phase: string,
	serverOutput?: string,
	exitDescription?: string,
	serverName?: string,
): McpFailure {
	const redactor = redactorForServer(config);
	// Our own failures may come back wrapped by the client (an OAuth refresh failing inside the
	// transport, a connect that wraps its cause): the innermost explanation is the useful one.
	const own = ownFailureIn(error);
	if (own) return redactor.active ? redactFailure(own, redactor) : own;
	const failure = explainUnredacted(error, config, phase, redactor.text, serverOutput, exitDescription, serverName);
	// The inputs were redacted before being cut or joined (a cut secret no longer matches); this
	// second pass covers anything else that reached the message.
	return redactor.active ? redactFailure(failure, redactor) : failure;
}

function ownFailureIn(error: unknown): McpFailure | undefined {
	let current: unknown = error;
	for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
		if (McpFailure.isInstance(current)) return current;
		current = (current as Causal).cause;
	}
	return undefined;
}

/**
 * The same failure with every secret of the server's configuration removed from its message and
 * server output; the same object when nothing had to change.
 */
export function redactFailure(failure: McpFailure, redactor: Redactor): McpFailure {
	const message = redactor.text(failure.message);
	const output = failure.serverOutput === undefined ? undefined : redactor.text(failure.serverOutput);
	const description = failure.description === undefined ? undefined : redactor.text(failure.description);
	const serverError = failure.serverError && redactor.value(failure.serverError);
	if (message === failure.message && output === failure.serverOutput && description === failure.description && serverError === failure.serverError) return failure;
	return new McpFailure(message, failure.kind, output, failure.httpStatus, description, serverError);
}

function explainUnredacted(
	error: unknown,
	config: McpServerConfig,
	phase: string,
	redact: (text: string) => string,
	rawServerOutput?: string,
	rawExitDescription?: string,
	serverName?: string,
): McpFailure {
	const where = describeServer(config, serverName);
	const serverOutput = rawServerOutput === undefined ? undefined : redact(rawServerOutput);
	const exitDescription = rawExitDescription === undefined ? undefined : redact(rawExitDescription);
	const output = serverOutput?.trim() ? serverOutput : undefined;
	const chain = errorChain(error);
	const codes = chain.map((e) => (typeof e.code === 'string' || typeof e.code === 'number' ? e.code : undefined));
	const firstMessage = redact(chain.length ? String(chain[0].message ?? error) : String(error));
	const name = error instanceof Error ? error.name : '';

	// Before exitDescription: a failed spawn sets both, and it must stay 'spawn-failed'.
	if (name === 'ProcessExitError') {
		const kind = /not found|not executable|could not start/.test(firstMessage) ? 'spawn-failed' : 'process-exited';
		return new McpFailure(`MCP server ${where} failed while ${phase}: ${firstMessage}.`, kind, output);
	}
	if (exitDescription) {
		return new McpFailure(`MCP server ${where} stopped while ${phase}: ${exitDescription}.`, 'process-exited', output);
	}
	// The v2 client's own errors carry string codes too (ERA_NEGOTIATION_FAILED), ahead of the
	// network error they wrap: look for the system and TLS codes anywhere in the chain.
	const stringCodes = codes.filter((c): c is string => typeof c === 'string');
	const stringCode = stringCodes.find((c) => NETWORK_CODES.has(c) || TLS_CODES.test(c));
	if (stringCode === 'ENOTFOUND' || stringCode === 'EAI_AGAIN') {
		const host = safeHost(config);
		return new McpFailure(`Could not resolve host "${host}" while ${phase} (DNS lookup failed). Check the URL in the credential.`, 'dns', output);
	}
	if (stringCode === 'ECONNREFUSED') {
		return new McpFailure(`Connection refused by ${where} while ${phase}. Is the server running and listening on that address and port?`, 'refused', output);
	}
	if (stringCode === 'ECONNRESET' || stringCode === 'UND_ERR_SOCKET') {
		return new McpFailure(`The connection to ${where} was closed by the server while ${phase}.`, 'protocol', output);
	}
	if (stringCode && TLS_CODES.test(stringCode)) {
		return new McpFailure(`TLS error talking to ${where} while ${phase}: ${stringCode}. The server's certificate is not trusted by n8n (set NODE_EXTRA_CA_CERTS for a private CA).`, 'tls', output);
	}
	if (config.kind === 'http') {
		const oauth = explainOAuthError(error, config.auth, where, phase);
		if (oauth) return new McpFailure(redact(oauth.message), oauth.kind, output, oauth.httpStatus);
	}
	const status = httpStatusOf(error);
	if (status === 401 && config.kind === 'http' && config.auth) {
		return new McpFailure(`${where} answered 401 Unauthorized while ${phase}: the OAuth access token was refused. ${config.auth.remedy}`, 'reconnect', output, 401);
	}
	if (status === 401) {
		return new McpFailure(`${where} answered 401 Unauthorized while ${phase}: the token or headers in the credential were rejected or are missing.`, 'unauthorized', output, 401);
	}
	if (status === 403) {
		return new McpFailure(`${where} answered 403 Forbidden while ${phase}: the credential is valid but not allowed to do this.`, 'forbidden', output, 403);
	}
	if (status === 404 || status === 405 || /Unexpected content type/i.test(firstMessage)) {
		return new McpFailure(`${where} does not look like an MCP endpoint (${status ? `HTTP ${status}` : firstMessage}) while ${phase}. Check the URL path (often /mcp or /sse) and the transport in the credential.`, 'not-mcp', output, status);
	}
	if (status !== undefined && status > 0) {
		const body = httpBodyOf(error);
		const detail = body && !firstMessage.includes(body) ? `${firstMessage}: ${redact(body)}` : firstMessage;
		return new McpFailure(`${where} answered HTTP ${status} while ${phase}: ${trimDetail(detail)}`, 'http-status', output, status);
	}
	const local = localSdkFailure(error);
	if (local === 'timeout') {
		const maxTotal = maxTotalTimeoutOf(error);
		if (maxTotal !== undefined) {
			return new McpFailure(
				`MCP server ${where} kept sending progress but did not finish within the maximum total time of ${formatSeconds(maxTotal)} while ${phase}.`,
				'timeout',
				output,
				undefined,
				'Progress notifications restart the timeout (Reset Timeout on Progress), but never beyond this maximum (ten times the timeout). Raise the timeout if the tool needs longer.',
			);
		}
		return new McpFailure(`MCP server ${where} did not answer in time while ${phase}.`, 'timeout', output);
	}
	if (local === 'closed') {
		return new McpFailure(`The connection to MCP server ${where} closed while ${phase}.`, 'protocol', output);
	}
	if (isJsonRpcError(error)) {
		return new McpFailure(`MCP server ${where} returned an error while ${phase}: ${trimDetail(redact((error as Error).message))}`, 'protocol', output, undefined, undefined, serverErrorOf(error));
	}
	if (name === 'SyntaxError' || /JSON/.test(firstMessage)) {
		return new McpFailure(`${where} sent a reply that is not valid MCP JSON while ${phase}: ${trimDetail(firstMessage)}`, 'not-mcp', output);
	}
	// "fetch failed" says nothing by itself; its causes say why.
	const causes = chain.slice(1).map((e) => redact(String(e.message ?? ''))).filter((m) => m && m !== firstMessage);
	const detail = causes.length ? `${firstMessage} (${causes.join(': ')})` : firstMessage;
	// Our own findings about what the server sent (a repeated cursor, an unreadable content coding) say what to do.
	const finding = chain.find((e): e is McpAgentError => McpAgentError.isInstance(e));
	const advice = finding?.description !== undefined ? redact(finding.description) : undefined;
	return new McpFailure(`Error talking to MCP server ${where} while ${phase}: ${trimDetail(detail)}`, 'unknown', output, undefined, advice);
}

/** The server's own code, message and data of a JSON-RPC error (secrets are removed with the failure's). */
function serverErrorOf(error: unknown): ServerErrorAnswer {
	const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
	return {
		code: typeof code === 'number' ? code : 0,
		// The SDK prefixes "MCP error <code>: " to the server's words.
		message: String(message ?? '').replace(/^MCP error -?\d+: /, ''),
		...(data !== undefined ? { data } : {}),
	};
}

/** JSON-RPC error codes of the 2025 SDK (v1 McpError) for the same two local conditions. */
const V1_REQUEST_TIMEOUT = -32001;
const V1_CONNECTION_CLOSED = -32000;

/**
 * Timeouts and closed connections, as the v2 client reports them (SdkError with a string code) or
 * as the v1 SDK did (McpError with a JSON-RPC code), for errors from code still on v1.
 */
function localSdkFailure(error: unknown): 'timeout' | 'closed' | undefined {
	if (error instanceof SdkError) {
		if (error.code === SdkErrorCode.RequestTimeout) return 'timeout';
		if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) return 'closed';
		return undefined;
	}
	if (isV1McpError(error)) {
		const code = (error as { code: number }).code;
		if (code === V1_REQUEST_TIMEOUT) return 'timeout';
		if (code === V1_CONNECTION_CLOSED) return 'closed';
	}
	return undefined;
}

/** The SDK's "Maximum total timeout exceeded": its limit in ms, else undefined. */
function maxTotalTimeoutOf(error: unknown): number | undefined {
	if (!(error instanceof SdkError)) return undefined;
	const data = error.data as { maxTotalTimeout?: unknown } | undefined;
	return typeof data?.maxTotalTimeout === 'number' ? data.maxTotalTimeout : undefined;
}

function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

function isV1McpError(error: unknown): boolean {
	return error instanceof Error && error.name === 'McpError' && typeof (error as { code?: unknown }).code === 'number';
}

/** An error answer that arrived over a working connection (the server's own words). */
function isJsonRpcError(error: unknown): boolean {
	return error instanceof ProtocolError || isV1McpError(error);
}

/**
 * An error the server itself answered with (a JSON-RPC error, an answer that failed our checks), not
 * a timeout or a closed connection: the connection it came over still works.
 */
export function answeredByServer(error: unknown): boolean {
	return isJsonRpcError(error) && localSdkFailure(error) === undefined;
}

/**
 * The HTTP status behind a transport failure: the v2 client's SdkHttpError (`status`), SseError
 * (`code`), the v1 SDK's StreamableHTTPError / SseError (`code`), or a status in the message.
 */
export function httpStatusOf(error: unknown): number | undefined {
	if (!error || typeof error !== 'object') return undefined;
	// A JSON-RPC error arrived over a working connection; an HTTP status in its text (an upstream
	// API's "status code 404") is not ours, and must not trigger the expired-session retry.
	if (isJsonRpcError(error)) return undefined;
	const status = (error as { status?: unknown; data?: { status?: unknown } }).data?.status;
	if (error instanceof SdkError && typeof status === 'number' && status > 0) return status;
	const name = (error as Error).name ?? '';
	const ctor = (error as object).constructor?.name ?? '';
	const code = (error as Causal).code;
	if ((/StreamableHTTPError|SseError/.test(name) || /StreamableHTTPError|SseError/.test(ctor)) && typeof code === 'number' && code > 0) return code;
	const match = /\b(?:HTTP|status(?: code)?|Non-200 status code \()\s*:?\s*(\d{3})\b/i.exec(String((error as Error).message ?? ''));
	return match ? Number(match[1]) : undefined;
}

/** The response body the v2 client keeps on an HTTP error (`data.text`), where the server explains itself. */
function httpBodyOf(error: unknown): string | undefined {
	if (!(error instanceof SdkError)) return undefined;
	const text = (error.data as { text?: unknown } | undefined)?.text;
	return typeof text === 'string' && text.trim() ? text.trim() : undefined;
}

function safeHost(config: McpServerConfig): string {
	if (config.kind !== 'http') return config.command;
	try {
		return new URL(config.url).hostname;
	} catch {
		return '(invalid URL)';
	}
}

function trimDetail(text: string): string {
	const oneLine = text.replace(/\s+/g, ' ').trim();
	return oneLine.length > 400 ? `${oneLine.slice(0, 400)}…` : oneLine;
}

/**
 * OAuth failures explained for a person, from what the v2 client throws: what was refused, by
 * whom, and what to do. Server-supplied text (a challenge's scope, an `iss`) is attacker-
 * controllable: only values that fit the OAuth grammar are repeated, never free text.
 */
export interface OAuthExplanation {
	message: string;
	kind: McpFailureKind;
	httpStatus?: number;
}

/** RFC 6749 §3.3 scope tokens, space-separated; anything else is not repeated. */
function safeScope(scope: string | undefined): string | undefined {
	if (!scope) return undefined;
	const trimmed = scope.trim();
	return trimmed.length <= 300 && /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(trimmed) ? trimmed : undefined;
}

function scopeAdvice(auth: McpAuth | undefined, scope: string | undefined): string {
	const named = scope ? `"${scope}"` : 'the scope it names';
	if (auth?.kind === 'client-credentials') {
		return `Add ${named} to Scope in the credential, and make sure the authorization server allows it for this client.`;
	}
	return `A person has to approve more access: ${howToAskForScope(named, auth?.registration)}.`;
}

/** The first error in the cause chain that `test` accepts. */
function findInChain<T>(error: unknown, test: (candidate: unknown) => candidate is T): T | undefined {
	let current: unknown = error;
	for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
		if (test(current)) return current;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

export function explainOAuthError(error: unknown, auth: McpAuth | undefined, where: string, phase: string): OAuthExplanation | undefined {
	const remedy = auth?.remedy ?? 'Check the credential.';
	const scopeError = findInChain(error, (e): e is InsufficientScopeError => e instanceof InsufficientScopeError);
	if (scopeError) {
		const scope = safeScope(scopeError.requiredScope);
		return {
			message: `${where} answered 403 insufficient_scope while ${phase}: the access token lacks ${scope ? `the scope "${scope}"` : 'a scope the server requires'}. ${scopeAdvice(auth, scope)}`,
			kind: 'insufficient-scope',
			httpStatus: 403,
		};
	}
	const issuerError = findInChain(error, (e): e is IssuerMismatchError => e instanceof IssuerMismatchError);
	if (issuerError) {
		const what =
			issuerError.kind === 'metadata'
				? 'its metadata names an issuer other than the address it was fetched from'
				: 'the authorization response did not come from the expected issuer (RFC 9207 iss check)';
		return { message: `The authorization server of ${where} failed the issuer check while ${phase}: ${what}. Nothing was sent to its token endpoint.`, kind: 'oauth' };
	}
	const serverMismatch = findInChain(error, (e): e is AuthorizationServerMismatchError => e instanceof AuthorizationServerMismatchError);
	if (serverMismatch) {
		return { message: `${where} now names a different authorization server than the one this credential was authorized with (while ${phase}). ${remedy}`, kind: 'reconnect' };
	}
	const insecure = findInChain(error, (e): e is InsecureTokenEndpointError => e instanceof InsecureTokenEndpointError);
	if (insecure) {
		return { message: `The token endpoint of ${where}'s authorization server does not use https (while ${phase}); credentials are not sent there.`, kind: 'oauth' };
	}
	const oauthError = findInChain(error, (e): e is OAuthError => e instanceof OAuthError);
	if (oauthError) {
		const code = /^[a-z_]{1,64}$/.test(String(oauthError.code)) ? String(oauthError.code) : 'an error';
		const kind = code === 'invalid_grant' && auth?.kind !== 'client-credentials' ? 'reconnect' : 'oauth';
		return { message: `The authorization server of ${where} refused the token request with ${code} while ${phase}. ${remedy}`, kind };
	}
	const secondRefusal = findInChain(error, (e): e is SdkError => e instanceof SdkError && e.code === SdkErrorCode.ClientHttpAuthentication);
	if (secondRefusal && auth) {
		return { message: `${where} answered 401 Unauthorized again after the access token was renewed, while ${phase}. ${remedy}`, kind: 'reconnect', httpStatus: 401 };
	}
	if (auth && findInChain(error, (e): e is UnauthorizedError => e instanceof UnauthorizedError)) {
		return { message: `${where} requires an authorization that this credential does not hold (while ${phase}). ${remedy}`, kind: 'reconnect', httpStatus: 401 };
	}
	const flowError = findInChain(error, (e): e is OAuthClientFlowError => e instanceof OAuthClientFlowError);
	if (flowError) {
		return { message: `OAuth with ${where} failed while ${phase}: ${flowError.message}`, kind: 'oauth' };
	}
	return undefined;
}
