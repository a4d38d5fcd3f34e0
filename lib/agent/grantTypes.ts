/** The data of standing approvals (grants); the logic is in grants.ts. */
export const GRANT_VERSION = 1;

/** How long a person may allow similar calls: 1 hour, 1 day, 30 days (grants.ts GRANT_DURATIONS). */
export type GrantDuration = '1h' | '1d' | '30d';

/** A condition on one field of the arguments, named by its path of own property names (or array indexes). */
export type FieldCondition = { path: string[]; equals: unknown } | { path: string[]; atMost: number; atLeast?: number };

export type GrantConstraint = { kind: 'exact'; argumentsHash: string } | { kind: 'fields'; fields: FieldCondition[] };

export interface GrantScope {
	workflowId: string;
	/** The Agent node's id (stable across renames), not its name. */
	nodeId: string;
}

/** A whole workflow: the grants of all its Agent nodes. */
export interface WorkflowScope {
	workflowId: string;
	nodeId?: undefined;
}

export interface Grant extends GrantScope {
	v: typeof GRANT_VERSION;
	id: string;
	/** The MCP Server sub-node's name (or the n8n tool node's) and the tool's MCP name, as the review page showed them. */
	server: string;
	tool: string;
	/** The tool definition's fingerprint the person saw; any other definition is not covered. */
	fingerprint: string;
	constraint: GrantConstraint;
	grantedBy: string;
	/** Milliseconds since the epoch. */
	grantedAt: number;
	expiresAt: number;
	/** The approval whose decision made this grant. */
	approvalId?: string;
	revokedAt?: number;
	revokedBy?: string;
	/** Calls this grant let through (counted by the store, never written back from a read). */
	uses?: number;
	lastUsedAt?: number;
}

/** What a call let through by a grant records (PlannedCall.allowedBy, the tool log). */
export interface GrantRef {
	grant: string;
	grantedBy: string;
	grantedAt: string;
	expiresAt: string;
}

/**
 * The store of grants. Rows are inserted once; the only later writes are a one-way revocation and
 * a usage counter incremented in place, so no write ever rewrites a grant from a copy read earlier.
 * Every method may throw: callers treat an error as "no grant" (the call is asked).
 */
export interface GrantStore {
	/** Idempotent: a grant with this id that exists already (even revoked) is left as it is. */
	insert(grant: Grant): Promise<void>;
	/** Sets revokedAt once (never cleared, never moved); true when the grant is revoked afterwards (by this call or before), false when the scope has no grant with this id. */
	revoke(scope: GrantScope, id: string, by: string, at: number): Promise<boolean>;
	/** Grants of the scope that are neither revoked nor expired at `now`, read fresh (never cached). */
	listActive(scope: GrantScope, now: number): Promise<unknown[]>;
	/**
	 * Every grant of the scope, revoked and expired ones included, newest first (the grants pages);
	 * without a node id, those of every Agent node of the workflow (the standing approvals page).
	 */
	listAll(scope: GrantScope | WorkflowScope): Promise<unknown[]>;
	/** Counts one use: `uses = uses + 1` where not revoked; best effort. */
	markUsed(id: string, at: number): Promise<void>;
}
