/**
 * Heuristics for tool poisoning: instructions hidden in a description the user never reads. They
 * raise warnings for the reviewer (and can withhold a tool); they never approve anything.
 */
export interface PoisoningWarning {
	code: string;
	message: string;
}

const INVISIBLE = /[\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD\u{E0000}-\u{E007F}]/u;

const CHECKS: Array<{ code: string; pattern: RegExp; message: string }> = [
	{ code: 'hidden-instruction-tag', pattern: /<\s*\/?\s*(important|system|instructions?|secret|hidden|admin)\b[^>]*>/i, message: 'contains an instruction tag such as <IMPORTANT>' },
	{ code: 'override-instructions', pattern: /\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|above|earlier|all|other)\b.{0,20}\b(instructions?|prompts?|rules?|messages?)\b/i, message: 'asks the model to ignore its instructions' },
	{ code: 'conceal-from-user', pattern: /\b(do not|don't|never)\b.{0,30}\b(tell|mention|inform|reveal|show)\b.{0,30}\b(user|human|anyone)\b/i, message: 'asks the model to hide something from the user' },
	{ code: 'secrets', pattern: /(\.ssh\b|id_rsa|id_ed25519|private[ _-]?key|api[ _-]?keys?\b|secret[ _-]?keys?\b|passwords?\b|credentials?\b|\.env\b|environment variables?|process\.env|aws_secret|access[ _-]?tokens?)/i, message: 'mentions secrets, keys, ssh or environment variables' },
	{ code: 'cross-tool', pattern: /\b(before|after|first|instead|also|always)\b.{0,40}\b(call|use|invoke|run|execute)\b.{0,40}\b(tool|function|the [a-z_-]+ tool)\b/i, message: 'tells the model to call other tools' },
	{ code: 'exfiltration', pattern: /\b(send|post|upload|forward|email|transmit)\b.{0,40}\b(to|at)\b.{0,20}(https?:\/\/|[\w.-]+@[\w-]+\.)/i, message: 'asks to send data to an address' },
];

export const MAX_DESCRIPTION_LENGTH = 4000;

export function scanToolDescription(tool: { name: string; title?: string; description?: string; inputSchema?: unknown }): PoisoningWarning[] {
	const description = tool.description ?? '';
	// Parameter descriptions are read by the model too, so they are scanned with the tool's own.
	const schemaText = tool.inputSchema ? JSON.stringify(tool.inputSchema) : '';
	const text = `${tool.title ?? ''}\n${description}\n${schemaText}`;
	const warnings: PoisoningWarning[] = [];
	if (INVISIBLE.test(text)) warnings.push({ code: 'invisible-characters', message: 'contains invisible or bidirectional Unicode characters that can hide text' });
	for (const check of CHECKS) if (check.pattern.test(text)) warnings.push({ code: check.code, message: check.message });
	if (description.length > MAX_DESCRIPTION_LENGTH) warnings.push({ code: 'extreme-length', message: `has an unusually long description (${description.length} characters)` });
	return warnings;
}
