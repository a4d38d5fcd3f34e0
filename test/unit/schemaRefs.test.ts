import { editFieldName, readEditFields, renderEditFields } from '../../lib/approvals/editForm';
import { buildEditTree, type EditNode } from '../../lib/approvals/editTree';
import { formFields } from '../../lib/approvals/inputSchemaFields';
import { validateArguments } from '../../lib/tools/argumentValidator';
import { coerceFieldValues, schemaToFields } from '../../lib/tools/schemaFields';
import { effectiveSchema, resolveLocalRef } from '../../lib/tools/schemaRefs';
import { formPost } from '../support/browserFormPost';

/**
 * Tool and form schemas as the Python SDK and FastMCP write them (Pydantic v2: models and enums in
 * `$defs`, optional models as `anyOf` with null): the fields MCP Call Tool generates, how it parses
 * what is typed into them, the review page's edit form and input-request forms (issue 26, point 2).
 */
const pydantic = require('../fixtures/pydanticSchemas.js') as {
	createOrderSchema(): Record<string, unknown>;
	plantTreeSchema(): Record<string, unknown>;
	bookingSchema(): Record<string, unknown>;
	withAllOfDefaults<T>(schema: T): T;
};

type Json = Record<string, unknown>;
const defs = (schema: Json) => schema.$defs as Record<string, Json>;

describe('effectiveSchema: local $ref and "X or null"', () => {
	const root = pydantic.createOrderSchema();
	const properties = root.properties as Record<string, unknown>;

	it('follows a $ref into $defs, and an optional model (anyOf with null) to the model, marked nullable', () => {
		expect(effectiveSchema(properties.customer, root)).toEqual({ schema: defs(root).Customer, refs: ['#/$defs/Customer'], nullable: false });
		expect(effectiveSchema(properties.shipping, root)).toEqual({ schema: defs(root).Address, refs: ['#/$defs/Address'], nullable: true });
		expect(effectiveSchema(properties.note, root)).toEqual({ schema: { type: 'string' }, refs: [], nullable: true });
	});

	it('follows a $ref beside annotations (Pydantic >= 2.9) and allOf of one (Pydantic 2.0 to 2.8)', () => {
		const item = defs(root).Item.properties as Record<string, unknown>;
		expect(effectiveSchema(item.color, root)).toMatchObject({ schema: defs(root).Color });
		const older = pydantic.withAllOfDefaults(root);
		expect((defs(older).Item.properties as Json).color).toEqual({ allOf: [{ $ref: '#/$defs/Color' }], default: 'red' });
		expect(effectiveSchema((defs(older).Item.properties as Json).color, older)).toMatchObject({ schema: defs(root).Color });
	});

	it('resolves pointers into $defs, definitions, arrays and escaped names, never outside the schema', () => {
		const schema = { definitions: { 'a/b': { type: 'integer' } }, $defs: { list: { anyOf: [{ type: 'string' }, { type: 'number' }] } } };
		expect(resolveLocalRef('#/definitions/a~1b', schema)).toEqual({ type: 'integer' });
		expect(resolveLocalRef('#/$defs/list/anyOf/1', schema)).toEqual({ type: 'number' });
		expect(resolveLocalRef('#', schema)).toBe(schema);
		expect(resolveLocalRef('#/$defs/list/anyOf/x', schema)).toBeUndefined();
		expect(resolveLocalRef('https://example.com/s.json', schema)).toBeUndefined();
		expect(resolveLocalRef('#/$defs/%E0%A4%A', schema)).toBeUndefined();
	});

	it('reports external, missing, looping and over-deep references instead of following them', () => {
		expect(effectiveSchema({ $ref: 'https://schemas.example.com/customer.json' }, {})).toEqual({
			problem: 'its $ref "https://schemas.example.com/customer.json" points outside the schema and is not followed',
		});
		expect(effectiveSchema({ $ref: '#/$defs/Missing' }, { $defs: {} })).toEqual({ problem: 'its $ref "#/$defs/Missing" points to nothing in the schema' });
		const loop = { $defs: { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'null' }] } } };
		expect(effectiveSchema({ $ref: '#/$defs/a' }, loop)).toEqual({ problem: 'its $ref "#/$defs/a" refers back to itself' });
		expect(effectiveSchema({ $ref: '#' }, { $ref: '#' })).toEqual({ problem: 'its $ref "#" refers back to itself' });
		const chain: Json = { $defs: {} };
		for (let i = 0; i < 40; i++) (chain.$defs as Json)[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
		expect(effectiveSchema({ $ref: '#/$defs/d0' }, chain)).toEqual({ problem: 'its references nest deeper than 16' });
		expect(effectiveSchema({ $ref: '#/$defs/x', minLength: 2 }, { $defs: { x: { type: 'string' } } })).toEqual({ problem: 'its $ref "#/$defs/x" has other keywords beside it' });
	});

	it('a recursive model is followed one level at a time: the same reference again on the way down is a loop', () => {
		const tree = pydantic.plantTreeSchema();
		const node = effectiveSchema((tree.properties as Json).root, tree);
		if ('problem' in node) throw new Error(node.problem);
		const children = (node.schema.properties as Json).children as Json;
		expect(effectiveSchema(children.items, tree, node.refs)).toEqual({ problem: 'its $ref "#/$defs/TreeNode" refers back to itself' });
		expect(effectiveSchema(children.items, tree)).toMatchObject({ schema: defs(tree).TreeNode });
	});

	it('leaves anyOf of two real alternatives alone', () => {
		const schema = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
		expect(effectiveSchema(schema, {})).toEqual({ schema, refs: [], nullable: false });
	});
});

describe("MCP Call Tool's fields from a Pydantic schema (resource mapper)", () => {
	it('types each field by what its $ref stands for: models and lists take JSON, an enum its options', () => {
		expect(schemaToFields(pydantic.createOrderSchema())).toEqual([
			{ id: 'customer', displayName: 'customer', required: true, kind: 'object' },
			{ id: 'items', displayName: 'Items', required: true, kind: 'array' },
			{
				id: 'color',
				displayName: 'color',
				required: true,
				kind: 'options',
				options: [
					{ name: 'red', value: 'red' },
					{ name: 'green', value: 'green' },
					{ name: 'blue', value: 'blue' },
				],
			},
			{ id: 'shipping', displayName: 'shipping', required: false, kind: 'object' },
			{ id: 'gift', displayName: 'Gift', required: false, kind: 'boolean' },
			{ id: 'note', displayName: 'Note', required: false, kind: 'string' },
		]);
		expect(schemaToFields(pydantic.plantTreeSchema())).toEqual([{ id: 'root', displayName: 'root', required: true, kind: 'object' }]);
		expect(schemaToFields(pydantic.withAllOfDefaults(pydantic.createOrderSchema())).map((f) => f.kind)).toEqual(['object', 'array', 'options', 'object', 'boolean', 'string']);
	});

	it('parses JSON typed into a model or list field, and the result passes validation against the original schema', () => {
		const schema = pydantic.createOrderSchema();
		const typed = {
			customer: '{"name": "Ada", "email": "ada@example.com", "address": {"street": "1 Loop Rd", "city": "Lisboa"}}',
			items: ' [{"sku": "A-1", "quantity": 2, "color": "blue"}, {"sku": "B-2"}] ',
			color: 'green',
			shipping: '{"street": "2 Side St", "city": "Porto", "postal_code": "4000-001"}',
			gift: 'true',
			note: '{"not": "parsed"}',
		};
		const args = coerceFieldValues(schema, typed);
		expect(args).toEqual({
			customer: { name: 'Ada', email: 'ada@example.com', address: { street: '1 Loop Rd', city: 'Lisboa' } },
			items: [{ sku: 'A-1', quantity: 2, color: 'blue' }, { sku: 'B-2' }],
			color: 'green',
			shipping: { street: '2 Side St', city: 'Porto', postal_code: '4000-001' },
			gift: true,
			note: '{"not": "parsed"}',
		});
		expect(validateArguments(schema, args)).toEqual({ valid: true });
		expect(coerceFieldValues(schema, { shipping: 'null' })).toEqual({ shipping: null });
		expect(coerceFieldValues(pydantic.plantTreeSchema(), { root: '{"name": "a", "children": [{"name": "b"}]}' })).toEqual({ root: { name: 'a', children: [{ name: 'b' }] } });
	});

	it('validation still runs on the original schema: a model that does not fit fails with its path', () => {
		const schema = pydantic.createOrderSchema();
		const args = coerceFieldValues(schema, { customer: '{"name": "Ada"}', items: '[]', color: 'purple' });
		const outcome = validateArguments(schema, args);
		expect(outcome.valid).toBe(false);
		if (outcome.valid) return;
		expect(outcome.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['arguments.customer.email', 'arguments.color']));
		// Text that is not JSON stays text, for the validator to name.
		expect(coerceFieldValues(schema, { customer: 'Ada' })).toEqual({ customer: 'Ada' });
		expect(validateArguments(schema, { customer: 'Ada', items: [], color: 'red' })).toMatchObject({ summary: expect.stringContaining('arguments.customer must be object') });
	});

	it('a reference it cannot follow is a text field saying why; nothing is fetched and the validator refuses the call', () => {
		const schema = { type: 'object', properties: { customer: { $ref: 'https://schemas.example.com/customer.json' }, ghost: { $ref: '#/$defs/Ghost' } }, required: ['customer'] };
		expect(schemaToFields(schema)).toEqual([
			{
				id: 'customer',
				displayName: 'customer (type unknown: its $ref "https://schemas.example.com/customer.json" points outside the schema and is not followed)',
				required: true,
				kind: 'string',
			},
			{ id: 'ghost', displayName: 'ghost (type unknown: its $ref "#/$defs/Ghost" points to nothing in the schema)', required: false, kind: 'string' },
		]);
		expect(coerceFieldValues(schema, { customer: '{"a": 1}' })).toEqual({ customer: '{"a": 1}' });
		expect(validateArguments(schema, { customer: '{"a": 1}' }).valid).toBe(false);
	});

	it("an inputSchema that is itself a $ref into its $defs gives the referred model's fields", () => {
		const schema = { $defs: { Args: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, $ref: '#/$defs/Args' };
		expect(schemaToFields(schema)).toEqual([{ id: 'n', displayName: 'n', required: true, kind: 'number' }]);
		expect(coerceFieldValues(schema, { n: '3' })).toEqual({ n: 3 });
	});
});

describe("the review page's edit form from a Pydantic schema", () => {
	const find = (node: EditNode, ...path: Array<string | number>): EditNode => {
		let current = node;
		for (const part of path) {
			const next =
				current.kind === 'object' ? current.properties.find((p) => p.path[p.path.length - 1] === part) : current.kind === 'array' ? current.items[part as number] : undefined;
			if (!next) throw new Error(`no ${String(part)} under ${current.path.join('.')}`);
			current = next;
		}
		return current;
	};

	it('models are groups, lists of models lists of groups, enums (also with a default beside the $ref) choices', () => {
		const args = {
			customer: { name: 'Ada', email: 'ada@example.com', address: { street: '1 Loop Rd', city: 'Lisboa' } },
			items: [{ sku: 'A-1', quantity: 2, color: 'blue' }],
			color: 'green',
			shipping: { street: '2 Side St', city: 'Porto', postal_code: null },
		};
		for (const schema of [pydantic.createOrderSchema(), pydantic.withAllOfDefaults(pydantic.createOrderSchema())]) {
			const tree = buildEditTree(schema, args);
			if (!tree) throw new Error('no edit tree');
			expect(find(tree, 'customer').kind).toBe('object');
			expect(find(tree, 'customer', 'address', 'city')).toMatchObject({ kind: 'string', original: 'Lisboa' });
			expect(find(tree, 'shipping')).toMatchObject({ kind: 'object', required: false });
			expect(find(tree, 'items', 0, 'quantity')).toMatchObject({ kind: 'integer', original: 2 });
			expect(find(tree, 'items', 0, 'color')).toMatchObject({ kind: 'enum', options: ['red', 'green', 'blue'], original: 'blue' });
			expect(find(tree, 'color')).toMatchObject({ kind: 'enum', options: ['red', 'green', 'blue'] });
		}
	});

	it("posts back exactly the model's arguments untouched (optional models left out stay out), and the fields a person changed", () => {
		const schema = pydantic.createOrderSchema();
		const args = { customer: { name: 'Ada', email: 'ada@example.com' }, items: [{ sku: 'A-1', quantity: 2, color: 'blue' }], color: 'green' };
		const html = renderEditFields('ap1', 'c1', schema, args, { previous: {} });
		if (html === undefined) throw new Error('no edit form');
		const form = `<form>${html}</form>`;
		const name = (...path: Array<string | number>) => editFieldName('editvalue', 'ap1', 'c1', path);
		expect(readEditFields(formPost(form), 'ap1', 'c1', schema, args)).toEqual({ ok: true, arguments: args });
		const changed = formPost(form, { set: { [name('customer', 'email')]: 'ada@example.org', [name('items', 0, 'color')]: '0', [name('items', 0, 'quantity')]: '3' } });
		expect(readEditFields(changed, 'ap1', 'c1', schema, args)).toEqual({
			ok: true,
			arguments: { ...args, customer: { name: 'Ada', email: 'ada@example.org' }, items: [{ sku: 'A-1', quantity: 3, color: 'red' }] },
		});
		// The shipping address the model left out comes in only when a person fills it in.
		const shipped = formPost(form, { set: { [name('shipping', 'street')]: '2 Side St', [name('shipping', 'city')]: 'Porto' } });
		expect(readEditFields(shipped, 'ap1', 'c1', schema, args)).toEqual({ ok: true, arguments: { ...args, shipping: { street: '2 Side St', city: 'Porto' } } });
	});

	it('a recursive model is followed as fields, and the part where it refers to itself again is JSON', () => {
		const tree = buildEditTree(pydantic.plantTreeSchema(), { root: { name: 'a', children: [{ name: 'b', children: [] }] } });
		if (!tree) throw new Error('no edit tree');
		expect(find(tree, 'root', 'name')).toMatchObject({ kind: 'string', original: 'a' });
		expect(find(tree, 'root', 'children')).toMatchObject({ kind: 'array' });
		expect(find(tree, 'root', 'children', 0)).toMatchObject({ kind: 'json', original: { name: 'b', children: [] } });
	});
});

describe('input-request forms from a Pydantic model (ctx.elicit with schema=Booking)', () => {
	it('an enum behind a $ref is a choice with its default, an optional field (anyOf with null) an optional text field', () => {
		expect(formFields(pydantic.bookingSchema())).toEqual([
			{ name: 'date', label: 'Date', required: true, type: 'string' },
			{ name: 'seats', label: 'Seats', required: false, type: 'integer', default: 2 },
			{
				name: 'seating',
				label: 'seating',
				required: false,
				type: 'choice',
				options: [
					{ value: 'window', label: 'window' },
					{ value: 'aisle', label: 'aisle' },
				],
				default: 'window',
			},
			{ name: 'notes', label: 'Notes', required: false, type: 'string' },
		]);
	});

	it('a list of enums behind a $ref is a multiple choice; a reference it cannot follow makes it a JSON answer', () => {
		const schema = {
			$defs: { Tag: { enum: ['a', 'b'], title: 'Tag', type: 'string' } },
			type: 'object',
			properties: { tags: { items: { $ref: '#/$defs/Tag' }, title: 'Tags', type: 'array' } },
		};
		expect(formFields(schema)).toEqual([
			{
				name: 'tags',
				label: 'Tags',
				required: false,
				type: 'choices',
				options: [
					{ value: 'a', label: 'a' },
					{ value: 'b', label: 'b' },
				],
			},
		]);
		expect(formFields({ type: 'object', properties: { tag: { $ref: 'https://example.com/tag.json' } } })).toBeUndefined();
	});
});
