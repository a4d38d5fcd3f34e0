import { RE2JS } from 're2js';
import { toRe2Syntax } from './safeRegExp';
import { INVISIBLE_CHARACTER } from './invisibleCharacters';
import { YIELD_SLICE_MS, yieldToEventLoop } from '../util/yielding';

/**
 * Heuristics for tool poisoning and prompt injection: instructions hidden in text the user never
 * reads (tool descriptions, server instructions, tool results). They raise warnings for the
 * reviewer (and can withhold a tool); they never approve anything.
 *
 * The text is a server's (or a model's) choice, so the patterns run on RE2 (re2js), whose matching
 * time is linear in the text: on V8's backtracking engine, near-miss text ("send send to to at at
 * via via ...") cost 20-50 ms per pattern and field, and a hostile listing froze n8n for minutes.
 * The patterns are written in ECMA-262 syntax and translated by toRe2Syntax (`.` and `\s` keep
 * their ECMA-262 meaning); line starts and the one lookahead are spelled so that RE2 means the
 * same (see LINE_START and neutralizePasswordReset). RE2's case folding is Unicode's, so "ſ"
 * and the Kelvin sign also match "s" and "k": a superset of what V8 matched, never less. Each
 * field is scanned up to MAX_SCANNED_CHARACTERS only (and flagged when longer); scanListing scans
 * a whole listing and yields to the event loop as it goes.
 */
export interface PoisoningWarning {
	code: string;
	message: string;
}

/** Characters of one field the patterns look at; text beyond it is flagged as not fully scanned. */
export const MAX_SCANNED_CHARACTERS = 64 * 1024;

/** Descriptions longer than this are flagged as unusually long (they still reach the model, cut at the catalog's limit). */
export const MAX_DESCRIPTION_LENGTH = 4000;

// Words that send something somewhere, or make the model fetch a URL (which carries data out in its query).
const SEND = 'send|sends|post|posts|upload|uploads|forward|forwards|e-?mail|transmit|share|sync|submit|deliver|leak|exfiltrate|relay|mirror|pipe|beacon|report|notify|fetch|curl|wget|visit|request|ping';
// Words that make the model gather or hand over data.
const TAKE = 'read|reads|send|upload|include|includes|pass|collect|gather|extract|copy|print|output|dump|reveal|leak|share|attach|append|add|insert|embed|encode|forward|transmit|exfiltrate|steal|grab|harvest|cat|open|access|look up|retrieve|provide|give|fetch|post|e-?mail';
const SECRET_NOUN =
	'api[ _-]?keys?|secret[ _-]?keys?|secrets|private[ _-]?keys?|ssh[ _-]?keys?|passwords?|passphrases?|credentials?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer[ _-]?tokens?|session[ _-]?tokens?|refresh[ _-]?tokens?|cookies|environment[ _-]variables?|env[ _-]vars?|process\\.env|\\.env\\b|aws_secret\\w{0,30}|seed[ _-]phrases?|mnemonic|recovery[ _-]phrases?';
const SECRECY = 'quietly|silently|secretly|covertly|discreetly|stealthily|invisibly|surreptitiously';
const ACTION = 'read|reads|send|sends|copy|copies|upload|include|add|append|attach|call|run|execute|invoke|forward|post|fetch|collect|gather|exfiltrate|access|pass|leak|transmit|e-?mail|delete|remove|write|modify|log|store|save|share|sync|grab|open|list|dump';

// ECMA-262's multiline "^" (start of text or after \n, \r, U+2028, U+2029; RE2's only knows \n).
// Consuming the terminator is harmless: "^" only ever starts an alternative and the checks only test.
const LINE_START = '(?:^|[\\r\\u2028\\u2029])';

/**
 * "password reset" is not a secret: the patterns were written with `passwords?(?! reset)`, and RE2
 * has no lookahead. Changing the "o" of each "password reset" to "0" stops `passwords?` matching
 * there and nowhere else, which is exactly what the lookahead did: both are word characters and
 * in every class the patterns use, no literal of any check can match across the middle of
 * "password" (all start at a word boundary), and none names "passw" or a digit there. So every
 * check sees the rewritten text. The literal pattern has no repetition: linear on V8.
 */
function neutralizePasswordReset(text: string): string {
	return text.replace(/password reset/gi, (found) => `${found.slice(0, 5)}0${found.slice(6)}`);
}

interface Check {
	code: string;
	/** ECMA-262 source and flags ("i", "m"), compiled for RE2 below; the check matches when one of the alternatives does. */
	source: string | string[];
	flags: string;
	message: string;
}

const SOURCES: Check[] = [
	{
		code: 'hidden-instruction-tag',
		source: '<\\s{0,3}\\/?\\s{0,3}(important|system|instructions?|secret|hidden|admin|assistant|developer|system[_-]?prompt|user[_-]?prompt|prompt|note[_-]?to[_-]?(ai|assistant|model|llm))\\b[^>\\n]{0,200}>',
		flags: 'i',
		message: 'contains an instruction tag such as <IMPORTANT>',
	},
	{
		code: 'role-impersonation',
		source: [
			'<\\|\\s{0,2}(im_start|im_end|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id)\\s{0,2}\\|>',
			'\\[\\/?INST\\]',
			'<<\\/?SYS>>',
			// "system:" / "assistant:" at the start of a line, with or without a Markdown heading or bullet.
			`${LINE_START}[ \\t>#*-]{0,8}(system|assistant|developer)[ \\t]{0,3}(message|prompt|note)?[ \\t]{0,3}:`,
			'\\bthis is an? (system|developer|admin|administrator|security|priority|urgent) (message|instruction|notice|prompt|override)',
			'\\b(message|instructions?|note|notice|update) from (the |your )?(system|developer|administrator|admin|operator|anthropic|openai)\\b',
			'\\b(system|admin|developer|security) (override|instruction|notice|directive)s?[ \\t]{0,3}:',
		],
		flags: 'im',
		message: 'pretends to be a system, developer or assistant message',
	},
	{
		code: 'override-instructions',
		source: [
			`\\b(ignore|ignoring|disregard|forget|override|overrule|bypass|circumvent|discard|abandon|neglect|set aside|pay no (attention|heed|mind) to|take no notice of|do not follow|don't follow|stop following|no longer follow|supersedes?)\\b.{0,40}\\b(previous|prior|above|earlier|preceding|former|all|any|other|original|initial|existing|your|system|developer|safety)\\b.{0,20}\\b(instructions?|prompts?|rules?|messages?|directions?|directives?|guidelines?|guidance|constraints?|policies|polic(y)|restrictions?|orders|commands)\\b`,
			'\\b(your|the) (new|real|actual|true|updated) (task|instructions?|goal|objective|directive|role) (is|are)\\b',
			'\\b(new|updated|revised) (system )?instructions[ \\t]{0,3}:',
			'\\bfrom now on,? you (are|must|will|should)\\b',
			'\\b(reveal|print|output|repeat|show|share|send|leak|include|return|reply with|respond with|tell me)\\b.{0,30}\\b(the |your )?(system prompt|(hidden|initial|original|secret) (instructions|prompt)|developer message)',
		],
		flags: 'i',
		message: 'asks the model to ignore or reveal its instructions',
	},
	{
		code: 'conceal-from-user',
		source: [
			"\\b(do not|don't|never|must not|should not)\\b.{0,30}\\b(tell|mention|inform|reveal|show|disclose|notify|alert|report|explain)\\b.{0,30}\\b(user|human|anyone|operator|person)\\b",
			'\\bwithout (telling|informing|notifying|alerting|asking|showing|mentioning|letting|the user|the human|anyone)',
			'\\bkeep (this|it|that|these)\\b.{0,20}\\b(secret|hidden|confidential|between us|to yourself)\\b',
			'\\b(hide|conceal)\\b.{0,30}\\bfrom (the )?(user|human|person|operator)\\b',
			"\\b(the )?(user|human) (must|should|need|needs to|does not need to|doesn't need to|need not) ?(not )?(know|see|notice|be told)\\b",
			"\\bbehind the (user|human)'?s back\\b",
		],
		flags: 'i',
		message: 'asks the model to hide something from the user',
	},
	{
		code: 'covert-action',
		source: [`\\b(${SECRECY})\\b[^.!?\\n]{0,30}\\b(${ACTION})\\b`, `\\b(${ACTION})\\b[^.!?\\n]{0,40}\\b(${SECRECY})\\b`],
		flags: 'i',
		message: 'asks the model to do something quietly or secretly',
	},
	{
		code: 'secrets',
		source: [
			// Files and places that hold secrets: a tool description has no business naming them.
			'~\\/\\.(aws|ssh|config|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|bash_history|zsh_history|password-store)\\b',
			'\\.ssh\\/|\\bid_(rsa|dsa|ecdsa|ed25519)\\b|\\/etc\\/(passwd|shadow|sudoers)\\b',
			'(^|[\\s"\'(/~])\\.(netrc|npmrc|pypirc|git-credentials|pgpass)\\b',
			'\\.aws\\/(credentials|config)\\b|\\bkube\\/?config\\b|\\.kube\\/|\\.docker\\/config\\.json',
			'\\b(browser|chrome|chromium|firefox|safari|edge|brave)\\b.{0,20}\\b(cookies|saved passwords|passwords|login data|keychain)\\b',
			'\\bcookies\\.sqlite\\b|\\bLogin Data\\b|\\bwallet\\.dat\\b|\\bkeychain\\b|\\bkeystore\\b',
			'\\b(crypto|bitcoin|ethereum|metamask|phantom|solana|wallet)\\b.{0,20}\\b(wallets?|seed|mnemonic|private keys?|recovery)\\b',
			// Secrets in general, when the text asks for them to be taken or handed over.
			`\\b(${TAKE})\\b.{0,60}\\b(${SECRET_NOUN})`,
			`\\b(${SECRET_NOUN}).{0,40}\\b(included|sent|passed|added|appended|attached|uploaded|forwarded|copied|pasted)\\b`,
			`\\b(user's|users'|your|their|the user's)\\b.{0,10}\\b(${SECRET_NOUN})`,
		],
		flags: 'im',
		message: 'asks for secrets, keys, credentials, sensitive files or environment variables',
	},
	{
		code: 'cross-tool',
		source: [
			/\b(before|after|first|instead|also|always)\b.{0,40}\b(call|use|invoke|run|execute)\b.{0,40}\b(tool|function|the [a-z0-9_.-]{1,64} tool)\b/.source,
			/\b(must|should|always) (first )?(call|invoke|use) the\b.{0,64}\btool (first|before)\b/.source,
		],
		flags: 'i',
		message: 'tells the model to call other tools',
	},
	{
		code: 'exfiltration',
		source: [
			`\\b(${SEND})\\b.{0,40}\\b(to|at|via)\\b.{0,20}(https?:\\/\\/|\\b[\\w.+-]{1,64}@[\\w-]{1,64}\\.|\\b[\\w-]{1,63}\\.(com|net|org|io|xyz|ru|cn|site|top|app|dev|info|biz|cc|tk|me)\\b|\\bwebhook)`,
			// A Markdown image is fetched as soon as it is rendered: its URL carries data out.
			'!\\[[^\\]\\n]{0,200}\\]\\(\\s{0,3}(https?:)?\\/\\/',
			// A Markdown link or a bare URL with a query string that takes a placeholder or data.
			'\\[[^\\]\\n]{0,200}\\]\\(\\s{0,3}https?:\\/\\/[^)\\s?]{1,300}\\?[^)\\s]{1,300}\\)',
			'https?:\\/\\/[^\\s"\'<>?]{1,300}\\?[^\\s"\'<>]{0,200}(\\{|%7B|\\$\\(|<[a-z_]|\\b(data|content|contents|secret|secrets|token|key|keys|env|file|conv|conversation|chat|history|msg|message|prompt|q)=\\{?)',
			'\\b(append|add|encode|include|put|insert|embed)\\b.{0,30}\\b(contents?|data|conversation|chat|history|secrets?|keys?|tokens?|files?|messages?|results?|output|it|them)\\b.{0,30}\\b(to|in|into)\\b.{0,10}\\b(the |a |an )?(url|link|query|image|webhook)',
			`\\b(${TAKE})\\b.{0,30}\\b(contents? of|all|every)\\b.{0,30}\\b(user's|users'|your|their|local|private|home)\\b.{0,20}\\b(files?|documents?|messages?|e-?mails?|conversations?|history|notes|directory|folder)`,
			'\\b(include|pass|send|add|put|append|attach|copy)\\b.{0,30}\\b(entire|full|whole|complete|previous|prior|all)\\b.{0,10}\\b(conversation|chat history|message history|transcript|context)\\b',
		],
		flags: 'i',
		message: 'asks to send data to an address, a link or an image URL',
	},
];

/** A check for RE2. Exported for the test that no server text meets a backtracking engine. */
export interface CompiledCheck {
	code: string;
	message: string;
	/**
	 * All alternatives in one program: one pass over the field (RE2's cost per character hardly
	 * depends on how many alternatives are alive, so this is several times faster than a pass per
	 * alternative; on 64 KB of near-miss text one pass takes up to about 100 ms).
	 */
	pattern: RE2JS;
}

/**
 * Wraps each character class without letters (`.`, `\s`, `[^>\n]`, ...) in `(?-i:...)`. No
 * character in them has a case variant, so the class means the same, but RE2 no longer folds a
 * class of nearly all Unicode for every copy in `.{0,60}`: compiling gets about three times faster.
 */
function withoutFoldingOfCaselessClasses(re2: string): string {
	let out = '';
	for (let at = 0; at < re2.length; at++) {
		const char = re2[at];
		if (char === '\\') {
			out += re2.slice(at, at + 2);
			at += 1;
		} else if (char === '[') {
			let end = at + 1;
			if (re2[end] === '^') end += 1;
			if (re2[end] === ']') end += 1;
			while (end < re2.length && re2[end] !== ']') end += re2[end] === '\\' ? 2 : 1;
			const body = re2.slice(at, end + 1);
			// Escapes such as \x{2028}, \n or \. name no letter; \w, \d and \p might.
			const caseless = !/[A-Za-z]/.test(body.replace(/\\x\{[0-9a-fA-F]+\}|\\[^wWdDpP]/g, ''));
			out += caseless ? `(?-i:${body})` : body;
			at = end;
		} else out += char;
	}
	return out;
}

function re2Flags(flags: string): number {
	let value = 0;
	for (const flag of flags) {
		if (flag === 'i') value |= RE2JS.CASE_INSENSITIVE;
		else if (flag === 'm') value |= RE2JS.MULTILINE;
		// The flags are this module's own (SOURCES), compiled at load: no input reaches here (a plain Error: a fault of ours, caught by the tests).
		else throw new Error(`poisoning check: unsupported flag ${flag}`);
	}
	return value;
}

// Compiled when the module loads (about 0.2 s once per process, a few tens of milliseconds per
// check): compiled on first use instead, the first scan of a process took half a second.
export const CHECKS: readonly CompiledCheck[] = SOURCES.map((check) => {
	const alternatives = (Array.isArray(check.source) ? check.source : [check.source]).map((alternative) => withoutFoldingOfCaselessClasses(toRe2Syntax(alternative)));
	const flags = re2Flags(check.flags);
	return {
		code: check.code,
		message: check.message,
		pattern: RE2JS.compile(alternatives.map((alternative) => `(?:${alternative})`).join('|'), flags),
	};
});

/**
 * The scan of one text as steps, one check each (at most about 100 ms on 64 KB of hostile text,
 * a few milliseconds on ordinary fields): scanText runs them in one go, scanToolDescriptions
 * pauses between them.
 */
function* textScan(text: string): Generator<void, PoisoningWarning[]> {
	if (typeof text !== 'string' || text === '') return [];
	const scanned = text.length > MAX_SCANNED_CHARACTERS ? text.slice(0, MAX_SCANNED_CHARACTERS) : text;
	const warnings: PoisoningWarning[] = [];
	// One character class, no repetition: linear on V8's engine too.
	if (INVISIBLE_CHARACTER.test(scanned)) warnings.push({ code: 'invisible-characters', message: 'contains invisible or bidirectional Unicode characters that can hide text' });
	const input = neutralizePasswordReset(scanned);
	for (const check of CHECKS) {
		const found = check.pattern.test(input);
		yield;
		if (found) warnings.push({ code: check.code, message: check.message });
	}
	if (scanned.length < text.length) {
		warnings.push({ code: 'not-fully-scanned', message: `is ${text.length} characters long; only the first ${MAX_SCANNED_CHARACTERS} were scanned` });
	}
	return warnings;
}

function runToEnd<T>(steps: Generator<void, T>): T {
	for (;;) {
		const step = steps.next();
		if (step.done) return step.value;
	}
}

/**
 * Scans one text (a tool result, server instructions, a field of a tool definition). Only the
 * first MAX_SCANNED_CHARACTERS are scanned; longer text is flagged for that.
 */
export function scanText(text: string): PoisoningWarning[] {
	return runToEnd(textScan(text));
}

/** Adds the warnings of `more` whose code is not in `all` yet (the first of each code is kept). */
export function mergeInto(all: PoisoningWarning[], more: PoisoningWarning[]): void {
	for (const warning of more) if (!all.some((w) => w.code === warning.code)) all.push(warning);
}

export interface ScannedTool {
	name: string;
	title?: string;
	description?: string;
	inputSchema?: unknown;
}

function* toolScan(tool: ScannedTool): Generator<void, PoisoningWarning[]> {
	const description = typeof tool.description === 'string' ? tool.description : '';
	const warnings: PoisoningWarning[] = [];
	mergeInto(warnings, yield* textScan(typeof tool.title === 'string' ? tool.title : ''));
	mergeInto(warnings, yield* textScan(description));
	mergeInto(warnings, yield* textScan(tool.inputSchema ? JSON.stringify(tool.inputSchema) : ''));
	if (description.length > MAX_DESCRIPTION_LENGTH) warnings.push({ code: 'extreme-length', message: `has an unusually long description (${description.length} characters)` });
	return warnings;
}

/**
 * A tool's title, description and input schema (parameter descriptions are read by the model
 * too), each scanned on its own so a long schema cannot push the description out of the window.
 */
export function scanToolDescription(tool: ScannedTool): PoisoningWarning[] {
	return runToEnd(toolScan(tool));
}

/** Work done between two yields to the event loop while a listing is scanned. */
export const SCAN_SLICE_MS = YIELD_SLICE_MS;

/** The warnings of each tool, by the tool's object (as listed); what buildCatalog reads instead of scanning again. */
export type ToolScans = ReadonlyMap<object, PoisoningWarning[]>;

/**
 * scanToolDescription for every tool of a listing, yielding to the event loop (setImmediate)
 * whenever SCAN_SLICE_MS of work is done: a server may list 2,000 tools of 64 KB near-miss text
 * each, and n8n must go on answering (webhooks, /healthz, other executions) while they are scanned.
 */
export async function scanToolDescriptions(tools: readonly ScannedTool[], sliceMs = SCAN_SLICE_MS): Promise<Map<ScannedTool, PoisoningWarning[]>> {
	const scans = new Map<ScannedTool, PoisoningWarning[]>();
	let sliceStart = performance.now();
	for (const tool of tools) {
		const steps = toolScan(tool);
		for (;;) {
			const step = steps.next();
			if (step.done) {
				scans.set(tool, step.value);
				break;
			}
			if (performance.now() - sliceStart >= sliceMs) {
				await yieldToEventLoop();
				sliceStart = performance.now();
			}
		}
	}
	return scans;
}
