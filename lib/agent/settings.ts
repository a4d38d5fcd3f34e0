import { parseJsonParameter } from '../util/jsonParameter';
import type { RunSettings } from './types';
import { McpAgentError } from '../errors';
import { AGENT_DEFAULTS } from './defaults';
import { parsePatternList } from '../tools/nameFilter';
import type { ToolLoadingOptions } from './toolLoading';

/** The Agent node's raw options, as n8n hands them over. */
export interface RawAgentOptions {
	maxIterations?: number;
	maxOutputTokens?: number;
	tokenBudget?: number;
	temperature?: number;
	toolChoice?: string;
	toolChoiceName?: string;
	parallelToolCalls?: boolean;
	promptCaching?: boolean;
	structuredOutputSchema?: unknown;
	maxToolResultChars?: number;
	toolLoading?: string;
	toolSearchThreshold?: number;
	alwaysLoadedTools?: string;
	toolSearchWith?: string;
}

/** What to do about an Agent option that cannot be used; the message names the option. */
const FIX_THE_OPTION = "Correct the option the message names in the Agent node's parameters or Options, then run the workflow again.";

export class SettingsError extends McpAgentError {
	constructor(message: string, description = FIX_THE_OPTION) {
		super(message, { code: 'config', description });
		this.name = 'SettingsError';
	}
}

function positiveInteger(value: unknown, fallback: number, name: string, allowZero = false): number {
	if (value === undefined || value === null || value === '') return fallback;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 0 || (!allowZero && n === 0)) throw new SettingsError(`${name} must be a whole number${allowZero ? ' (0 or more)' : ' greater than 0'}`);
	return n;
}

/** Object, or a JSON string of one (n8n's json parameters arrive as either). */
export function parseJsonObjectOption(value: unknown, name: string): Record<string, unknown> | undefined {
	let parsed: unknown;
	try {
		parsed = parseJsonParameter(value, name);
	} catch (error) {
		throw new SettingsError((error as Error).message, McpAgentError.isInstance(error) ? error.description : undefined);
	}
	if (parsed === undefined) return undefined;
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SettingsError(`${name} must be a JSON object`);
	return Object.keys(parsed).length ? (parsed as Record<string, unknown>) : undefined;
}

export function buildRunSettings(model: string, system: string | undefined, raw: RawAgentOptions): RunSettings {
	if (!model.trim()) throw new SettingsError('Model is empty: pick one from the list or enter its ID');
	const toolChoiceType = raw.toolChoice ?? AGENT_DEFAULTS.toolChoice;
	let toolChoice: RunSettings['toolChoice'];
	if (toolChoiceType === 'tool') {
		const name = (raw.toolChoiceName ?? '').trim();
		if (!name) throw new SettingsError('Tool Choice is "A Specific Tool" but no tool name is given');
		toolChoice = { type: 'tool', name };
	} else if (toolChoiceType === 'auto' || toolChoiceType === 'required' || toolChoiceType === 'none') {
		toolChoice = { type: toolChoiceType };
	} else {
		throw new SettingsError(`Unknown Tool Choice "${toolChoiceType}"`);
	}
	if (raw.temperature !== undefined && (typeof raw.temperature !== 'number' || raw.temperature < 0 || raw.temperature > 2)) {
		throw new SettingsError('Temperature must be a number between 0 and 2');
	}
	const structuredOutput = parseJsonObjectOption(raw.structuredOutputSchema, 'Structured Output Schema');
	return {
		model: model.trim(),
		...(system?.trim() ? { system } : {}),
		maxIterations: positiveInteger(raw.maxIterations, AGENT_DEFAULTS.maxIterations, 'Max Iterations'),
		maxOutputTokens: positiveInteger(raw.maxOutputTokens, AGENT_DEFAULTS.maxOutputTokens, 'Max Output Tokens'),
		tokenBudget: positiveInteger(raw.tokenBudget, AGENT_DEFAULTS.tokenBudget, 'Token Budget', true),
		...(raw.temperature !== undefined ? { temperature: raw.temperature } : {}),
		toolChoice,
		parallelToolCalls: raw.parallelToolCalls ?? AGENT_DEFAULTS.parallelToolCalls,
		promptCaching: raw.promptCaching ?? AGENT_DEFAULTS.promptCaching,
		...(structuredOutput ? { structuredOutput } : {}),
		maxToolResultChars: positiveInteger(raw.maxToolResultChars, AGENT_DEFAULTS.maxToolResultChars, 'Max Tool Result Characters'),
	};
}

/** Tool Loading, Tool Search Threshold, Tool Search With and Always Loaded Tools as the run uses them (lib/agent/toolLoading.ts). */
export function buildToolLoading(raw: RawAgentOptions): ToolLoadingOptions {
	const mode = raw.toolLoading ?? AGENT_DEFAULTS.toolLoading;
	if (mode !== 'all' && mode !== 'search') throw new SettingsError(`Unknown Tool Loading "${mode}"`);
	const searchWith = raw.toolSearchWith ?? AGENT_DEFAULTS.toolSearchWith;
	if (searchWith !== 'provider' && searchWith !== 'package') throw new SettingsError(`Unknown Tool Search With "${searchWith}"`);
	return {
		searchWith,
		mode,
		threshold: positiveInteger(raw.toolSearchThreshold, AGENT_DEFAULTS.toolSearchThreshold, 'Tool Search Threshold', true),
		alwaysLoaded: parsePatternList(raw.alwaysLoadedTools ?? AGENT_DEFAULTS.alwaysLoadedTools),
	};
}
