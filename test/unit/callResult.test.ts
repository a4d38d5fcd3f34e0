import { extractResourceContents, extractToolResult, parseJsonText } from '../../lib/tools/callResult';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4 tiny').toString('base64');

describe('parseJsonText', () => {
	it('parses JSON values and leaves other text alone', () => {
		expect(parseJsonText(' {"a": [1, 2]} ')).toEqual({ a: [1, 2] });
		expect(parseJsonText('[1]')).toEqual([1]);
		expect(parseJsonText('"quoted"')).toBe('quoted');
		expect(parseJsonText('-12.5')).toBe(-12.5);
		expect(parseJsonText('true')).toBe(true);
		expect(parseJsonText('null')).toBeNull();
		expect(parseJsonText('Echo: hi')).toBeUndefined();
		expect(parseJsonText('{not json')).toBeUndefined();
		expect(parseJsonText('12 apples')).toBeUndefined();
		expect(parseJsonText('')).toBeUndefined();
	});
});

describe('extractToolResult', () => {
	it('joins text blocks and keeps them as content', () => {
		const output = extractToolResult('echo', { content: [{ type: 'text', text: 'line one' }, { type: 'text', text: 'line two' }] });
		expect(output).toEqual({
			json: {
				tool: 'echo',
				isError: false,
				text: 'line one\nline two',
				content: [{ type: 'text', text: 'line one' }, { type: 'text', text: 'line two' }],
			},
			binaries: [],
		});
		expect('data' in output.json).toBe(false);
	});

	it('parses JSON text into data', () => {
		const output = extractToolResult('stats', { content: [{ type: 'text', text: '{"count": 3, "names": ["a"]}' }] });
		expect(output.json.data).toEqual({ count: 3, names: ['a'] });
		expect(output.json.text).toBe('{"count": 3, "names": ["a"]}');
	});

	it('keeps structuredContent and the error flag', () => {
		const output = extractToolResult('weather', {
			content: [{ type: 'text', text: 'Request failed: city not found' }],
			structuredContent: { code: 'NOT_FOUND', city: 'Atlantis' },
			isError: true,
		});
		expect(output.json).toMatchObject({ isError: true, text: 'Request failed: city not found', structuredContent: { code: 'NOT_FOUND', city: 'Atlantis' } });
		expect(extractToolResult('x', { content: [], isError: 'yes' }).json.isError).toBe(false);
	});

	it('moves images and audio to binaries, numbering the keys, and drops base64 from the JSON', () => {
		const output = extractToolResult(
			'render',
			{
				content: [
					{ type: 'text', text: 'two images and a sound' },
					{ type: 'image', data: PNG, mimeType: 'image/png' },
					{ type: 'image', data: 'R0lGOD', mimeType: 'image/gif', annotations: { audience: ['user'] } },
					{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
					{ type: 'image', data: 'AAAA' },
				],
			},
			'file',
		);
		expect(output.binaries).toEqual([
			{ key: 'file', base64: PNG, mimeType: 'image/png', fileName: 'file.png' },
			{ key: 'file_1', base64: 'R0lGOD', mimeType: 'image/gif', fileName: 'file_1.gif' },
			{ key: 'file_2', base64: 'UklGRg==', mimeType: 'audio/wav', fileName: 'file_2.wav' },
			{ key: 'file_3', base64: 'AAAA', mimeType: 'application/octet-stream', fileName: 'file_3.bin' },
		]);
		expect(output.json.content).toEqual([
			{ type: 'text', text: 'two images and a sound' },
			{ type: 'image', mimeType: 'image/png', binaryProperty: 'file' },
			{ type: 'image', mimeType: 'image/gif', annotations: { audience: ['user'] }, binaryProperty: 'file_1' },
			{ type: 'audio', mimeType: 'audio/wav', binaryProperty: 'file_2' },
			{ type: 'image', binaryProperty: 'file_3' },
		]);
		expect(JSON.stringify(output.json)).not.toContain(PNG);
		expect(output.json.text).toBe('two images and a sound');
	});

	it('moves embedded blob resources to binaries named after the URI; text resources stay in content', () => {
		const output = extractToolResult('export', {
			content: [
				{ type: 'resource', resource: { uri: 'file:///reports/q3-summary.pdf', mimeType: 'application/pdf', blob: PDF } },
				{ type: 'resource', resource: { uri: 'mem://blob/7', mimeType: 'application/gzip', blob: 'H4sI' } },
				{ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello' } },
				{ type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv' },
			],
		});
		expect(output.binaries).toEqual([
			{ key: 'data', base64: PDF, mimeType: 'application/pdf', fileName: 'q3-summary.pdf' },
			{ key: 'data_1', base64: 'H4sI', mimeType: 'application/gzip', fileName: 'data_1.gz' },
		]);
		expect(output.json.content).toEqual([
			{ type: 'resource', resource: { uri: 'file:///reports/q3-summary.pdf', mimeType: 'application/pdf' }, binaryProperty: 'data' },
			{ type: 'resource', resource: { uri: 'mem://blob/7', mimeType: 'application/gzip' }, binaryProperty: 'data_1' },
			{ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello' } },
			{ type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv' },
		]);
		expect(output.json.text).toBe('');
		expect(JSON.stringify(output.json)).not.toContain(PDF);
	});

	it('takes the file name from the URI path, not from its query string', () => {
		const output = extractToolResult('download', {
			content: [{ type: 'resource', resource: { uri: 'https://cdn.example.com/files/chart.svg?sig=abc123', mimeType: 'application/octet-stream', blob: 'PHN2Zz4=' } }],
		});
		expect(output.binaries[0].fileName).toBe('chart.svg');
	});

	it('copes with a result without content', () => {
		expect(extractToolResult('noop', {})).toEqual({ json: { tool: 'noop', isError: false, text: '', content: [] }, binaries: [] });
	});
});

describe('extractResourceContents', () => {
	it('joins text contents, parses JSON, and splits blobs out', () => {
		const output = extractResourceContents('config://app', [
			{ uri: 'config://app', mimeType: 'application/json', text: '{"debug": true}' },
			{ uri: 'config://app/logo.png', mimeType: 'image/png', blob: PNG },
		]);
		expect(output.json).toEqual({
			uri: 'config://app',
			text: '{"debug": true}',
			data: { debug: true },
			contents: [
				{ uri: 'config://app', mimeType: 'application/json', text: '{"debug": true}' },
				{ uri: 'config://app/logo.png', mimeType: 'image/png', binaryProperty: 'data' },
			],
		});
		expect(output.binaries).toEqual([{ key: 'data', base64: PNG, mimeType: 'image/png', fileName: 'logo.png' }]);
	});
});
