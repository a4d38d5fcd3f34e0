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
	};
	binaries: ExtractedBinary[];
}

interface ContentBlock {
	type: string;
	text?: string;
	data?: string;
	mimeType?: string;
	resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
	[key: string]: unknown;
}

const EXTENSIONS: Record<string, string> = {
	'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg',
	'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/ogg': 'ogg', 'application/pdf': 'pdf',
	'application/gzip': 'gz', 'application/json': 'json', 'text/plain': 'txt',
};

function fileNameFor(base: string, mimeType: string, uri?: string): string {
	if (uri) {
		const last = uri.split(/[?#]/)[0].split('/').filter(Boolean).pop();
		if (last && /\.[a-z0-9]{1,6}$/i.test(last)) return last;
	}
	return `${base}.${EXTENSIONS[mimeType] ?? 'bin'}`;
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

export function extractToolResult(tool: string, result: Record<string, unknown>, binaryPrefix = 'data'): ToolCallOutput {
	const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
	const texts: string[] = [];
	const content: unknown[] = [];
	const binaries: ExtractedBinary[] = [];
	const addBinary = (base64: string, mimeType: string, uri?: string) => {
		const key = binaries.length === 0 ? binaryPrefix : `${binaryPrefix}_${binaries.length}`;
		binaries.push({ key, base64, mimeType, fileName: fileNameFor(key, mimeType, uri) });
		return key;
	};
	for (const block of blocks) {
		if (block.type === 'text' && typeof block.text === 'string') {
			texts.push(block.text);
			content.push(block);
		} else if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
			const mimeType = block.mimeType ?? 'application/octet-stream';
			const key = addBinary(block.data, mimeType);
			const { data: _omit, ...rest } = block;
			content.push({ ...rest, binaryProperty: key });
		} else if (block.type === 'resource' && block.resource) {
			const { blob, ...resourceRest } = block.resource;
			if (typeof blob === 'string') {
				const key = addBinary(blob, block.resource.mimeType ?? 'application/octet-stream', block.resource.uri);
				content.push({ ...block, resource: resourceRest, binaryProperty: key });
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
		},
		binaries,
	};
}

/** resources/read contents: text entries joined (and parsed when JSON), blobs split out as binaries. */
export function extractResourceContents(
	uri: string,
	contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>,
	binaryPrefix = 'data',
): { json: { uri: string; text: string; data?: unknown; contents: unknown[] }; binaries: ExtractedBinary[] } {
	const blocks = contents.map((resource) => ({ type: 'resource', resource }));
	const asTool = extractToolResult(uri, { content: blocks }, binaryPrefix);
	const text = contents.filter((c) => typeof c.text === 'string').map((c) => c.text as string).join('\n');
	const data = text ? parseJsonText(text) : undefined;
	return {
		json: { uri, text, ...(data !== undefined ? { data } : {}), contents: asTool.json.content.map((block) => (block as { resource: unknown; binaryProperty?: string }).binaryProperty ? { ...(block as { resource: object }).resource, binaryProperty: (block as { binaryProperty: string }).binaryProperty } : (block as { resource: unknown }).resource) },
		binaries: asTool.binaries,
	};
}
