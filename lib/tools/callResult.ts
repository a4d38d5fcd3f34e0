/**
 * Turns an MCP CallToolResult into plain output: text joined (and parsed when it is JSON),
 * structuredContent kept, and images, audio and embedded binary resources split out so the node
 * can store them as n8n binary data instead of base64 strings in JSON.
 */
export interface ExtractedBinary {
	/** Property name under the item's `binary`. */
	key: string;
	base64: string;
	mimeType: string;
	fileName: string;
}

export interface ToolCallOutput {
	json: {
		tool: string;
		isError: boolean;
		text: string;
		data?: unknown;
		structuredContent?: unknown;
		content: unknown[];
		/** Binary contents that were not stored (over the limits), one line each. */
		notes?: string[];
	};
	binaries: ExtractedBinary[];
}

/**
 * How much binary content one result may bring into n8n: each binary is held in memory (and
 * usually written to the execution data), so a server must not be able to send an unbounded
 * number or size. What is over the limit is replaced by a note in `content` and `notes`.
 */
export interface BinaryLimits {
	maxItems: number;
	/** Decoded bytes, all binaries of one result together. */
	maxTotalBytes: number;
}

export const DEFAULT_BINARY_LIMITS: BinaryLimits = { maxItems: 32, maxTotalBytes: 32 * 1024 * 1024 };

/** Decoded size of base64 text, without decoding it. */
export function base64DecodedBytes(base64: string): number {
	const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
	return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

interface ContentBlock {
	type: string;
	text?: string;
	data?: string;
	mimeType?: string;
	resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
	[key: string]: unknown;
}

/** File extensions by media type essence (type/subtype, lower case). */
const EXTENSIONS: Record<string, string> = {
	'image/png': 'png', 'image/jpeg': 'jpg', 'image/jpg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg',
	'image/bmp': 'bmp', 'image/tiff': 'tiff', 'image/avif': 'avif', 'image/heic': 'heic',
	'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3', 'audio/ogg': 'ogg',
	'audio/webm': 'webm', 'audio/mp4': 'm4a', 'audio/x-m4a': 'm4a', 'audio/aac': 'aac', 'audio/flac': 'flac', 'audio/l16': 'pcm', 'audio/pcm': 'pcm',
	'video/mp4': 'mp4', 'video/webm': 'webm', 'application/pdf': 'pdf', 'application/zip': 'zip',
	'application/gzip': 'gz', 'application/json': 'json', 'text/plain': 'txt', 'text/csv': 'csv', 'text/html': 'html', 'text/markdown': 'md',
};

/** "audio/L16; rate=24000" -> "audio/l16". */
const essenceOf = (mimeType: string) => mimeType.split(';')[0].trim().toLowerCase();

/**
 * The binary's file name: the resource's own (the last part of its URI, decoded) when it is a plain
 * name with an extension, else `<property>.<extension>`. A server chooses that name, and a workflow
 * may use it in a path or a header: separators (either slash), control characters, leading dots
 * and anything but letters, digits, space, . _ - are not kept.
 */
function fileNameFor(base: string, mimeType: string, uri?: string): string {
	if (uri) {
		const last = uri.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? '';
		let decoded = last;
		try {
			decoded = decodeURIComponent(last);
		} catch {
			// not percent-encoded after all: the raw text, checked as it is
		}
		if (/^[\p{L}\p{N} _-][\p{L}\p{N} ._-]{0,99}$/u.test(decoded) && /\.[a-z0-9]{1,6}$/i.test(decoded)) return decoded;
	}
	return `${base}.${EXTENSIONS[essenceOf(mimeType)] ?? 'bin'}`;
}

/**
 * A plain type/subtype, then up to 8 plain `; name=value` parameters ("audio/L16; rate=24000"),
 * quoted values in printable ASCII only: n8n sends the type as a Content-Type header.
 */
const PLAIN_MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9.+-]{0,60}\/[A-Za-z0-9][A-Za-z0-9.+-]{0,60}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]{1,40}=(?:"[\x20\x21\x23-\x5b\x5d-\x7e]{0,100}"|[A-Za-z0-9!#$&^_.+-]{1,100})){0,8}$/;

/**
 * A binary's media type as the server gave it, when it is a plain type/subtype with plain
 * parameters (and, for an image or audio block, of that kind); anything else, such as text with
 * line breaks, is replaced by a neutral type.
 */
function binaryMimeType(mimeType: unknown, kind?: 'image' | 'audio'): string {
	const given = typeof mimeType === 'string' ? mimeType.trim() : '';
	if (!PLAIN_MEDIA_TYPE.test(given)) return 'application/octet-stream';
	const essence = essenceOf(given);
	if (kind && !essence.startsWith(`${kind}/`)) return 'application/octet-stream';
	// Types are case-insensitive: the essence in lower case, the parameters as given.
	const parameters = given.indexOf(';');
	return parameters === -1 ? essence : `${essence}${given.slice(parameters)}`;
}

export function parseJsonText(text: string): unknown {
	const trimmed = text.trim();
	if (!/^[[{"]|^-?\d|^(true|false|null)$/.test(trimmed)) return undefined;
	try {
		return JSON.parse(trimmed);
	} catch {
		return undefined;
	}
}

export function extractToolResult(tool: string, result: Record<string, unknown>, binaryPrefix = 'data', limits: BinaryLimits = DEFAULT_BINARY_LIMITS): ToolCallOutput {
	const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
	const texts: string[] = [];
	const content: unknown[] = [];
	const binaries: ExtractedBinary[] = [];
	const notes: string[] = [];
	let seen = 0;
	let totalBytes = 0;
	/** The binary property name, or a note saying why the content was not stored. */
	const addBinary = (base64: string, mimeType: string, uri?: string): { binaryProperty: string } | { omitted: string } => {
		seen++;
		const bytes = base64DecodedBytes(base64);
		const over =
			binaries.length >= limits.maxItems
				? `more than ${limits.maxItems} binary contents in one result`
				: totalBytes + bytes > limits.maxTotalBytes
					? `the binary contents of one result would exceed ${limits.maxTotalBytes} bytes`
					: undefined;
		if (over) {
			const note = `binary content ${seen} (${mimeType}, ${bytes} bytes${uri ? `, ${uri}` : ''}) not stored: ${over}`;
			notes.push(note);
			return { omitted: note };
		}
		totalBytes += bytes;
		const key = binaries.length === 0 ? binaryPrefix : `${binaryPrefix}_${binaries.length}`;
		binaries.push({ key, base64, mimeType, fileName: fileNameFor(key, mimeType, uri) });
		return { binaryProperty: key };
	};
	for (const block of blocks) {
		if (block.type === 'text' && typeof block.text === 'string') {
			texts.push(block.text);
			content.push(block);
		} else if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
			const mimeType = binaryMimeType(block.mimeType, block.type);
			const stored = addBinary(block.data, mimeType);
			const { data: _omit, ...rest } = block;
			content.push({ ...rest, ...stored });
		} else if (block.type === 'resource' && block.resource) {
			const { blob, ...resourceRest } = block.resource;
			if (typeof blob === 'string') {
				const stored = addBinary(blob, binaryMimeType(block.resource.mimeType), block.resource.uri);
				content.push({ ...block, resource: resourceRest, ...stored });
			} else {
				content.push(block);
			}
		} else {
			content.push(block);
		}
	}
	const text = texts.join('\n');
	const data = texts.length > 0 ? parseJsonText(text) : undefined;
	return {
		json: {
			tool,
			isError: result.isError === true,
			text,
			...(data !== undefined ? { data } : {}),
			...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
			content,
			...(notes.length ? { notes } : {}),
		},
		binaries,
	};
}

/** resources/read contents: text entries joined (and parsed when JSON), blobs split out as binaries (within the same limits). */
export function extractResourceContents(
	uri: string,
	contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>,
	binaryPrefix = 'data',
	limits: BinaryLimits = DEFAULT_BINARY_LIMITS,
): { json: { uri: string; text: string; data?: unknown; contents: unknown[]; notes?: string[] }; binaries: ExtractedBinary[] } {
	const blocks = contents.map((resource) => ({ type: 'resource', resource }));
	const asTool = extractToolResult(uri, { content: blocks }, binaryPrefix, limits);
	const text = contents.filter((c) => typeof c.text === 'string').map((c) => c.text as string).join('\n');
	const data = text ? parseJsonText(text) : undefined;
	const entries = asTool.json.content.map((block) => {
		const { resource, binaryProperty, omitted } = block as { resource: object; binaryProperty?: string; omitted?: string };
		if (binaryProperty) return { ...resource, binaryProperty };
		return omitted ? { ...resource, omitted } : resource;
	});
	return {
		json: { uri, text, ...(data !== undefined ? { data } : {}), contents: entries, ...(asTool.json.notes ? { notes: asTool.json.notes } : {}) },
		binaries: asTool.binaries,
	};
}
