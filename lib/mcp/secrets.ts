import type { McpServerConfig } from './serverConfig';

// Linear time (issue 25): the patterns here are character classes, literals, `\s+` runs and one
// anchored `^(\S+)\s+(\S.*)$` over a credential value; none can backtrack over more than a run.

/**
 * The one place that knows which values of a configuration are secrets and removes them from text
 * that leaves the package (error messages, stderr tails, tool results and listings, provider
 * errors). Redaction is by value: whatever a server, an SDK or a library echoes, the secret itself
 * is what we look for, in the forms it commonly takes when echoed.
 *
 * What counts as a secret:
 * - HTTP: header values (the bearer token included; not settings such as Accept or *-Version,
 *   see customHeaderSecrets), and the credential part after an auth scheme ("Bearer x" -> "x";
 *   "Basic b64" -> the decoded "user:pass" and the password);
 *   with OAuth, every access and refresh token the connection has held, the client secret and
 *   the private key (lib/mcp/oauth, `McpAuth.secrets`), also after a refresh replaced them;
 *   in the URL, the user-info password, path segments that look like tokens (see
 *   `looksLikeToken`), and query values whose name suggests a credential or that look like tokens.
 * - Local command: every Secret Environment Variables value (`secretEnvNames`, which the
 *   credential always sets), plus plain environment values that look like a credential (see
 *   looksLikeCredentialVariable).
 * - Providers: the API key, and the secret parts of the base URL.
 * Values shorter than MIN_SECRET_LENGTH are ignored: replacing "1" or "on" everywhere would wreck
 * the text and protect nothing.
 */
export const REDACTED = '[redacted]';
export const MIN_SECRET_LENGTH = 4;

export interface Redactor {
	/** False when there is nothing to redact: callers skip the work entirely. */
	readonly active: boolean;
	/** The text with every secret (and its encodings) replaced by REDACTED. */
	text(value: string): string;
	/**
	 * Deep redaction of JSON-like data (strings, arrays, plain objects, keys included). Returns the
	 * same object when nothing matched, and copies only the branches that changed otherwise.
	 */
	value<T>(value: T): T;
}

const INACTIVE: Redactor = { active: false, text: (value) => value, value: (value) => value };

/**
 * Path segments and query values "look like tokens" when they carry a well-known key prefix
 * (sk-, ghp_, xoxb-, glpat-, AKIA, AIza, hf_, ...) or are at least `minLength` characters of
 * token characters mixing letters and digits (API keys, UUIDs, JWT parts). Ordinary path words
 * ("mcp", "v1", "sse", "my-server") never match.
 */
const KEY_PREFIX = /^(?:sk|pk|rk)[-_]|^gh[pousr]_|^github_pat_|^xox[a-z]-|^glpat-|^AKIA|^AIza|^hf_|^ya29\.|^eyJ/;
const TOKEN_CHARS = /^[A-Za-z0-9._~+/=-]+$/;

export function looksLikeToken(value: string, minLength = 16): boolean {
	if (value.length >= 8 && KEY_PREFIX.test(value)) return true;
	return value.length >= minLength && TOKEN_CHARS.test(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value);
}

/** Query parameters whose name says they carry a credential, whatever their value looks like. */
const SECRET_NAME = /key|token|secret|pass|pwd|auth|sig|session|credential|jwt|bearer|code/i;

function decoded(part: string): string {
	try {
		return decodeURIComponent(part);
	} catch {
		return part;
	}
}

/** The secret parts of a URL: password (and a user name that stands for a token), token-like path segments, credential-like query values. */
export function urlSecrets(raw: string): string[] {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		// Not a URL we can take apart: the whole text is all we can protect.
		return raw.trim() ? [raw.trim()] : [];
	}
	const secrets: string[] = [];
	// A user name alone, or one that looks like a token, is a token put where a user name goes.
	if (url.username && (!url.password || looksLikeToken(decoded(url.username)))) secrets.push(url.username, decoded(url.username));
	if (url.password) {
		secrets.push(url.password, decoded(url.password));
		secrets.push(Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`).toString('base64'));
	}
	for (const segment of url.pathname.split('/')) {
		if (looksLikeToken(decoded(segment))) secrets.push(segment, decoded(segment));
	}
	for (const [name, value] of url.searchParams) {
		if (SECRET_NAME.test(name) || looksLikeToken(value, 8)) secrets.push(value);
	}
	return secrets;
}

/**
 * A secret-free label for a URL: scheme, host, port and path, with token-looking path segments
 * replaced; never the user-info, the query or the fragment.
 */
export function describeUrl(raw: string): string {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return '(invalid URL)';
	}
	const path = url.pathname
		.split('/')
		.map((segment) => (looksLikeToken(decoded(segment)) ? REDACTED : segment))
		.join('/');
	return `${url.protocol}//${url.host}${path}`;
}

/** A name a server gave itself (`serverInfo.name`), fit to quote in one line, or undefined. */
function quotableName(name: string | undefined): string | undefined {
	const oneLine = name?.replace(/[\s"]+/g, ' ').trim();
	if (!oneLine) return undefined;
	return oneLine.length > 80 ? `${oneLine.slice(0, 80)}…` : oneLine;
}

/**
 * A short, secret-free label for messages. A URL: scheme, host, port and path (token-looking
 * segments replaced, describeUrl), never user-info or query. A local command: the server's own
 * name (`serverName`, once the handshake told it) and the credential's name (`config.label`),
 * since the command (`node`, `python`, `uvx`) is the same for many servers; the command only when
 * neither is known.
 */
export function describeServer(config: McpServerConfig, serverName?: string): string {
	if (config.kind !== 'stdio') return describeUrl(config.url);
	const server = quotableName(serverName);
	const credential = quotableName(config.label);
	if (server && credential) return `"${server}" (credential "${credential}")`;
	if (credential) return `of credential "${credential}"`;
	if (server) return `"${server}" (local command "${config.command}")`;
	return `local command "${config.command}"`;
}

/** Headers that carry no credential by their nature: their values stay readable in results. */
const PLAIN_HEADER = /^(?:accept(?:-[a-z]+)?|content-type|user-agent|cache-control|pragma|origin|referer|mcp-protocol-version|[a-z0-9-]*-version)$/i;
const SECRET_HEADER = /authorization|cookie|key|token|secret|pass|auth|credential|session|signature/i;
/** Below this length a value under a name that says nothing (X-Region: eu-1) is taken for a setting. */
const MIN_UNNAMED_SECRET_LENGTH = 8;

/**
 * The secrets of a custom header. Values are redacted from every string of every result, so a
 * setting such as `X-Api-Version: 2024` or `Accept: application/json` taken for a secret would cut
 * "2024-06-01" or "application/json" out of tool results: a plainly non-secret name keeps its value
 * unless the value looks like a token; a name that says credential always counts; any other name
 * counts from 8 characters.
 */
function customHeaderSecrets([name, value]: [string, string]): string[] {
	if (PLAIN_HEADER.test(name)) return looksLikeToken(value) ? headerSecrets(value) : [];
	if (!SECRET_HEADER.test(name) && value.trim().length < MIN_UNNAMED_SECRET_LENGTH && !looksLikeToken(value)) return [];
	return headerSecrets(value);
}

/** A header value, and the credential after its scheme ("Bearer x", "Basic base64(user:pass)"). */
export function headerSecrets(value: string): string[] {
	const secrets = [value];
	const scheme = /^(\S+)\s+(\S.*)$/.exec(value.trim());
	if (scheme) {
		secrets.push(scheme[2]);
		if (scheme[1].toLowerCase() === 'basic') {
			const pair = Buffer.from(scheme[2], 'base64').toString('utf8');
			const colon = pair.indexOf(':');
			if (colon >= 0) secrets.push(pair, pair.slice(colon + 1));
		}
	}
	return secrets;
}

const SECRET_ENV_NAME = /key|token|secret|pass|pwd|auth|credential/i;

/**
 * A plain (not secret) environment variable that still holds a credential by mistake: a name like
 * GITHUB_TOKEN with a value of 8+ characters, or a token-looking value. Short values of such
 * names ("AUTH_MODE=none") are settings, and redacting them everywhere would wreck outputs.
 */
function looksLikeCredentialVariable(name: string, value: string): boolean {
	return (SECRET_ENV_NAME.test(name) && value.length >= 8) || looksLikeToken(value);
}

export function serverSecrets(config: McpServerConfig): string[] {
	if (config.kind === 'http') {
		return [...Object.entries(config.headers).flatMap(customHeaderSecrets), ...urlSecrets(config.url)];
	}
	const secretNames = config.secretEnvNames ?? [];
	const fromEnv = Object.entries(config.env)
		.filter(([name, value]) => secretNames.includes(name) || looksLikeCredentialVariable(name, value))
		.map(([, value]) => value);
	return [...fromEnv, ...argumentSecrets(config.args)];
}

/** Command-line options whose name says they take a credential (`--api-key`, `--token=`, ...). */
const SECRET_OPTION = /^--?[A-Za-z0-9_-]*(?:api[-_]?key|token|secret|password|passwd|bearer|credential|private[-_]?key|access[-_]?key)[A-Za-z0-9_-]*$/i;

/**
 * Secrets put on a local server's command line (better kept in Secret Environment Variables, but it
 * happens): the value of an option named for a credential, as `--token=x` or `--token x`, and any
 * argument with a well-known key prefix (sk-, ghp_, ...). Other arguments, such as paths, are not
 * guessed at: redacting them would also cut them out of tool results.
 */
function argumentSecrets(args: string[]): string[] {
	const found: string[] = [];
	args.forEach((arg, index) => {
		const eq = arg.indexOf('=');
		if (eq > 0 && SECRET_OPTION.test(arg.slice(0, eq)) && arg.length - eq - 1 >= 8) found.push(arg.slice(eq + 1));
		else if (SECRET_OPTION.test(arg) && (args[index + 1]?.length ?? 0) >= 8 && !args[index + 1].startsWith('-')) found.push(args[index + 1]);
		else if (arg.length >= 8 && KEY_PREFIX.test(arg)) found.push(arg);
	});
	return found;
}

export function providerSecrets(credential: { apiKey?: string; baseUrl?: string }): string[] {
	return [credential.apiKey ?? '', ...(credential.baseUrl ? urlSecrets(credential.baseUrl) : [])];
}

/**
 * The forms a secret takes when echoed: as is; URL-encoded (encodeURIComponent's, with lower-case
 * hex too, and the form encoding of URLSearchParams, which also encodes !'()~ and spaces as +);
 * JSON-escaped (JavaScript's, and with <, >, & and ' as \u escapes, as Go and others write them);
 * whitespace-collapsed.
 */
function encodings(secret: string): string[] {
	const uri = encodeURIComponent(secret);
	const form = new URLSearchParams({ s: secret }).toString().slice(2);
	const json = JSON.stringify(secret).slice(1, -1);
	const lowerHex = (encoded: string) => encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
	return [
		secret,
		uri,
		lowerHex(uri),
		uri.replace(/%20/g, '+'),
		form,
		lowerHex(form),
		json,
		json.replace(/[<>&']/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`),
		secret.replace(/\s+/g, ' ').trim(),
	];
}

/** Lines of a secret of several lines shorter than this (a PEM's closing line) are not redacted on their own. */
const MIN_SECRET_LINE_LENGTH = 16;

export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
	const needles = new Set<string>();
	for (const secret of secrets) {
		if (typeof secret !== 'string') continue;
		const whole = secret.trim();
		for (const form of encodings(whole)) if (form.length >= MIN_SECRET_LENGTH) needles.add(form);
		// A secret of several lines (a PEM key) is printed, and kept in output tails, line by line.
		for (const line of whole.split(/\r?\n|\r/).map((part) => part.trim())) if (line.length >= MIN_SECRET_LINE_LENGTH && line !== whole) needles.add(line);
	}
	if (needles.size === 0) return INACTIVE;
	// Longest first, so that "Bearer x" is replaced whole before "x" would leave "Bearer [redacted]".
	const ordered = [...needles].sort((a, b) => b.length - a.length);
	const text = (value: string): string => {
		let result = value;
		for (const needle of ordered) {
			// The includes check keeps the common case (no secret in the text) to one scan per needle.
			if (result.includes(needle)) result = result.split(needle).join(REDACTED);
		}
		return result;
	};
	const value = <T>(input: T): T => redactDeep(input, text, 0) as T;
	return { active: true, text, value };
}

/** Deep enough for any MCP result; deeper data is returned as is rather than recursing without end. */
const MAX_DEPTH = 64;

function redactDeep(input: unknown, text: (value: string) => string, depth: number): unknown {
	if (typeof input === 'string') return text(input);
	if (input === null || typeof input !== 'object' || depth > MAX_DEPTH) return input;
	if (Array.isArray(input)) {
		let copy: unknown[] | undefined;
		for (let i = 0; i < input.length; i++) {
			const next = redactDeep(input[i], text, depth + 1);
			if (next !== input[i]) (copy ??= input.slice())[i] = next;
		}
		return copy ?? input;
	}
	const prototype = Object.getPrototypeOf(input);
	if (prototype !== Object.prototype && prototype !== null) return input;
	let copy: Record<string, unknown> | undefined;
	for (const [key, entry] of Object.entries(input as Record<string, unknown>)) {
		if (isBinaryPayload(input as Record<string, unknown>, key, entry)) continue;
		const nextKey = text(key);
		const next = redactDeep(entry, text, depth + 1);
		if (nextKey !== key || next !== entry) {
			copy ??= { ...(input as Record<string, unknown>) };
			if (nextKey !== key) delete copy[key];
			// defineProperty, not assignment: a "__proto__" key must stay a key, not become the prototype.
			Object.defineProperty(copy, nextKey, { value: next, enumerable: true, writable: true, configurable: true });
		}
	}
	return copy ?? input;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The base64 bytes of an image or audio block, or of a resource's `blob` (beside its `uri`): a
 * secret's text cannot be read in them (base64 shifts with alignment), and replacing a match would
 * corrupt the file. Only real base64 in those places: text a server puts under such a key elsewhere
 * (or that is not base64) is redacted as any other.
 */
function isBinaryPayload(owner: Record<string, unknown>, key: string, entry: unknown): boolean {
	if (typeof entry !== 'string') return false;
	const binary = (key === 'blob' && typeof owner.uri === 'string') || (key === 'data' && (owner.type === 'image' || owner.type === 'audio'));
	return binary && BASE64.test(entry);
}

const byConfig = new WeakMap<McpServerConfig, Redactor>();

/** The redactor of a server configuration, built once per config object. */
export function redactorForServer(config: McpServerConfig): Redactor {
	let redactor = byConfig.get(config);
	if (!redactor) {
		redactor = config.kind === 'http' && config.auth ? rotatingRedactor(serverSecrets(config), config.auth) : createRedactor(serverSecrets(config));
		byConfig.set(config, redactor);
	}
	return redactor;
}

/**
 * OAuth tokens arrive and rotate while a connection is open (a refresh in the middle of a run), so
 * the redactor of an OAuth configuration rebuilds itself whenever the auth has seen a new value.
 * Always active: there is a token to hide as soon as the first request goes out.
 */
function rotatingRedactor(fixed: string[], auth: { secrets(): string[]; readonly secretsVersion: number }): Redactor {
	let version = -1;
	let current: Redactor = INACTIVE;
	const latest = (): Redactor => {
		if (auth.secretsVersion !== version) {
			version = auth.secretsVersion;
			current = createRedactor([...fixed, ...auth.secrets()]);
		}
		return current;
	};
	return { active: true, text: (value) => latest().text(value), value: (value) => latest().value(value) };
}
