/**
 * The agent run as data. Everything here is plain JSON: a run stopped at any effect can be
 * serialized, stored (in n8n's node context while the execution waits), and resumed by the same
 * code on any worker.
 */
import type { ProviderId } from '../providers/providerId';
import type { CatalogTool, ModelSettings, ModelTurn, StopKind, ToolOutcome, Usage } from '../providers/modelTypes';
import type { ApprovalPolicy, ReviewerChoice } from './policy';
import type { RuleRef } from './approvalRules';
import type { Grant, GrantConstraint, GrantDuration, GrantRef, GrantScope } from './grantTypes';
import type { ElicitationAnswer, ServerInputRequest } from '../mcp/inputRequests';
import type { ToolProgress } from '../mcp/progress';
import type { RunningTask, TaskSummary } from '../mcp/toolTask';

/** Why a run ended; the node reports it as `status`. */
export type RunStatus =
	| 'completed'
	| 'max_tokens'
	| 'refusal'
	| 'context_exceeded'
	| 'max_iterations'
	| 'token_budget_exceeded'
	| 'stopped';

export type ReviewStatus = 'pending' | 'approved' | 'denied' | 'edited' | 'expired';

/** A call's human review, from request to decision; kept for the audit log. */
export interface CallReview {
	status: ReviewStatus;
	/** Hash of the arguments the reviewer is shown; a decision must name it. */
	argsHash: string;
	warnings: string[];
	reviewer?: string;
	decidedAt?: string;
	reason?: string;
	originalArguments?: unknown;
	/** Approval rounds this call went through (a changed definition sends it back). */
	rounds: number;
	/** Why it waits: the approval rule that asked, or a definition that does not match its pin; absent: the node's policy. */
	askedBy?: RuleRef | 'unpinned definition';
	/** The decisions the reviewer may take (absent: approve, deny and edit, as in runs stored before rules). */
	decisions?: ReviewerChoice[];
	/** With an approval: the person also allowed similar calls (a standing approval the Agent stores, runAgent.ts), and in which approval. */
	allowSimilar?: AllowSimilar & { approvalId: string };
	/** What became of allowSimilar: the grant stored, or why it was not (the approval stands either way). */
	standingApproval?: StandingApprovalOutcome;
}

/** What became of a person's "allow similar calls": the grant the Agent stored, or why none was. */
export type StandingApprovalOutcome = { grant: string; expiresAt: string } | { notSaved: string };

/** A person's "allow similar calls" on the review page: how long, and what counts as similar. */
export interface AllowSimilar {
	duration: GrantDuration;
	constraint: GrantConstraint;
}

export type InputStatus = 'pending' | 'answered' | 'expired' | 'denied';

/**
 * A call the server did not finish because it needs input from a person first (MCP 2026-07-28
 * `input_required`). The run pauses like for an approval; the person's answers are stored here
 * and the call is retried with them and the server's `requestState`, possibly on another worker.
 */
export interface CallInput {
	status: InputStatus;
	/** How many times this call asked for input (1 on the first request). */
	round: number;
	/** As the server sent them, keyed as it keyed them. */
	inputRequests: Record<string, ServerInputRequest>;
	/** Opaque; echoed back unchanged on the retry. */
	requestState?: string;
	/** Hash of inputRequests: an answer must name it, so it is bound to the requests the person saw. */
	inputHash: string;
	/** The person's answers by request key (status "answered"); the retry sends them. */
	responses?: Record<string, ElicitationAnswer>;
	reviewer?: string;
	answeredAt?: string;
}

/** One tool call the model asked for, after parsing and checking. */
export interface PlannedCall {
	id: string;
	providerName: string;
	/** Set when the name resolved to a catalog tool. */
	tool?: { serverId: string; serverName: string; mcpName: string; fingerprint: string };
	arguments: unknown;
	/** Set when the call must not reach a server: the reason goes back to the model as an error result. */
	rejection?: string;
	/** The Agent's own tool (tool search): answered inside the loop, never sent to a server. */
	builtIn?: 'tool_search';
	/** The approval rule that refused the call (its rejection says why). */
	refusedBy?: RuleRef;
	/** The approval rule or standing approval (grant) that let the call run without review; absent: the node's policy (or a person, see review). */
	allowedBy?: RuleRef | GrantRef;
	review?: CallReview;
	/** Set when the server asked for input during this call. */
	input?: CallInput;
	/**
	 * Set when the call became an MCP task that still ran after the in-place wait (Wait In Node):
	 * the run waits for it as it waits for a person, and checks it again when the execution wakes
	 * (at the server's poll interval, after a restart, on any worker). Done once the call has an outcome.
	 */
	task?: RunningTask;
}

/** How a call that ran was let through: by a person, an approval rule, a standing approval, or the node's policy. */
export type CallAllowance =
	| { by: 'person'; reviewer?: string; decidedAt?: string }
	| { by: 'rule'; rule: number; label: string }
	| { by: 'grant'; grant: string; grantedBy?: string; grantedAt?: string; expiresAt?: string }
	| { by: 'policy' };

export interface ToolLogEntry {
	iteration: number;
	id: string;
	server?: string;
	tool: string;
	arguments: unknown;
	isError: boolean;
	resultSummary: string;
	durationMs: number;
	/**
	 * No server behind it: the Agent's own tool search ("tool_search"), or the provider's search run
	 * on its side ("provider_tool_search"); the result names the tools found.
	 */
	builtIn?: 'tool_search' | 'provider_tool_search';
	/** Set when the result was trimmed before it reached the model (Max Tool Result Characters): characters the model saw, of how many. */
	resultTrimmed?: { shownChars: number; totalChars: number };
	/** For a call that reached its tool: what let it through. */
	allowedBy?: CallAllowance;
	/** For a call an approval rule refused: that rule. */
	refusedBy?: RuleRef;
	review?: {
		decision: ReviewStatus;
		reviewer?: string;
		decidedAt?: string;
		reason?: string;
		editedFrom?: unknown;
		warnings: string[];
		/** The standing approval the person made with this approval, or why it was not saved. */
		standingApproval?: CallReview['standingApproval'];
	};
	/** When the server asked a person for input during the call (the answers' values are not logged). */
	input?: {
		status: InputStatus;
		rounds: number;
		/** The person's choice per request of the last round. */
		actions?: Record<string, ElicitationAnswer['action']>;
		reviewer?: string;
		answeredAt?: string;
	};
	/**
	 * The last `notifications/progress` the server sent during the call, cleaned (message without
	 * invisible or control characters, at most 200 characters); only for calls that sent any.
	 */
	progress?: ToolProgress;
	/** When the call ran as an MCP task: the server's task id, its last status and status message. */
	task?: TaskSummary;
}

/** A catalog tool by what does not change between listings: its source and its MCP name. */
export interface ToolKey {
	serverId: string;
	mcpName: string;
}

/** The run's tool loading, when the model searches for tools (absent: every tool on every turn; lib/agent/toolLoading.ts). */
export interface ToolLoadingState {
	/**
	 * "provider": the API's own tool search (Anthropic Messages, OpenAI Responses), every other tool
	 * sent deferred; "search": the package's own search tool (every provider).
	 */
	strategy: 'search' | 'provider';
	/** The search tool's name, fixed for the run (the package's can be renamed: a catalog tool may already have the usual one). */
	searchTool: string;
	/** Tools sent from the first turn: the builder's Always Loaded Tools and the Tool Choice tool. */
	always: ToolKey[];
	/** Tools loaded by search (or by a call naming them), in the order they were loaded; under "provider", the tools its searches found. */
	loaded: ToolKey[];
}

/** The model's settings plus the loop's own limits and the approval policy. */
export interface RunSettings extends ModelSettings {
	maxIterations: number;
	/** Total input + output tokens across the run; 0 = unlimited. */
	tokenBudget: number;
	/** Cap for the text of one tool result, in characters. */
	maxToolResultChars: number;
	/** Which calls need a person's approval; absent means none. */
	approval?: ApprovalPolicy;
}

export interface OpenApproval {
	id: string;
	requestedAt: string;
	expiresAt: string;
}

export interface AgentState {
	/** The schema version (lib/agent/stateSchema.ts): checked, and migrated if older, when a stored run is loaded. */
	version: 1;
	provider: ProviderId;
	settings: RunSettings;
	tools: CatalogTool[];
	/** The provider-native conversation, replayed in full on every model call (the APIs are stateless). */
	transcript: unknown[];
	iterations: number;
	usage: Usage;
	toolLog: ToolLogEntry[];
	/** The user's message that started this run, shown to reviewers (absent in states saved by earlier versions). */
	userMessage?: string;
	phase:
		| { name: 'call_model' }
		| {
				name: 'run_tools';
				calls: PlannedCall[];
				assistantText: string;
				/** Results gathered so far, by call id (some calls may still wait for review). */
				outcomes: Record<string, ToolOutcome>;
				durations: Record<string, number>;
				/** The last progress notification of each call that sent any (absent in states of earlier versions). */
				progress?: Record<string, ToolProgress>;
				/** Calls that ran as MCP tasks: the task and its last status (absent in states of earlier versions). */
				tasks?: Record<string, TaskSummary>;
				approval?: OpenApproval;
				/** Approval ids already decided in this run: a replay of one changes nothing. */
				decidedApprovals: string[];
		  }
		| { name: 'finished'; status: RunStatus; stop?: StopKind; text: string; detail?: string; structured?: unknown };
	/** Text of the most recent assistant turn, kept for the final output. */
	lastText: string;
	/** Images passed to the model so far in this run (absent: none yet, or a state saved before this was counted). */
	imagesSent?: { count: number; bytes: number };
	/** Tool search: the tools the model is sent besides the always-loaded ones (absent: every catalog tool on every turn). */
	toolLoading?: ToolLoadingState;
}

/** The phase of a run whose tool calls are being run or reviewed. */
export type RunToolsPhase = Extract<AgentState['phase'], { name: 'run_tools' }>;

export interface ReviewDecision {
	callId: string;
	argsHash: string;
	/**
	 * Required for a call waiting for review. For a call waiting only for input: absent (or
	 * "approve") with inputResponses, or "deny" to end the call without answering the server.
	 */
	decision?: 'approve' | 'deny' | 'edit';
	reason?: string;
	/** The edited arguments, with decision "edit". */
	arguments?: unknown;
	/** Answers to the server's input requests, by request key, for a call waiting for input. */
	inputResponses?: Record<string, ElicitationAnswer>;
	/** The pending input's inputHash: the answers were given to exactly those requests. */
	inputHash?: string;
	/** With "approve", from the review page's form only (inside MCP Approval's signed decision): allow similar calls. */
	allowSimilar?: AllowSimilar;
}

/** A call the server did not finish: it needs input first (from the tool runner). */
export interface ToolInputNeeded {
	id: string;
	inputRequests: Record<string, ServerInputRequest>;
	requestState?: string;
}

export type AgentEvent =
	| { type: 'model_turn'; turn: ModelTurn }
	/** `inputRequired`: calls that did not finish because the server needs input from a person first. */
	| {
			type: 'tool_outcomes';
			outcomes: ToolOutcome[];
			durations?: Record<string, number>;
			inputRequired?: ToolInputNeeded[];
			progress?: Record<string, ToolProgress>;
			tasks?: Record<string, TaskSummary>;
			/** Calls whose task still runs after the wait in place, with what a later check needs. */
			running?: Record<string, RunningTask>;
	  }
	| { type: 'approval_opened'; approval: OpenApproval }
	/** `receivedAt`: when the run got the decision; a decision made or received after the approval's expiry is refused as expired. */
	| { type: 'approval_decided'; approvalId: string; decisions: ReviewDecision[]; reviewer?: string; decidedAt: string; receivedAt?: string }
	| { type: 'approval_expired'; approvalId: string; at: string }
	| { type: 'catalog_refreshed'; tools: CatalogTool[] }
	/** The driver read the scope's active grants fresh at `at` (ms): pending calls a grant covers run without review. */
	| { type: 'grants_read'; grants: Grant[]; scope: GrantScope; at: number }
	/** The driver stored (or failed to store) the standing approvals people chose with their approvals, by call id. */
	| { type: 'grants_stored'; results: Record<string, StandingApprovalOutcome> };

export type AgentEffect =
	| { type: 'call_model' }
	| { type: 'run_tools'; calls: PlannedCall[] }
	/** `calls`: waiting for a person; `tasks`: calls whose MCP task still runs (checked when the execution wakes). */
	| { type: 'request_approval'; calls: PlannedCall[]; tasks: PlannedCall[]; approval?: OpenApproval }
	| { type: 'finish'; status: RunStatus };
