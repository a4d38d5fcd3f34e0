import { scanText, scanToolDescription, scanToolDescriptions, type ScannedTool } from './poisoning';
import { fingerprintInstructions, INSTRUCTIONS_PIN_NAME } from './fingerprint';
import { toolNameProblem } from './toolNameRule';

/**
 * What MCP List Tools tells the builder besides the definitions: which tools the Agent will refuse
 * (names breaking the MCP rule) and which descriptions look poisoned, so that nothing is pinned
 * unseen; and the server's instructions as one more entry with its own fingerprint to pin.
 */
export interface ToolFlags {
	/** Why the name breaks the MCP tool name rule (the Agent refuses the tool; MCP Call Tool can still call it by its exact name). */
	nameProblem?: string;
	/** Poisoning warnings on the title, description or input schema. */
	warnings?: string[];
}

export function flagListedTool(tool: ScannedTool): ToolFlags {
	return toolFlags(tool, scanToolDescription(tool));
}

/** flagListedTool for a whole listing, yielding to the event loop while the descriptions are scanned. */
export async function flagListedTools(tools: readonly ScannedTool[]): Promise<ToolFlags[]> {
	const scans = await scanToolDescriptions(tools);
	return tools.map((tool) => toolFlags(tool, scans.get(tool) ?? scanToolDescription(tool)));
}

function toolFlags(tool: ScannedTool, scan: Array<{ message: string }>): ToolFlags {
	const nameProblem = toolNameProblem(tool.name);
	const warnings = scan.map((w) => `Description ${w.message}.`);
	return { ...(nameProblem ? { nameProblem } : {}), ...(warnings.length ? { warnings } : {}) };
}

export interface ListedInstructions {
	name: typeof INSTRUCTIONS_PIN_NAME;
	kind: 'instructions';
	instructions: string;
	fingerprint: string;
	warnings?: string[];
}

/** The server's instructions as a List Tools entry, or undefined when it sent none. */
export function listedInstructions(instructions: unknown): ListedInstructions | undefined {
	const text = typeof instructions === 'string' ? instructions.trim() : '';
	if (!text) return undefined;
	const warnings = scanText(text).map((w) => `Instructions ${w.message}.`);
	return { name: INSTRUCTIONS_PIN_NAME, kind: 'instructions', instructions: text, fingerprint: fingerprintInstructions(text), ...(warnings.length ? { warnings } : {}) };
}
