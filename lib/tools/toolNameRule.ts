// Linear time on server and model text (issue 25): every pattern here is a literal, one character
// class or one run of a class with nothing after it to backtrack into: V8 runs it in one pass.

/**
 * The MCP rule for tool names (specification 2025-11-25, "Tool names"; the SDK's own check uses the
 * same expression): 1 to 128 characters, only ASCII letters, digits, "_", "-" and ".". The rule is a
 * SHOULD for servers; the Agent makes it a MUST, because a name reaches the model, the review page
 * and the channel messages: a line break, a space, a control or an invisible character in it could
 * add a line, fake a field or hide part of the name from the reviewer. Keeping "/" and ":" out also
 * keeps "server/tool" and "server:tool" patterns unambiguous.
 */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export const MAX_TOOL_NAME_LENGTH = 128;

export function isValidToolName(name: unknown): boolean {
	return typeof name === 'string' && MCP_TOOL_NAME.test(name);
}

/**
 * The name as a JSON string literal in plain printable ASCII: quotes, backslashes and control
 * characters escaped by JSON, everything outside " "…"~" (line separators, invisible and
 * bidirectional characters, any non-ASCII letter) as \uXXXX. It can be put in any message
 * without adding a line or hiding a character. Long names are cut (with the total length said).
 */
export function quoteToolName(name: string, max = 200): string {
	const cut = name.length > max ? name.slice(0, max) : name;
	const quoted = JSON.stringify(cut).replace(/[^\x20-\x7E]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
	return name.length > max ? `${quoted}… (${name.length} characters)` : quoted;
}

/** Why a name breaks the rule (undefined when it does not); the name appears quoted. */
export function toolNameProblem(name: string): string | undefined {
	if (isValidToolName(name)) return undefined;
	const quoted = quoteToolName(name);
	if (name.length === 0) return 'the tool name is empty';
	if (/[\r\n\u0085\u2028\u2029]/.test(name)) return `the tool name ${quoted} contains a line break`;
	if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/u.test(name)) return `the tool name ${quoted} contains control or invisible characters`;
	if (/\s/.test(name)) return `the tool name ${quoted} contains spaces`;
	if (name.length > MAX_TOOL_NAME_LENGTH) return `the tool name ${quoted} is longer than ${MAX_TOOL_NAME_LENGTH} characters`;
	return `the tool name ${quoted} has characters outside A-Z, a-z, 0-9, "_", "-" and "." (the MCP tool name rule)`;
}

/** The name as it may be shown anywhere: unchanged when it follows the rule, quoted otherwise. */
export function displayToolName(name: string): string {
	return isValidToolName(name) ? name : quoteToolName(name);
}
