import { buildCatalog, MAX_CATALOG_DESCRIPTION_LENGTH } from '../../lib/agent/catalog';
import { DEFAULT_OUTCOME_LIMITS, toolOutcomeFromMcp } from '../../lib/agent/toolOutcome';
import type { McpConnection } from '../../lib/mcp/connection';
import { listAllTools, MAX_TOOLS_PER_SERVER } from '../../lib/mcp/listing';
import { extractResourceContents, extractToolResult } from '../../lib/tools/callResult';
import { fingerprintTool } from '../../lib/tools/fingerprint';

/** base64 of `bytes` zero bytes (length a multiple of 3, so no padding). */
const base64Of = (bytes: number) => 'A'.repeat((bytes / 3) * 4);

describe('images in one Agent tool result', () => {
	it('passes at most 8 images to the model and says what was left out', () => {
		const content = Array.from({ length: 10 }, () => ({ type: 'image', data: base64Of(3), mimeType: 'image/png' }));
		const outcome = toolOutcomeFromMcp('c1', { content }, DEFAULT_OUTCOME_LIMITS);
		expect(outcome.images).toHaveLength(8);
		expect(outcome.text.match(/image omitted: image\/png, more than 8 images in one tool result/g)).toHaveLength(2);
	});

	it('passes at most 4 MB of images together', () => {
		const content = Array.from({ length: 5 }, () => ({ type: 'image', data: base64Of(999_999), mimeType: 'image/jpeg' }));
		const outcome = toolOutcomeFromMcp('c1', { content }, DEFAULT_OUTCOME_LIMITS);
		expect(outcome.images).toHaveLength(4);
		expect(outcome.text).toMatch(/image omitted: image\/jpeg, the images of one tool result would exceed 4000000 bytes/);
	});
});

describe('malformed content blocks in an Agent tool result', () => {
	it('a block that is not an object is reported, and an image whose type is not an image type is left out', () => {
		const outcome = toolOutcomeFromMcp('c1', { content: [null, 'x', { type: 'text', text: 'ok' }, { type: 'image', data: base64Of(3), mimeType: 'text/html' }, { type: 'image', data: base64Of(3), mimeType: 'x'.repeat(5_000_000) }] }, DEFAULT_OUTCOME_LIMITS);
		expect(outcome.images).toEqual([]);
		expect(outcome.text).toContain('[2 content block(s) that are not objects omitted]');
		expect(outcome.text).toContain('ok');
		expect(outcome.text).toContain('[image omitted: its type "text/html" is not an image type]');
		expect(outcome.text.length).toBeLessThan(500);
	});
});

describe('binary names and types a server chooses (MCP Call Tool)', () => {
	it('a file name is kept only when it is a plain name; a media type only when it is one, of the block\'s kind', () => {
		const blob = base64Of(3);
		const resource = (uri: string, mimeType = 'application/pdf') => ({ type: 'resource', resource: { uri, mimeType, blob } });
		const output = extractToolResult('files', {
			content: [
				resource('file:///docs/report%202026.pdf'),
				resource('file:///x/..\\..\\windows\\evil.exe'),
				resource('file:///x/a%0d%0aSet-Cookie: x=1.txt'),
				resource('file:///x/%2e%2e%2fescape.sh'),
				resource('file:///x/.hidden.txt'),
				resource('file:///x/plain.txt', 'text/plain\r\nX-Evil: 1'),
				{ type: 'image', data: blob, mimeType: 'text/html' },
			],
		});
		expect(output.binaries.map((b) => [b.fileName, b.mimeType])).toEqual([
			['report 2026.pdf', 'application/pdf'],
			['data_1.pdf', 'application/pdf'],
			['data_2.pdf', 'application/pdf'],
			['data_3.pdf', 'application/pdf'],
			['data_4.pdf', 'application/pdf'],
			['plain.txt', 'application/octet-stream'],
			['data_6.bin', 'application/octet-stream'],
		]);
	});

	it('keeps plain parameters and any letter case of a media type, and names common types', () => {
		const blob = base64Of(3);
		const output = extractToolResult('speech', {
			content: [
				{ type: 'audio', data: blob, mimeType: 'audio/wav; rate=16000' },
				{ type: 'audio', data: blob, mimeType: 'audio/L16;rate=24000;channels=1' },
				{ type: 'image', data: blob, mimeType: 'image/jpg' },
				{ type: 'image', data: blob, mimeType: 'IMAGE/PNG' },
				{ type: 'audio', data: blob, mimeType: 'audio/webm' },
				{ type: 'audio', data: blob, mimeType: 'audio/mp4' },
				{ type: 'audio', data: blob, mimeType: 'audio/wav; rate=16000\r\nX-Evil: 1' },
				{ type: 'audio', data: blob, mimeType: 'audio/wav; name="\u202egpj.exe\u2028"' },
			],
		});
		expect(output.binaries.map((b) => [b.fileName, b.mimeType])).toEqual([
			['data.wav', 'audio/wav; rate=16000'],
			['data_1.pcm', 'audio/l16;rate=24000;channels=1'],
			['data_2.jpg', 'image/jpg'],
			['data_3.png', 'image/png'],
			['data_4.webm', 'audio/webm'],
			['data_5.m4a', 'audio/mp4'],
			['data_6.bin', 'application/octet-stream'],
			['data_7.bin', 'application/octet-stream'],
		]);
	});
});

describe('binary contents in one MCP Call Tool result', () => {
	it('stores at most 32 binaries and replaces the rest with a visible note', () => {
		const content = Array.from({ length: 34 }, () => ({ type: 'image', data: base64Of(3), mimeType: 'image/png' }));
		const output = extractToolResult('render', { content });
		expect(output.binaries).toHaveLength(32);
		expect(output.json.content).toHaveLength(34);
		expect(output.json.content[33]).toEqual({ type: 'image', mimeType: 'image/png', omitted: expect.stringMatching(/^binary content 34 \(image\/png, 3 bytes\) not stored: more than 32 binary contents/) });
		expect(output.json.notes).toHaveLength(2);
	});

	it('stores at most 32 MB together, also for resources/read', () => {
		const big = base64Of(12 * 1024 * 1024);
		const output = extractToolResult('export', { content: [1, 2, 3].map((n) => ({ type: 'resource', resource: { uri: `file:///r${n}.bin`, mimeType: 'application/octet-stream', blob: big } })) });
		expect(output.binaries.map((b) => b.key)).toEqual(['data', 'data_1']);
		expect(output.json.notes).toEqual([expect.stringMatching(/^binary content 3 \(application\/octet-stream, 12582912 bytes, file:\/\/\/r3\.bin\) not stored: the binary contents of one result would exceed 33554432 bytes/)]);
		const read = extractResourceContents('file:///r', [1, 2, 3].map((n) => ({ uri: `file:///r${n}.bin`, blob: big })));
		expect(read.binaries).toHaveLength(2);
		expect(read.json.contents[2]).toEqual({ uri: 'file:///r3.bin', omitted: expect.stringMatching(/not stored/) });
		expect(read.json.notes).toHaveLength(1);
	});
});

describe('tools taken from one server', () => {
	const connectionListing = (pages: number, perPage: number) => {
		let served = 0;
		const client = {
			request: async (request: { params: { cursor?: string } }) => {
				served++;
				const page = Number(request.params.cursor ?? 0);
				const tools = Array.from({ length: perPage }, (_, i) => ({ name: `t${page}_${i}`, inputSchema: { type: 'object' } }));
				return { tools, ...(page + 1 < pages ? { nextCursor: String(page + 1) } : {}) };
			},
		};
		const connection = { server: { name: 'huge-server', version: '1' }, requestOptions: () => ({}), request: (_phase: string, run: (c: unknown) => Promise<unknown>) => run(client) };
		return { connection: connection as unknown as McpConnection, served: () => served };
	};

	it('refuses more than 2000 tools with the server name and the count, without reading further pages', async () => {
		const { connection, served } = connectionListing(100, 500);
		await expect(listAllTools(connection)).rejects.toThrow(/MCP server "huge-server" lists at least 2500 tools, over the limit of 2000 per server/);
		expect(served()).toBe(5);
	});

	it('takes 2000 tools', async () => {
		const { connection } = connectionListing(4, 500);
		expect(await listAllTools(connection)).toHaveLength(MAX_TOOLS_PER_SERVER);
	});
});

describe('description size', () => {
	it('cuts descriptions over 16,000 characters with a marker, flags them, and fingerprints the full text', () => {
		const description = `${'Adds numbers. '.repeat(1200)}TAIL`;
		const tool = { name: 'add', description, inputSchema: { type: 'object' } };
		const [entry] = buildCatalog([{ id: 's', name: 's', tools: [tool] }]).tools;
		expect(description.length).toBeGreaterThan(MAX_CATALOG_DESCRIPTION_LENGTH);
		expect(entry.description?.startsWith(description.slice(0, MAX_CATALOG_DESCRIPTION_LENGTH))).toBe(true);
		expect(entry.description).toMatch(new RegExp(`…\\[cut: showing 16000 of ${description.length} characters\\]$`));
		expect(entry.description).not.toContain('TAIL');
		expect(entry.warnings).toEqual(expect.arrayContaining([`Description is ${description.length} characters long; only the first 16000 reach the model and the review page.`]));
		expect(entry.fingerprint).toBe(fingerprintTool(tool));
		expect(buildCatalog([{ id: 's', name: 's', tools: [tool] }], { withholdFlagged: true }).tools).toEqual([]);
	});
});
