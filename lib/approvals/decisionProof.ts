import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../tools/fingerprint';
import type { ApprovalDecisionItem } from './approvalRequest';

/**
 * Proof that a decision item was made by MCP Approval's own checks, not written by another node.
 *
 * Everything a decision names (approvalId, callId, argsHash) is in the public "Needs Approval"
 * item, which goes to Slack, e-mail and Telegram; a Set node can write an item of the same shape.
 * So MCP Approval, once the review secret (and the sign-in, where required) has been checked, signs
 * each decision item with an HMAC under the approval's decision key, and the Agent applies a
 * decision only when that MAC verifies, in constant time, under the key it keeps with the paused
 * run. The key is derived from the review secret (HMAC, so it cannot be had from the secret's
 * public hash) and never appears in an item, a message, a URL or node output: the Agent stores it
 * in its node context, MCP Approval derives it from the secret it was given. The MAC covers the
 * whole item (every decision, edited arguments, input answers, reviewer and time), so nothing
 * between MCP Approval and the Agent can change what was decided.
 *
 * Knowing the review secret is not the whole check where MCP Approval requires an n8n sign-in: a
 * link holder could sign an item themselves. That is why the Agent also requires the item to come
 * straight from an MCP Approval node (n8n records which node produced its input; an item cannot
 * choose that), whose output holds decisions only from its webhook's checks.
 */
/** What the derivation is for: a key derived for anything else differs. */
const DERIVATION_CONTEXT = 'n8n-nodes-mcp-agent/decision-proof/v1';

/** The field of a decision item that holds its proof. */
export const PROOF_FIELD = 'proof';

/** The decision key of an approval, from its review secret (hex). */
export function decisionKeyFor(reviewToken: string): string {
	return createHmac('sha256', reviewToken).update(DERIVATION_CONTEXT, 'utf8').digest('hex');
}

function mac(item: Record<string, unknown>, key: string): Buffer {
	const { [PROOF_FIELD]: _proof, ...signed } = item;
	return createHmac('sha256', Buffer.from(key, 'hex')).update(canonicalJson(signed), 'utf8').digest();
}

/** The item with its proof, made under the approval's decision key. */
export function withDecisionProof(item: ApprovalDecisionItem, key: string): ApprovalDecisionItem & { proof: string } {
	return { ...item, [PROOF_FIELD]: mac(item as unknown as Record<string, unknown>, key).toString('base64url') };
}

const KEY_SHAPE = /^[0-9a-f]{64}$/;
const PROOF_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Whether the item's proof verifies under the key (false for a missing key or proof: fail closed). */
export function decisionProofMatches(item: Record<string, unknown>, key: string | undefined): boolean {
	const proof = item[PROOF_FIELD];
	if (typeof key !== 'string' || !KEY_SHAPE.test(key) || typeof proof !== 'string' || !PROOF_SHAPE.test(proof)) return false;
	const given = Buffer.from(proof, 'base64url');
	const expected = mac(item, key);
	return given.length === expected.length && timingSafeEqual(given, expected);
}
