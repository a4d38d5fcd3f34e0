import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpConnection } from '../../lib/mcp/connection';
import { stdioConfigFromCredential } from '../../lib/mcp/credentialData';
import { listAllTools } from '../../lib/mcp/listing';
import { callToolValidated } from '../../lib/mcp/toolCall';
import { extractToolResult } from '../../lib/tools/callResult';
import { FILESYSTEM_BIN, PDF_BIN } from '../support/servers';
import { minimalPdf } from '../support/minimalPdf';

/**
 * Roots against real servers that take the client's roots as their allowed directories
 * (issue 26, point 1): server-pdf (`--stdio <dir>`) and server-filesystem. Every connection is made
 * from credential data, as the nodes make it, so the Roots field is what is tested.
 */
process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

function credential(bin: string, args: string[], roots = ''): ReturnType<typeof stdioConfigFromCredential> {
	return stdioConfigFromCredential({
		command: process.execPath,
		args: JSON.stringify([bin, ...args]),
		...(roots ? { roots } : {}),
		connectTimeout: 20_000,
		requestTimeout: 20_000,
	});
}

async function call(connection: McpConnection, name: string, args: Record<string, unknown>) {
	const tools = await listAllTools(connection);
	const tool = tools.find((t) => t.name === name);
	if (!tool) throw new Error(`no tool ${name}; the server has ${tools.map((t) => t.name).join(', ')}`);
	return extractToolResult(name, await callToolValidated(connection, tool, args)).json;
}

/**
 * Servers ask for the roots right after the handshake, on their own schedule: wait (briefly) until
 * what a tool answers shows them, and give the last answer either way for the assertion.
 */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5_000): Promise<T> {
	const until = Date.now() + ms;
	let value = await read();
	while (!done(value) && Date.now() < until) {
		await new Promise((resolve) => setTimeout(resolve, 100));
		value = await read();
	}
	return value;
}

let work: string;
let pdfs: string;
let other: string;
const open: McpConnection[] = [];

async function connect(config: ReturnType<typeof stdioConfigFromCredential>): Promise<McpConnection> {
	const connection = await McpConnection.open(config);
	open.push(connection);
	return connection;
}

beforeAll(() => {
	// realpath: both servers compare resolved paths, and TMPDIR may be a symlink (macOS).
	work = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-roots-')));
	// A space and a "#" in a name: the file:// URI must encode them.
	pdfs = path.join(work, 'my pdfs #1');
	other = path.join(work, 'other');
	mkdirSync(pdfs);
	mkdirSync(other);
	writeFileSync(path.join(pdfs, 'doc.pdf'), minimalPdf());
	writeFileSync(path.join(pdfs, 'notes.txt'), 'in the pdf directory');
	writeFileSync(path.join(other, 'readme.txt'), 'in the other directory');
});

afterEach(async () => {
	await Promise.all(open.splice(0).map((connection) => connection.close()));
});

afterAll(() => {
	rmSync(work, { recursive: true, force: true });
});

describe('server-pdf over stdio', () => {
	it('keeps the directory on its command line when the credential names no roots', async () => {
		const connection = await connect(credential(PDF_BIN, ['--stdio', pdfs]));
		const listed = await eventually(
			() => call(connection, 'list_pdfs', {}),
			(answer) => JSON.stringify(answer.structuredContent).includes('doc.pdf'),
		);
		expect(listed.structuredContent).toMatchObject({ allowedDirectories: [pdfs], localFiles: [expect.stringMatching(/doc\.pdf$/)] });
		const bytes = await call(connection, 'read_pdf_bytes', { url: path.join(pdfs, 'doc.pdf'), offset: 0, byteCount: 8 });
		expect(bytes.isError).toBe(false);
		expect(Buffer.from(String((bytes.structuredContent as { bytes: string }).bytes), 'base64').toString('latin1')).toBe('%PDF-1.4');
	});

	it('allows the directories the credential names as roots', async () => {
		const connection = await connect(credential(PDF_BIN, ['--stdio'], `${pdfs} | PDFs`));
		const listed = await eventually(
			() => call(connection, 'list_pdfs', {}),
			(answer) => JSON.stringify(answer.structuredContent).includes('doc.pdf'),
		);
		expect(listed.structuredContent).toMatchObject({ allowedDirectories: [pdfs], localFiles: [expect.stringMatching(/doc\.pdf$/)] });
	});
});

describe('server-filesystem over stdio', () => {
	const allowed = async (connection: McpConnection, expected: string[]): Promise<string> => {
		const answer = await eventually(
			() => call(connection, 'list_allowed_directories', {}),
			(value) => expected.every((dir) => value.text.includes(dir)),
		);
		return answer.text;
	};

	it('started without directories, takes the roots from the credential (paths and file:// URIs)', async () => {
		const roots = `${pdfs} | PDFs\n\n${pathToFileURL(other).href}`;
		const connection = await connect(credential(FILESYSTEM_BIN, [], roots));
		const text = await allowed(connection, [pdfs, other]);
		expect(text.split('\n').slice(1).sort()).toEqual([other, pdfs].sort());
		const read = await call(connection, 'read_text_file', { path: path.join(other, 'readme.txt') });
		expect(read).toMatchObject({ isError: false, text: 'in the other directory' });
	});

	it('with a directory on its command line and no roots, keeps that directory', async () => {
		const connection = await connect(credential(FILESYSTEM_BIN, [other]));
		expect(await allowed(connection, [other])).toBe(`Allowed directories:\n${other}`);
		const read = await call(connection, 'read_text_file', { path: path.join(other, 'readme.txt') });
		expect(read).toMatchObject({ isError: false, text: 'in the other directory' });
	});

	it("with both, the roots replace the command-line directories (the server's rule)", async () => {
		const connection = await connect(credential(FILESYSTEM_BIN, [other], pdfs));
		expect(await allowed(connection, [pdfs])).toBe(`Allowed directories:\n${pdfs}`);
		const refused = await call(connection, 'read_text_file', { path: path.join(other, 'readme.txt') });
		expect(refused.isError).toBe(true);
	});
});
