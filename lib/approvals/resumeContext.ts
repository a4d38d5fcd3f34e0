import type { ProviderId } from '../providers/providerId';
import type { AgentState } from '../agent/types';
import type { CatalogTool } from '../providers/modelTypes';
import type { PausedRun, PausedRunStore } from './pausedRuns';

/**
 * What one input item of the Agent asks for, decided without n8n: a new run, the continuation of a
 * paused one (a decision from the review page or a channel, an expiry), or nothing new (the calls
 * stay pending, and the request is handed out again with a notice saying why).
 */
export type ItemAction =
	| { kind: 'start' }
	/** A decision for an approval already decided: it changes nothing. */
	| { kind: 'replayed' }
	/**
	 * `reopened`: the run woke to check its MCP tasks while its approval stays open; if it must
	 * wait again, it pauses under that approval (same id, expiry and review link).
	 */
	| { kind: 'continue'; state: AgentState; reopened?: { approvalId: string; run: PausedRun; previousReviewUrl?: string } }
	| { kind: 'pending'; approvalId: string; run: PausedRun; notice: string; previousReviewUrl?: string };

/**
 * Where this execution's input came from, as n8n records it (no item can choose it): the same for
 * every item. The node glue reads it (nodes/McpAgent/inputProvenance.ts); each flag is absent or
 * false when n8n cannot tell, and the routes then trust less.
 */
export interface InputProvenance {
	/**
	 * The node the answer came from sits straight on this node's "Needs Approval" output, so its
	 * item positions are those of the approvals. With a node in between (a Filter, IF, Sort…) a
	 * position may name another approval: then it counts only when one approval is pending.
	 */
	pairedStraight?: boolean;
	/**
	 * The items come straight from a send-and-wait node (its operation is n8n's `sendAndWait`) that
	 * follows this Agent. n8n signs such a node's links, so its `data.approved` is a person's answer;
	 * the same shape from any other node (an API's `{ data: { approved: true } }`, a Set node) is data
	 * unless it carries the approval's review secret.
	 */
	fromSendAndWait?: boolean;
	/**
	 * The workflow runs in n8n's legacy execution order (v0), where the Agent may run again before
	 * a send-and-wait node answers an earlier run: positions then may name the wrong approval.
	 */
	legacyOrder?: boolean;
	/**
	 * The items come straight from an MCP Approval node of this package (n8n records which node
	 * produced a node's input; an item cannot choose it). A decision item counts only then, and only
	 * with its proof (decisionProof.ts).
	 */
	fromApprovalNode?: boolean;
	/**
	 * An MCP Approval node after this Agent requires reviewers to sign in to n8n: then a review secret
	 * alone (a Wait node's POST, an answer through another node) decides nothing, since anyone sent
	 * the link has it; only MCP Approval's own checks do.
	 */
	approvalSignIn?: boolean;
}

export interface ResumeContext extends InputProvenance {
	store: PausedRunStore;
	/** The servers' current tools: approved calls run only if their tool is still what the reviewer saw. */
	catalog: CatalogTool[];
	now: Date;
	/** Index of the "Needs Approval" item this item is paired with, when n8n knows it. */
	pairedIndex?: number;
	/**
	 * Claims a paused run (recentDecisions.ts resumedRuns), given the execution that handed it out
	 * (undefined for runs stored before that was recorded): false when this process continued it
	 * already in another copy of that execution, which makes this one a replay.
	 */
	claimResume?: (approvalId: string, handedOutBy: string | undefined) => boolean;
	/** The n8n execution running now (see PausedEntry.executionId). */
	executionId?: string;
	/** The node's Provider now: a run that paused with another one cannot continue (its conversation is in that API's format). */
	provider?: ProviderId;
}
