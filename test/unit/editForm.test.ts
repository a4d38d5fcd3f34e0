import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { hashArguments } from '../../lib/agent/argumentHash';
import { editFieldName, fieldForProblem, readEditFields, renderEditFields } from '../../lib/approvals/editForm';
import { buildEditTree, MAX_EDIT_FIELDS } from '../../lib/approvals/editTree';
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { validateArguments } from '../../lib/tools/argumentValidator';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { formPost } from '../support/browserFormPost';
import { everythingStdio, FILESYSTEM_BIN, stdioConfig } from '../support/servers';

type Json = Record<string, unknown>;
const A = 'ap1';
const C = 'c1';
const value = (...p: Array<string | number>) => editFieldName('editvalue', A, C, p);
const keep = (...p: Array<string | number>) => editFieldName('editkeep', A, C, p);

function render(schema: unknown, args: unknown, previous: Record<string, string> = {}): string {
	const html = renderEditFields(A, C, schema, args, { previous });
	if (html === undefined) throw new Error('no edit form for this schema');
	return `<form method="post">${html}</form>`;
}

/** Render, post as a browser would (optionally changing fields), read back. */
function roundTrip(schema: unknown, args: unknown, change: Parameters<typeof formPost>[1] = {}) {
	return readEditFields(formPost(render(schema, args), change), A, C, schema, args);
}

/** Arguments for a schema: every property filled, two items per array, the first enum value. */
function sample(schema: unknown, root: Json, depth = 0): unknown {
	if (!schema || typeof schema !== 'object' || depth > 5) return 'x';
	const s = schema as Json;
	if (typeof s.$ref === 'string') {
		const target = s.$ref.slice(2).split('/').reduce<unknown>((node, key) => (node as Json)?.[key], root);
		return sample(target, root, depth + 1);
	}
	if (Array.isArray(s.enum)) return s.enum[0];
	if (s.const !== undefined) return s.const;
	const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type ?? (s.properties ? 'object' : undefined);
	switch (type) {
		case 'string': return s.format === 'uri' ? 'https://example.com/a' : `text ${depth}`;
		case 'integer': return typeof s.minimum === 'number' ? s.minimum : 2;
		case 'number': return typeof s.minimum === 'number' ? s.minimum + 0.5 : 1.5;
		case 'boolean': return true;
		case 'array': return s.items ? [sample(s.items, root, depth + 1), sample(s.items, root, depth + 1)].slice(0, typeof s.maxItems === 'number' ? s.maxItems : 2) : [];
		case 'object': {
			const out: Json = {};
			for (const [key, property] of Object.entries((s.properties ?? {}) as Json)) out[key] = sample(property, root, depth + 1);
			return out;
		}
		default: return 'x';
	}
}

describe('edit form: the reference servers\' tool schemas', () => {
	let tools: ToolDefinition[] = [];
	let root: string;
	beforeAll(async () => {
		process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';
		root = mkdtempSync(path.join(tmpdir(), 'edit-form-'));
		for (const config of [everythingStdio(), stdioConfig(process.execPath, [FILESYSTEM_BIN, root])]) {
			const connection = await McpConnection.open(config);
			try {
				tools.push(...(await listAllTools(connection)));
			} finally {
				await connection.close();
			}
		}
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it('lists the tools of both servers (server-everything and server-filesystem)', () => {
		const names = tools.map((t) => t.name);
		expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'write_file', 'edit_file', 'read_text_file', 'move_file']));
		tools = tools.filter((t) => t.inputSchema && typeof t.inputSchema === 'object');
	});

	it('gives every tool with properties a form of fields, and an untouched form posts back exactly the arguments (same hash)', () => {
		let forms = 0;
		for (const tool of tools) {
			const schema = tool.inputSchema as Json;
			const args = sample(schema, schema) as Json;
			expect(validateArguments(schema, args)).toMatchObject({ valid: true });
			const html = renderEditFields(A, C, schema, args, { previous: {} });
			if (Object.keys((schema.properties ?? {}) as Json).length) {
				expect({ tool: tool.name, form: html !== undefined }).toEqual({ tool: tool.name, form: true });
				forms += 1;
			}
			if (html === undefined) continue;
			const back = readEditFields(formPost(`<form>${html}</form>`), A, C, schema, args);
			expect({ tool: tool.name, back }).toEqual({ tool: tool.name, back: { ok: true, arguments: args } });
			expect(hashArguments((back as { arguments: unknown }).arguments)).toBe(hashArguments(args));
		}
		expect(forms).toBeGreaterThan(10);
	});

	it('edit_file: an edit array of {oldText, newText} objects gets a field per property, items can be removed and added', () => {
		const tool = tools.find((t) => t.name === 'edit_file')!;
		const schema = tool.inputSchema as Json;
		const args = { path: '/tmp/a.txt', edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'c', newText: 'd' }], dryRun: false };
		const html = render(schema, args);
		expect(html).toContain(`name="${value('edits', 0, 'oldText')}" value="a"`);
		expect(html).toContain(`name="${keep('edits', 2)}" value="1">`); // the spare slot, unticked
		const back = roundTrip(schema, args, { uncheck: [keep('edits', 0)], check: [keep('edits', 2)], set: { [value('edits', 2, 'oldText')]: 'e', [value('edits', 2, 'newText')]: 'f', [value('dryRun')]: 'true' } });
		expect(back).toEqual({ ok: true, arguments: { path: '/tmp/a.txt', edits: [{ oldText: 'c', newText: 'd' }, { oldText: 'e', newText: 'f' }], dryRun: true } });
	});
});

describe('edit form: a corpus of schemas', () => {
	const address = { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string', description: 'City name' }, zip: { type: 'string' } }, required: ['city'] };
	const corpus: Array<[string, Json, Json]> = [
		['flat primitives', { type: 'object', properties: { s: { type: 'string' }, n: { type: 'number' }, i: { type: 'integer' }, b: { type: 'boolean' } } }, { s: 'a b', n: -2.5e-7, i: 42, b: false }],
		['string, number and mixed enums', { type: 'object', properties: { color: { enum: ['red', 'green'] }, level: { type: 'integer', enum: [1, 2, 3] }, mixed: { enum: ['a', 1, true, null] }, fixed: { const: 'v1' } } }, { color: 'green', level: 3, mixed: null, fixed: 'v1' }],
		['nested objects', { type: 'object', properties: { to: { type: 'object', properties: { name: { type: 'string' }, address } } } }, { to: { name: 'Ana', address: { street: 'Rua 1', city: 'Porto' } } }],
		['array of strings, array of numbers, empty array', { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } }, sizes: { type: 'array', items: { type: 'number' } }, none: { type: 'array', items: { type: 'string' } } } }, { tags: ['a', 'b'], sizes: [1, 2.5], none: [] }],
		['array of objects with nested arrays', { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'array', items: { type: 'integer' } } } } } } }, { rows: [{ k: 'a', v: [1, 2] }, { k: 'b', v: [] }] }],
		['$ref into $defs', { type: 'object', properties: { home: { $ref: '#/$defs/Address' }, work: { $ref: '#/$defs/Address' } }, $defs: { Address: address } }, { home: { city: 'Lisboa' }, work: { city: 'Braga', zip: '4700' } }],
		['$ref into definitions, with ~1 escapes', { type: 'object', properties: { a: { $ref: '#/definitions/a~1b' } }, definitions: { 'a/b': { type: 'integer' } } }, { a: 7 }],
		['recursive $ref (a tree)', { type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, $defs: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } } }, { root: { name: 'a', children: [{ name: 'b', children: [] }] } }],
		['nullable via anyOf and type arrays', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { type: ['integer', 'null'] } } }, { a: 'x', b: null }],
		['oneOf of objects (JSON box)', { type: 'object', properties: { target: { oneOf: [{ type: 'object', properties: { id: { type: 'integer' } } }, { type: 'object', properties: { name: { type: 'string' } } }] } } }, { target: { name: 'n' } }],
		['free-form map and extra keys (JSON box)', { type: 'object', properties: { headers: { type: 'object', additionalProperties: { type: 'string' } }, opts: { type: 'object', properties: { a: { type: 'string' } } } } }, { headers: { 'X-A': '1' }, opts: { a: 'x', extra: 1 } }],
		['multi-line, CR, invisible and control characters', { type: 'object', properties: { body: { type: 'string' }, cr: { type: 'string' }, zw: { type: 'string' }, ctl: { type: 'string' }, long: { type: 'string' } } }, { body: 'line 1\nline 2\n', cr: 'a\r\nb', zw: 'pay\u200Bpal', ctl: 'bell\u0007', long: 'w '.repeat(80) }],
		['hostile names, titles and enum values', JSON.parse('{"type":"object","properties":{"<script>alert(1)</script>":{"type":"string","title":"\\"><img src=x>","description":"</textarea><b>x</b>"},"__proto__":{"type":"string"},"e":{"enum":["</option><script>","b"]}}}'), JSON.parse('{"<script>alert(1)</script>":"</textarea><script>","__proto__":"p","e":"</option><script>"}')],
		['optional fields left out stay out', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'object', properties: { d: { type: 'string' } } }, e: { type: 'array', items: { type: 'string' } }, f: { type: 'boolean' } }, required: [] }, {}],
	];

	it.each(corpus)('%s: an untouched form posts back exactly the arguments', (_name, schema, args) => {
		expect(roundTrip(schema, args)).toEqual({ ok: true, arguments: args });
	});

	it.each(corpus)('%s: renders inert (no markup, no script, field names are hashes)', (_name, schema, args) => {
		const html = render(schema, args);
		expect(html).not.toMatch(/<script|<img|<b>/);
		for (const m of html.matchAll(/name="([^"]*)"/g)) expect(m[1]).toMatch(/^edit(value|keep|form)__[0-9a-f]{20}$/);
	});

	it('shows invisible and control characters as JSON escapes, so nothing is hidden in an edit box', () => {
		const html = render(corpus[11][1], corpus[11][2]);
		expect(html).toContain('&quot;pay\\u200bpal&quot;');
		expect(html).toContain('&quot;bell\\u0007&quot;');
		expect(html).not.toContain('\u200B');
		expect(html).toMatch(new RegExp(`<textarea id="[^"]+" name="${value('body')}" rows="\\d+">\\nline 1\\nline 2\\n</textarea>`));
	});

	it('follows $ref into $defs as fields, and edits a loop deeper than the page follows as JSON', () => {
		const [, refSchema, refArgs] = corpus[5];
		const html = render(refSchema, refArgs);
		expect(html).toContain(`name="${value('work', 'zip')}" value="4700"`);
		expect(html).toContain('City name');
		const tree = buildEditTree(corpus[7][1], corpus[7][2]);
		expect(JSON.stringify(tree)).toContain('"kind":"json"');
		expect(render(corpus[7][1], corpus[7][2])).toContain(`name="${value('root', 'name')}" value="a"`);
	});

	it('reads changes: nested field, enum, boolean, number, removed and added items', () => {
		const [, schema, args] = corpus[3];
		const back = roundTrip(schema, args, { uncheck: [keep('tags', 0)], check: [keep('tags', 2), keep('none', 0)], set: { [value('tags', 2)]: 'c', [value('sizes', 1)]: ' 7 ', [value('none', 0)]: 'first' } });
		expect(back).toEqual({ ok: true, arguments: { tags: ['b', 'c'], sizes: [1, 7], none: ['first'] } });
		const enums = roundTrip(corpus[1][1], corpus[1][2], { set: { [value('color')]: '0', [value('mixed')]: '2' } });
		expect(enums).toEqual({ ok: true, arguments: { color: 'red', level: 3, mixed: true, fixed: 'v1' } });
		const nested = roundTrip(corpus[2][1], corpus[2][2], { set: { [value('to', 'address', 'city')]: 'Faro', [value('to', 'address', 'zip')]: '8000' } });
		expect(nested).toEqual({ ok: true, arguments: { to: { name: 'Ana', address: { street: 'Rua 1', city: 'Faro', zip: '8000' } } } });
	});

	it('names the field for text that is not a number, JSON that does not parse, an enum index out of range and an empty kept item', () => {
		const back = roundTrip(corpus[3][1], corpus[3][2], { set: { [value('tags', 1)]: '' } });
		expect(back).toEqual({ ok: true, arguments: { tags: ['a', ''], sizes: [1, 2.5], none: [] } }); // an empty string is a string
		const bad = roundTrip(corpus[3][1], corpus[3][2], { set: { [value('sizes', 0)]: 'ten' }, check: [keep('sizes', 2)] });
		expect(bad).toEqual({
			ok: false,
			errors: ['sizes[0]: "ten" is not a number.', 'sizes[2] is empty: fill it in, or untick its box to leave it out.'],
			fieldErrors: { [value('sizes', 0)]: ['sizes[0]: "ten" is not a number.'], [value('sizes', 2)]: ['sizes[2] is empty: fill it in, or untick its box to leave it out.'] },
		});
		expect(roundTrip(corpus[10][1], corpus[10][2], { set: { [value('headers')]: '{"a":' } })).toMatchObject({ ok: false, errors: [expect.stringMatching(/^headers: not valid JSON/)] });
		expect(roundTrip(corpus[1][1], corpus[1][2], { set: { [value('color')]: '9' } })).toMatchObject({ ok: false, errors: ['color: choose one of the listed values.'] });
	});

	it('highlights changed fields against the model\'s original when the form is shown again', () => {
		const [, schema, args] = corpus[2];
		const posted = formPost(render(schema, args), { set: { [value('to', 'address', 'city')]: 'Faro' } });
		const again = render(schema, args, posted);
		const changed = [...again.matchAll(/<div class="edit-field changed">[\s\S]*?<\/div>/g)].map((m) => m[0]);
		expect(changed).toHaveLength(1);
		expect(changed[0]).toContain('value="Faro"');
		expect(changed[0]).toContain('Model\'s value: <code>Porto</code>');
	});

	it('maps a validator problem to its field', () => {
		const [, schema, args] = corpus[4];
		expect(fieldForProblem(A, C, schema, args, 'arguments.rows.1.k')).toBe(value('rows', 1, 'k'));
		expect(fieldForProblem(A, C, schema, args, 'arguments')).toBeUndefined();
	});

	it('falls back to one JSON text for schemas that are not objects with properties, arguments that do not fit, and too many fields', () => {
		expect(renderEditFields(A, C, { type: 'array' }, {}, { previous: {} })).toBeUndefined();
		expect(renderEditFields(A, C, { type: 'object', properties: { a: { type: 'string' } } }, [], { previous: {} })).toBeUndefined();
		const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: MAX_EDIT_FIELDS + 1 }, (_, i) => [`p${i}`, { type: 'string' }])) };
		expect(renderEditFields(A, C, wide, {}, { previous: {} })).toBeUndefined();
		expect(readEditFields({}, A, C, corpus[0][1], corpus[0][2])).toEqual({ ok: 'json' });
	});
});
