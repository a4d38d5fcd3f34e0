/**
 * Each Agent default lives in lib/agent/defaults.ts: the description shows it, the code falls back
 * to it. Boolean defaults must be literals for n8n's lint, so this test holds them equal; it also
 * proves the execute code's fallbacks are the description's, by running with no options at all.
 */
import type { INodeProperties } from 'n8n-workflow';
import { AGENT_DEFAULTS } from '../../lib/agent/defaults';
import { buildRunSettings } from '../../lib/agent/settings';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import { agentProperties } from '../../nodes/McpAgent/description';

/** Parameter name -> default, for the top level and the collections (Options, Approval Options). */
function declaredDefaults(properties: INodeProperties[]): Map<string, unknown> {
	const found = new Map<string, unknown>();
	for (const property of properties) {
		found.set(property.name, property.default);
		for (const option of (property.options ?? []) as INodeProperties[]) if ('default' in option) found.set(option.name, option.default);
	}
	return found;
}

/** Description parameter name for each AGENT_DEFAULTS key (where the names differ). */
const PARAMETER_NAME: Partial<Record<keyof typeof AGENT_DEFAULTS, string>> = { approvalTimeoutHours: 'timeoutHours', toolTimeoutMs: 'toolTimeout' };

describe('Agent defaults in one place', () => {
	const declared = declaredDefaults(agentProperties);

	test.each(Object.keys(AGENT_DEFAULTS) as Array<keyof typeof AGENT_DEFAULTS>)('%s: the description declares the AGENT_DEFAULTS value', (key) => {
		const name = PARAMETER_NAME[key] ?? key;
		expect(declared.has(name)).toBe(true);
		expect(declared.get(name)).toEqual(AGENT_DEFAULTS[key]);
	});

	test('run settings with no options are the declared defaults', () => {
		const settings = buildRunSettings('m', undefined, {});
		expect(settings).toMatchObject({
			maxIterations: declared.get('maxIterations'),
			maxOutputTokens: declared.get('maxOutputTokens'),
			tokenBudget: declared.get('tokenBudget'),
			parallelToolCalls: declared.get('parallelToolCalls'),
			promptCaching: declared.get('promptCaching'),
			maxToolResultChars: declared.get('maxToolResultChars'),
			toolChoice: { type: declared.get('toolChoice') },
		});
		expect(DEFAULT_OUTCOME_LIMITS.maxChars).toBe(declared.get('maxToolResultChars'));
	});

	test('the execute code has no numeric fallbacks of its own', () => {
		// Guards against `?? 24`-style twins creeping back into the node glue and the settings code.
		const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
		for (const file of ['nodes/McpAgent/execute.ts', 'lib/agent/settings.ts']) {
			const source = fs.readFileSync(file, 'utf8');
			expect(source).not.toMatch(/\?\?\s*\d/);
			expect(source).not.toMatch(/positiveInteger\([^,]+,\s*\d/);
		}
	});
});
