import { SecretDigest } from '../../util/secretDigest';
import { canonicalJson } from '../../tools/fingerprint';
import type { PoolingSettings } from '../serverConfig';

/**
 * The credential settings and the administrator's limit that decide whether and how long a
 * connection is kept between executions. Plain functions over credential data; no n8n.
 */

/** Environment variable: most connections one n8n process keeps (0 turns keeping off). */
export const POOL_SIZE_VARIABLE = 'N8N_MCP_AGENT_POOL_SIZE';
export const DEFAULT_POOL_SIZE = 20;
export const DEFAULT_IDLE_MINUTES = 5;

/** Credential fields (credentials/mcpServerCommonProperties.ts). */
export const KEEP_RUNNING_FIELD = 'keepServerRunning';
export const IDLE_MINUTES_FIELD = 'idleShutdownMinutes';

/**
 * Fields left out of the data hash: OAuth tokens rotate on every refresh without the credential
 * being edited. Whose tokens they are is checked apart: a kept connection is shared only with an
 * execution handed a token the connection produced itself, any other token (a reconnect) retires
 * it (swappableAuth.ts `produced`). Every other secret (a bearer token, header values, a client
 * secret or key) is in the hash, so changing one retires the connection as any edit does.
 */
const UNHASHED_FIELDS = new Set(['oauthTokenData']);

/** The pool size from the environment: a whole number ≥ 0, else the default. */
export function poolSizeFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
	const raw = env[POOL_SIZE_VARIABLE];
	if (raw === undefined || raw.trim() === '') return DEFAULT_POOL_SIZE;
	const value = Number(raw);
	return Number.isInteger(value) && value >= 0 ? value : DEFAULT_POOL_SIZE;
}

/**
 * Under a per-process secret: the hash tells equal credential data from different data inside this
 * process, and says nothing about the data to anyone who sees it (logs, a heap snapshot's keys).
 */
const dataDigest = new SecretDigest();

export function credentialDataHash(data: Record<string, unknown>): string {
	const kept: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(data)) if (!UNHASHED_FIELDS.has(name)) kept[name] = value;
	// Canonical JSON (keys sorted), so equal data always hashes equal.
	return dataDigest.of(canonicalJson(kept)).slice(0, 32);
}

export interface CredentialRef {
	/** The credential type name, e.g. mcpServerStdioApi. */
	type: string;
	/** n8n's id of the stored credential; without one the connection is never kept. */
	id: string | undefined;
}

/**
 * The pooling settings of a credential, or undefined for one connection per use: Keep Server
 * Running off, a pool size of 0, or no credential id (two credentials must never share a
 * connection, and without an id they cannot be told apart for sure).
 */
export function poolingFor(credential: CredentialRef, data: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): PoolingSettings | undefined {
	if (data[KEEP_RUNNING_FIELD] === false) return undefined;
	const identity = credentialIdentity(credential);
	if (!identity || poolSizeFromEnvironment(env) === 0) return undefined;
	const minutes = Number(data[IDLE_MINUTES_FIELD] ?? DEFAULT_IDLE_MINUTES);
	const idleMinutes = Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_IDLE_MINUTES;
	return { identity, key: `${identity}\u0000${credentialDataHash(data)}`, idleMs: Math.round(idleMinutes * 60_000) };
}

/** The credential alone (type and id), by which the pool knows its connections; none without an id. */
export function credentialIdentity(credential: CredentialRef): string | undefined {
	return credential.id ? `${credential.type}\u0000${credential.id}` : undefined;
}
