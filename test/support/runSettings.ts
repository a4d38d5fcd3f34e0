import type { RunSettings } from '../../lib/agent/types';

/** The run settings of the Agent task tests: a few iterations, no prompt caching, results uncut. */
export const TASK_TEST_SETTINGS: RunSettings = {
	model: 'model-under-test',
	maxIterations: 5,
	maxOutputTokens: 1024,
	tokenBudget: 0,
	toolChoice: { type: 'auto' },
	parallelToolCalls: true,
	promptCaching: false,
	maxToolResultChars: 50_000,
};
