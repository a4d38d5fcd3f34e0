import { AGENT_DEFAULTS } from './defaults';
import { isJsonObject } from '../util/jsonObject';
import type { ToolImage, ToolOutcome } from '../providers/modelTypes';

export interface OutcomeLimits {
	maxChars: number;
	/** Largest image (decoded bytes) passed to the model; larger ones are replaced by a note. */
	maxImageBytes: number;
	/**
	 * Images of one result passed to the model, and their decoded bytes together: every image is
	 * re-sent on every later turn and stored with a paused run. Defaults as in DEFAULT_OUTCOME_LIMITS.
	 */
	maxImages?: number;
	maxTotalImageBytes?: number;
}

export const DEFAULT_OUTCOME_LIMITS: OutcomeLimits = { maxChars: AGENT_DEFAULTS.maxToolResultChars, maxImageBytes: 1_000_000, maxImages: 8, maxTotalImageBytes: 4_000_000 };

/** An image media type as the providers take one (type/subtype, no parameters or stray text). */
const IMAGE_MIME_TYPE = /^image\/[A-Za-z0-9][A-Za-z0-9.+-]{0,60}$/;

/**
 * The note that ends a trimmed text. It speaks to the model: that the Agent cut the result (not the
 * tool), how much it sees of how much, and that calling the same way again returns the same cut.
 */
export function trimmedNote(shown: number, total: number): string {
	return `\n…[trimmed by the agent: you see the first ${shown} of ${total} characters of this result (Max Tool Result Characters); the last ${total - shown} characters were cut. If you need them, ask the tool for a smaller part (a filter, page or range) where it offers one.]`;
}

/** A text as the model gets it, and (when it was trimmed) how many characters it shows of how many. */
export interface TrimmedText {
	text: string;
	trimmed?: { shown: number; total: number };
}

/**
 * Cuts text to at most `max` characters (never inside a surrogate pair: a lone half is not valid
 * Unicode, and some providers refuse the request) with a note the model and the reviewer see.
 */
export function trimText(text: string, max: number): TrimmedText {
	if (max <= 0 || text.length <= max) return { text };
	const high = text.charCodeAt(max - 1);
	const shown = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
	return { text: `${text.slice(0, shown)}${trimmedNote(shown, text.length)}`, trimmed: { shown, total: text.length } };
}

/** Cuts text to `max` characters with a marker the model (and the reviewer) can see. */
export function capText(text: string, max: number): string {
	return trimText(text, max).text;
}

/** The outcome as the model gets it: its text trimmed to `max`, and how long it was when trimmed. */
export function trimOutcome(outcome: ToolOutcome, max: number): ToolOutcome {
	const trimmed = trimText(outcome.text, max);
	if (!trimmed.trimmed) return outcome;
	return { ...outcome, text: trimmed.text, trimmed: trimmed.trimmed };
}

/**
 * An MCP CallToolResult in the neutral form the providers accept: text (with structuredContent,
 * resource links and embedded text resources written out), images kept when small enough, and
 * everything capped before it reaches the model or the stored state.
 */
export function toolOutcomeFromMcp(id: string, result: Record<string, unknown>, limits: OutcomeLimits): ToolOutcome {
	return trimOutcome(untrimmedOutcomeFromMcp(id, result, limits), limits.maxChars);
}

/** toolOutcomeFromMcp before its text is trimmed (images are capped already): the tool runner keeps this text for the node's output when asked. */
export function untrimmedOutcomeFromMcp(id: string, result: Record<string, unknown>, limits: OutcomeLimits): ToolOutcome {
	// A null or a string where a block belongs is a server's mistake: reported, not read.
	const raw = Array.isArray(result.content) ? (result.content as unknown[]) : [];
	const blocks = raw.filter(isJsonObject);
	// The common result: one text block.
	if (blocks.length === 1 && blocks[0].type === 'text') {
		return { id, isError: result.isError === true, text: String(blocks[0].text ?? ''), images: [] };
	}
	const parts: string[] = [];
	const images: ToolImage[] = [];
	const maxImages = limits.maxImages ?? (DEFAULT_OUTCOME_LIMITS.maxImages as number);
	const maxTotal = limits.maxTotalImageBytes ?? (DEFAULT_OUTCOME_LIMITS.maxTotalImageBytes as number);
	let imageBytes = 0;
	if (blocks.length < raw.length) parts.push(`[${raw.length - blocks.length} content block(s) that are not objects omitted]`);
	for (const block of blocks) {
		switch (block.type) {
			case 'text':
				parts.push(String(block.text ?? ''));
				break;
			case 'image': {
				const data = String(block.data ?? '');
				const bytes = Math.floor((data.length * 3) / 4);
				const mimeType = typeof block.mimeType === 'string' ? block.mimeType : '';
				if (!IMAGE_MIME_TYPE.test(mimeType)) parts.push(`[image omitted: its type ${JSON.stringify(mimeType.slice(0, 60))} is not an image type]`);
				else if (bytes > limits.maxImageBytes) parts.push(`[image omitted: ${block.mimeType}, ${bytes} bytes is over the limit]`);
				else if (images.length >= maxImages) parts.push(`[image omitted: ${block.mimeType}, more than ${maxImages} images in one tool result]`);
				else if (imageBytes + bytes > maxTotal) parts.push(`[image omitted: ${block.mimeType}, the images of one tool result would exceed ${maxTotal} bytes]`);
				else {
					imageBytes += bytes;
					images.push({ mimeType, data });
				}
				break;
			}
			case 'audio':
				parts.push(`[audio omitted: ${block.mimeType}]`);
				break;
			case 'resource_link':
				parts.push(`[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`);
				break;
			case 'resource': {
				const resource = (block.resource ?? {}) as Record<string, unknown>;
				if (typeof resource.text === 'string') parts.push(`[resource ${resource.uri}]\n${resource.text}`);
				else parts.push(`[binary resource omitted: ${resource.uri} (${resource.mimeType ?? 'unknown type'})]`);
				break;
			}
			default:
				parts.push(`[unsupported content block: ${String(block.type)}]`);
		}
	}
	if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
	return { id, isError: result.isError === true, text: parts.join('\n'), images };
}

export function errorOutcome(id: string, message: string, limits: OutcomeLimits): ToolOutcome {
	return trimOutcome({ id, isError: true, text: message, images: [] }, limits.maxChars);
}
