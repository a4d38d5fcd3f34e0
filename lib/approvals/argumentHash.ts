import { createHash } from 'node:crypto';
import { canonicalJson } from '../tools/fingerprint';

/** Binds a decision to the exact arguments the reviewer saw (key order does not matter). */
export function hashArguments(args: unknown): string {
	return `sha256:${createHash('sha256').update(canonicalJson(args ?? {})).digest('hex')}`;
}
