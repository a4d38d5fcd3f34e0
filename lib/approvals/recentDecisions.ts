/**
 * Approvals this process turned into decisions a moment ago. Two POSTs of one review page that
 * arrive together (a double submit, a script) both find the execution waiting: n8n 2.x lets only
 * one of them resume it (a status check and update in one query), n8n 1.x resumes it twice, and
 * both resumes would run the approved calls. The second decision is refused here, for as long as
 * n8n needs to mark the execution running.
 *
 * Kept short on purpose: a decision the Agent refuses (say, made on a page that no longer matches
 * the call) hands the same approval out again, and the reviewer's next decision must then pass.
 * Per process, like the sign-in limiter: queue mode's webhook processes each keep their own, and
 * there n8n 2.x's own check applies.
 */
export const DECISION_CLAIM_WINDOW_MS = 15_000;
/** Claims kept at most, oldest forgotten first, so a flood of decisions cannot grow the map without limit. */
const MAX_CLAIMS = 10_000;

export class RecentDecisions {
	private readonly claimedAt = new Map<string, number>();

	constructor(
		private readonly windowMs = DECISION_CLAIM_WINDOW_MS,
		private readonly maxClaims = MAX_CLAIMS,
	) {}

	/**
	 * Claims every approval of one submission, or none: false when any of them was claimed within
	 * the window. Synchronous, so two requests cannot both pass between check and record.
	 */
	claim(approvalIds: readonly string[], now = Date.now()): boolean {
		this.prune(now);
		if (approvalIds.some((id) => this.claimedAt.has(id))) return false;
		for (const id of approvalIds) this.claimedAt.set(id, now);
		return true;
	}

	/** Forgets every claim (for tests that decide one fixture approval many times). */
	forgetAll(): void {
		this.claimedAt.clear();
	}

	private prune(now: number): void {
		// Oldest first (Map keeps insertion order): stop at the first claim still inside the window.
		for (const [id, at] of this.claimedAt) {
			if (now - at < this.windowMs && this.claimedAt.size < this.maxClaims) break;
			this.claimedAt.delete(id);
		}
	}
}

/** Shared by every MCP Approval node of this process. */
export const recentDecisions = new RecentDecisions();

/**
 * Paused runs this process continued, shared by every MCP Agent node: the same guard on the
 * Agent's side, for every channel. A Wait node or a send-and-wait node resumed twice at once on
 * n8n 1.x hands the Agent the same decision in two executions, each with its own copy of the
 * paused run; the second is treated as a replay and changes nothing. The second copy may start
 * much later (n8n 1.x holds resumed executions back under a concurrency limit while they still
 * show as waiting), so the claim lasts as long as a default approval does. It never refuses a
 * legitimate decision: it is taken only once a decision applies, and every pause has a new
 * approval id.
 */
export const RESUME_CLAIM_WINDOW_MS = 24 * 3_600_000;
export const resumedRuns = new RecentDecisions(RESUME_CLAIM_WINDOW_MS);
