import { createHash } from 'node:crypto';
import { canonicalJson } from '../tools/fingerprint';

/** Binds a decision to the exact arguments the reviewer saw (key order does not matter). */
export function hashArguments(args: unknown): string {
	return `sha256:${createHash('sha256').update(canonicalJson(args ?? {})).digest('hex')}`;
}

/**
 * What the review page shows of a call besides its arguments: a decision must be made on exactly
 * this, so a node between the MCP Agent and MCP Approval cannot relabel a call (another tool name,
 * read-only annotations, no warnings) and have its approval run the real one.
 */
export interface ShownIdentity {
	server: string;
	tool: string;
	title?: string;
	description?: string;
	annotations?: unknown;
	annotationsTrusted: boolean;
	fingerprint: string;
	warnings: string[];
	source?: string;
}

/** Binds a review decision to the arguments and to what the reviewer was shown of the call. */
export function hashReviewedCall(args: unknown, shown: ShownIdentity): string {
	return hashArguments({ arguments: args ?? {}, shown });
}
