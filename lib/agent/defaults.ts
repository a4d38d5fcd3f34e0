/**
 * The Agent's defaults, in one place: the node's description shows them and the code falls back to
 * them. n8n saves only the parameters that differ from their defaults, so a saved workflow that
 * never touched an option runs with whatever default the installed version declares. Changing a
 * value here therefore changes every such workflow: never change one in place; add a node version
 * whose parameters declare the new default (see the README's development section).
 */
export const AGENT_DEFAULTS = {
	maxIterations: 10,
	maxOutputTokens: 4096,
	/** 0 = no limit. */
	tokenBudget: 0,
	temperature: 1,
	parallelToolCalls: true,
	promptCaching: true,
	maxToolResultChars: 20_000,
	maxRetries: 2,
	toolConcurrency: 4,
	toolTimeoutMs: 60_000,
	/** Progress notifications restart a tool call's timeout, up to ten times the timeout in total. */
	resetTimeoutOnProgress: true,
	includeTranscript: true,
	/** The output's tool calls carry each result as the tool returned it, before Max Tool Result Characters trimmed it for the model. */
	fullToolResults: false,
	enableStreaming: true,
	appendServerInstructions: false,
	memorySaveToolCalls: false,
	toolChoice: 'auto',
	/** Tool Loading: 'all' sends every tool on every turn (as before tool search existed); 'search' above toolSearchThreshold tools. */
	toolLoading: 'all',
	toolSearchThreshold: 30,
	/** Tool Search With: the provider's own tool search where the API has one (Anthropic, OpenAI Responses), else the package's search tool. */
	toolSearchWith: 'provider',
	alwaysLoadedTools: '',
	approvalTimeoutHours: 24,
	onDrift: 'block',
	withholdFlagged: false,
	requireApprovalFor: 'notReadOnly',
} as const;

/**
 * One default, for the node description: `default: agentDefault('maxIterations')`. A call rather
 * than `AGENT_DEFAULTS.maxIterations`, which n8n's lint (node-param-default-missing, also run by
 * n8n's verification scanner) does not recognise as a default.
 */
export function agentDefault<K extends keyof typeof AGENT_DEFAULTS>(key: K): (typeof AGENT_DEFAULTS)[K] {
	return AGENT_DEFAULTS[key];
}
