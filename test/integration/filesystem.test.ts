import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { ArgumentValidationError, callToolValidated } from '../../lib/mcp/toolCall';
import { extractToolResult } from '../../lib/tools/callResult';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { FILESYSTEM_BIN, isRunning, stdioConfig } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

describe('server-filesystem over stdio', () => {
	let root: string;
	let outside: string;
	let connection: McpConnection;
	let tools: ToolDefinition[];

	const tool = (name: string): ToolDefinition => {
		const found = tools.find((t) => t.name === name);
		if (!found) throw new Error(`server-filesystem has no tool ${name}; it has ${tools.map((t) => t.name).join(', ')}`);
		return found;
	};

	beforeAll(async () => {
		// realpath: the server compares resolved paths, and TMPDIR may be a symlink (macOS).
		root = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-fs-allowed-')));
		outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-fs-outside-')));
		writeFileSync(path.join(outside, 'secret.txt'), 'not for the server');
		connection = await McpConnection.open(stdioConfig(process.execPath, [FILESYSTEM_BIN, root]));
		tools = await listAllTools(connection);
	});

	afterAll(async () => {
		await connection?.close();
		rmSync(root, { recursive: true, force: true });
		rmSync(outside, { recursive: true, force: true });
	});

	it('lists its file tools, sorted, with their schemas and annotations', () => {
		const names = tools.map((t) => t.name);
		expect(names).toEqual(expect.arrayContaining(['list_directory', 'read_text_file', 'write_file', 'edit_file', 'list_allowed_directories']));
		expect(names).toEqual([...names].sort());
		expect(tool('write_file').inputSchema).toMatchObject({
			type: 'object',
			properties: { path: { type: 'string' }, content: { type: 'string' } },
			required: expect.arrayContaining(['path', 'content']),
		});
		expect(tool('read_text_file').annotations).toMatchObject({ readOnlyHint: true });
		expect(tool('write_file').annotations).toMatchObject({ destructiveHint: true });
	});

	it('writes a file, then reads it back', async () => {
		const file = path.join(root, 'notes', '..', 'hello.txt');
		const content = 'first line\nsecond line with ünïcödé\n';
		const written = extractToolResult('write_file', await callToolValidated(connection, tool('write_file'), { path: file, content }));
		expect(written.json.isError).toBe(false);
		expect(written.json.text).toBe(`Successfully wrote to ${file}`);
		expect(readFileSync(path.join(root, 'hello.txt'), 'utf8')).toBe(content);

		const read = extractToolResult('read_text_file', await callToolValidated(connection, tool('read_text_file'), { path: path.join(root, 'hello.txt') }));
		expect(read.json.isError).toBe(false);
		expect(read.json.text).toBe(content);
		expect(read.json.structuredContent).toEqual({ content });

		const head = extractToolResult('read_text_file', await callToolValidated(connection, tool('read_text_file'), { path: path.join(root, 'hello.txt'), head: 1 }));
		expect(head.json.text).toBe('first line');
	});

	it('lists the directory it wrote to', async () => {
		writeFileSync(path.join(root, 'listed.txt'), 'x');
		const listing = extractToolResult('list_directory', await callToolValidated(connection, tool('list_directory'), { path: root }));
		expect(listing.json.text.split('\n')).toContain('[FILE] listed.txt');
	});

	it('refuses invalid arguments locally, before the server sees them', async () => {
		const target = path.join(root, 'never-written.txt');
		let caught: unknown;
		try {
			await callToolValidated(connection, tool('write_file'), { path: target, content: 42 });
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(ArgumentValidationError);
		const validation = caught as ArgumentValidationError;
		expect(validation.tool).toBe('write_file');
		expect(validation.problems).toEqual([{ path: 'arguments.content', rule: 'type', message: 'must be string' }]);
		expect(validation.message).toBe('Invalid arguments for tool "write_file": arguments.content must be string (rule: type)');
		await expect(callToolValidated(connection, tool('read_text_file'), {})).rejects.toThrow(/arguments\.path is required \(rule: required\)/);
		expect(() => readFileSync(target)).toThrow(/ENOENT/);
	});

	it('reports a path outside the allowed directory as a tool error (isError), not a crash', async () => {
		const result = extractToolResult(
			'read_text_file',
			await callToolValidated(connection, tool('read_text_file'), { path: path.join(outside, 'secret.txt') }),
		);
		expect(result.json.isError).toBe(true);
		expect(result.json.text).toMatch(/Access denied/i);
		expect(result.json.text).not.toContain('not for the server');
		// The connection is still fine afterwards.
		const allowed = extractToolResult('list_allowed_directories', await callToolValidated(connection, tool('list_allowed_directories'), {}));
		expect(allowed.json.text).toContain(root);
	});

	it('stops the server process on close', async () => {
		const second = await McpConnection.open(stdioConfig(process.execPath, [FILESYSTEM_BIN, root]));
		const pid = (second as unknown as { session: { stdio: { pid: number } } }).session.stdio.pid;
		expect(isRunning(pid)).toBe(true);
		await second.close();
		expect(isRunning(pid)).toBe(false);
	});
});
