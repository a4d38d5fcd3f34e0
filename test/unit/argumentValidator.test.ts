import { compileArgumentValidator, formatProblem, validateArguments, type ValidationOutcome } from '../../lib/tools/argumentValidator';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

function problemsOf(outcome: ValidationOutcome) {
	if (outcome.valid) throw new Error('expected the arguments to be invalid');
	return outcome.problems;
}

function summaryOf(outcome: ValidationOutcome): string {
	if (outcome.valid) throw new Error('expected the arguments to be invalid');
	return outcome.summary;
}

describe('draft-07 schemas', () => {
	const schema = {
		$schema: DRAFT_07,
		type: 'object',
		definitions: { email: { type: 'string', format: 'email' } },
		properties: {
			user: { type: 'object', properties: { email: { $ref: '#/definitions/email' }, age: { type: 'integer', minimum: 0 } }, required: ['email'] },
			// Draft-07 tuple form of items.
			pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] },
		},
		required: ['user'],
		additionalProperties: false,
	};

	it('accepts valid arguments, following $ref into definitions', () => {
		expect(validateArguments(schema, { user: { email: 'a@example.com', age: 3 }, pair: ['x', 1] })).toEqual({ valid: true });
	});

	it('names the field and the rule of each problem', () => {
		const problems = problemsOf(validateArguments(schema, { user: { email: 'not-an-email', age: -1 }, pair: ['x', 'y'], extra: 1 }));
		expect(problems).toHaveLength(4);
		expect(problems).toEqual(
			expect.arrayContaining([
				{ path: 'arguments.user.email', rule: 'format', message: 'must match format "email"' },
				{ path: 'arguments.user.age', rule: 'minimum', message: 'must be >= 0' },
				{ path: 'arguments.pair.1', rule: 'type', message: 'must be number' },
				{ path: 'arguments.extra', rule: 'additionalProperties', message: 'is not allowed by the schema' },
			]),
		);
		expect(problemsOf(validateArguments(schema, { user: { email: 'a@example.com', age: -1 }, pair: ['x', 'y'], extra: 1 }))).toHaveLength(3);
	});

	it('reports a missing nested field by its full path', () => {
		expect(summaryOf(validateArguments(schema, { user: {} }))).toBe('arguments.user.email is required (rule: required)');
		expect(summaryOf(validateArguments(schema, {}))).toBe('arguments.user is required (rule: required)');
	});

	it('does not know 2020-12 keywords (prefixItems is ignored in draft-07)', () => {
		const withPrefix = { $schema: DRAFT_07, type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } };
		expect(validateArguments(withPrefix, { p: ['a', 'b'] })).toEqual({ valid: true });
	});
});

describe('2020-12 schemas', () => {
	const schema = {
		$schema: DRAFT_2020,
		type: 'object',
		$defs: {
			status: { enum: ['open', 'closed'] },
			item: { type: 'object', properties: { id: { type: 'string' }, status: { $ref: '#/$defs/status' } }, required: ['id'] },
		},
		properties: {
			items: { type: 'array', items: { $ref: '#/$defs/item' }, minItems: 1 },
			pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
		},
		required: ['items'],
	};

	it('accepts valid arguments through nested $ref/$defs', () => {
		expect(validateArguments(schema, { items: [{ id: 'a', status: 'open' }], pair: ['x', 2] })).toEqual({ valid: true });
	});

	it('validates through $ref and prefixItems, naming array indexes', () => {
		expect(problemsOf(validateArguments(schema, { items: [{ id: 'a' }, { status: 'gone' }], pair: ['x', 'y'] }))).toEqual(
			expect.arrayContaining([
				{ path: 'arguments.items.1.id', rule: 'required', message: 'is required' },
				{ path: 'arguments.items.1.status', rule: 'enum', message: 'must be one of ["open","closed"]' },
				{ path: 'arguments.pair.1', rule: 'type', message: 'must be number' },
			]),
		);
		expect(summaryOf(validateArguments(schema, { items: [] }))).toBe('arguments.items must NOT have fewer than 1 items (rule: minItems)');
	});

	it('is the default dialect when $schema is absent', () => {
		const { $schema: _dialect, ...noDialect } = schema;
		expect(problemsOf(validateArguments(noDialect, { items: [{ id: 'a' }], pair: ['x', 'y'] }))).toEqual([
			{ path: 'arguments.pair.1', rule: 'type', message: 'must be number' },
		]);
	});

	it('joins several problems into one summary', () => {
		const two = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } }, required: ['a', 'b'] };
		expect(summaryOf(validateArguments(two, { b: 'yes' }))).toBe('arguments.a is required (rule: required); arguments.b must be boolean (rule: type)');
	});

	it('decodes JSON-pointer escapes (~1, ~0) in property names', () => {
		const slashes = { type: 'object', properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' } } };
		expect(problemsOf(validateArguments(slashes, { 'a/b': 1, 'c~d': 2 }))).toEqual([
			{ path: 'arguments.a/b', rule: 'type', message: 'must be string' },
			{ path: 'arguments.c~d', rule: 'type', message: 'must be string' },
		]);
	});
});

describe('schemas that cannot be used', () => {
	it('refuses an external $ref instead of fetching it', () => {
		const external = { type: 'object', properties: { user: { $ref: 'https://schemas.example.com/user.json' } } };
		const outcome = validateArguments(external, { user: {} });
		expect(problemsOf(outcome)).toHaveLength(1);
		expect(problemsOf(outcome)[0]).toMatchObject({ path: 'arguments', rule: 'schema' });
		expect(summaryOf(outcome)).toContain('references a schema that is not included');
		expect(summaryOf(outcome)).toContain('https://schemas.example.com/user.json');
		expect(summaryOf(outcome)).toContain('external references are never fetched');
		expect(() => compileArgumentValidator(external)).toThrow(/external references are never fetched/);
		// Relative file references are external too.
		expect(summaryOf(validateArguments({ type: 'object', properties: { a: { $ref: 'common.json#/x' } } }, { a: 1 }))).toContain('common.json#/x');
	});

	it('refuses a $ref to a definition that does not exist', () => {
		expect(summaryOf(validateArguments({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, { a: 1 }))).toContain('#/$defs/missing');
	});

	it('refuses a schema that is not valid JSON Schema', () => {
		const outcome = validateArguments({ type: 'object', properties: { a: { type: 'strnig' } } }, { a: 'x' });
		expect(problemsOf(outcome)).toEqual([{ path: 'arguments', rule: 'schema', message: expect.stringContaining('is not a usable JSON Schema') }]);
		expect(summaryOf(outcome)).toContain('strnig');
	});

	it('validates a self-contained schema that refers to itself through its own $id', () => {
		const schema = {
			$id: 'https://tools.example.com/search.json',
			type: 'object',
			$defs: { q: { type: 'string' } },
			properties: { q: { $ref: 'https://tools.example.com/search.json#/$defs/q' } },
		};
		expect(validateArguments(schema, { q: 'x' })).toEqual({ valid: true });
		expect(problemsOf(validateArguments(schema, { q: 1 }))).toEqual([{ path: 'arguments.q', rule: 'type', message: 'must be string' }]);
	});
});

describe('arguments that are not objects, and tools without a schema', () => {
	it('rejects null, arrays and scalars', () => {
		for (const args of [null, undefined, [], ['a'], 'text', 3]) {
			expect(validateArguments({ type: 'object' }, args)).toEqual({
				valid: false,
				problems: [{ path: 'arguments', rule: 'type', message: 'must be a JSON object' }],
				summary: 'arguments must be a JSON object (rule: type)',
			});
		}
	});

	it('accepts any object when the tool has no schema', () => {
		expect(validateArguments(undefined, { anything: [1, 2] })).toEqual({ valid: true });
		expect(validateArguments(undefined, 'nope').valid).toBe(false);
	});
});

describe('compilation', () => {
	it('compiles each distinct schema once, whatever the key order', () => {
		const a = compileArgumentValidator({ type: 'object', properties: { x: { type: 'number', minimum: 1 } } });
		const b = compileArgumentValidator({ properties: { x: { minimum: 1, type: 'number' } }, type: 'object' });
		expect(b).toBe(a);
		expect(compileArgumentValidator({ type: 'object', properties: { x: { type: 'number', minimum: 2 } } })).not.toBe(a);
	});

	it('keeps tools apart when two schemas share an $id', () => {
		const first = { $id: 'https://tools.example.com/args.json', type: 'object', required: ['a'] };
		const second = { $id: 'https://tools.example.com/args.json', type: 'object', required: ['b'] };
		expect(validateArguments(first, { a: 1 })).toEqual({ valid: true });
		expect(validateArguments(second, { b: 1 })).toEqual({ valid: true });
		expect(summaryOf(validateArguments(second, { a: 1 }))).toBe('arguments.b is required (rule: required)');
		expect(summaryOf(validateArguments(first, { b: 1 }))).toBe('arguments.a is required (rule: required)');
	});

	it('does not refuse a tool over an $id that is never referenced, even a malformed one', () => {
		expect(validateArguments({ $id: 'urn:tool', type: 'object', required: ['a'] }, { a: 1 })).toEqual({ valid: true });
	});

	it('formats a problem as "path message (rule: keyword)"', () => {
		expect(formatProblem({ path: 'arguments.x', rule: 'maximum', message: 'must be <= 3' })).toBe('arguments.x must be <= 3 (rule: maximum)');
	});
});
