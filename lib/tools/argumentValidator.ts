import Ajv, { type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { fullFormats } from 'ajv-formats/dist/formats';
import { canonicalJson } from './fingerprint';
import { safeRegExp, UnsupportedPatternError } from './safeRegExp';
import { ARGUMENT_LIMITS, SCHEMA_LIMITS, exceededLimit } from './schemaLimits';
import { ReferenceBudgetExceeded, countReference, resetReferenceBudget, withReferenceCounting } from './referenceBudget';

/**
 * Validates arguments against a tool's inputSchema before anything reaches the server. Schemas
 * come in draft-07 (older servers) and 2020-12 (the default in newer spec revisions); `$schema`
 * picks the dialect. External `$ref`s are never fetched: such a schema is reported as unusable,
 * and the call is refused (fail closed).
 *
 * The schema comes from the server and is untrusted: its patterns run on RE2 (linear time), its
 * size and nesting are limited before Ajv sees it, a reference loop that never ends comes back as
 * an unusable schema, and each schema is compiled in an Ajv instance of its own, so that one tool's
 * `$id` can never satisfy another tool's `$ref`.
 */
export interface ArgumentProblem {
	/** Dotted path of the offending field, e.g. "arguments.user.email". */
	path: string;
	/** The JSON Schema keyword that failed, e.g. "type", "required". */
	rule: string;
	message: string;
}

export type ValidationOutcome = { valid: true } | { valid: false; problems: ArgumentProblem[]; summary: string };

type AjvLike = Pick<Ajv, 'compile'>;

const AJV_OPTIONS: Options = {
	// Not strict: real servers send unknown keywords and formats. This also keeps Ajv from testing
	// patternProperties against property names with V8's RegExp while compiling (a strict-mode check).
	strict: false,
	allErrors: true,
	allowUnionTypes: true,
	validateSchema: false,
	loadSchema: undefined,
	// No meta-schemas (nothing validates schemas here): a fresh instance per schema stays cheap.
	meta: false,
	// Our formats, set when the instance is made; a schema can only name them, never add one.
	formats: fullFormats,
	code: { regExp: safeRegExp },
	// Ajv would log server-chosen text (unknown format names) to n8n's console.
	logger: false,
	// Counts the references validation follows (see referenceBudget.ts).
	$comment: countReference,
};

/** A new instance for every schema: nothing one tool's schema registers ($id) is seen by another. */
function freshAjvFor(schema: Record<string, unknown>): AjvLike {
	const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
	if (/draft-0[4-7]/.test(dialect)) return new Ajv(AJV_OPTIONS);
	if (/2019-09/.test(dialect)) return new Ajv2019(AJV_OPTIONS);
	return new Ajv2020(AJV_OPTIONS);
}

const cache = new Map<string, ValidateFunction | Error>();
/** The same schema object is validated against on every call of a tool: skip re-serializing it. */
const bySchemaObject = new WeakMap<object, ValidateFunction | Error>();
const CACHE_LIMIT = 5000;

export class SchemaCompileError extends Error {}

/**
 * Compiles (once per distinct schema) and returns the validator; throws SchemaCompileError. The
 * validator itself throws SchemaCompileError when validating never ends (a schema such as
 * `{"$ref": "#"}` refers to itself on the same data until the stack overflows).
 */
export function compileArgumentValidator(schema: Record<string, unknown> | undefined): ValidateFunction {
	const effective = schema && typeof schema === 'object' ? schema : { type: 'object' };
	const known = bySchemaObject.get(effective);
	if (known) {
		if (known instanceof Error) throw known;
		return known;
	}
	// Checked before serializing too: canonicalJson recurses, and a huge schema is slow to key.
	const oversized = exceededLimit(effective, SCHEMA_LIMITS);
	let entry: ValidateFunction | Error | undefined;
	if (oversized) {
		entry = new SchemaCompileError(`the tool's inputSchema is unusable: it ${oversized.message}, more than a tool's schema may be`);
	} else {
		const key = canonicalJson(effective);
		entry = cache.get(key);
		if (!entry) {
			try {
				entry = stopRunawayValidation(compileKeepingId(withReferenceCounting(effective) as Record<string, unknown>));
			} catch (error) {
				entry = describeCompileFailure(error, effective);
			}
			if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
			cache.set(key, entry);
		}
	}
	bySchemaObject.set(effective, entry);
	if (entry instanceof Error) throw entry;
	return entry;
}

function describeCompileFailure(error: unknown, schema: Record<string, unknown>): SchemaCompileError {
	if (error instanceof UnsupportedPatternError) {
		const where = findPattern(schema, error.pattern);
		return new SchemaCompileError(
			`the tool's inputSchema uses the pattern ${JSON.stringify(error.pattern)}${where ? ` at ${where}` : ''}, which the safe regular-expression engine does not support (${error.reason})`,
		);
	}
	if (error instanceof RangeError) {
		return new SchemaCompileError(`the tool's inputSchema is unusable: compiling it exceeded the call stack (${error.message})`);
	}
	const reason = (error as Error).message;
	return new SchemaCompileError(
		/can't resolve reference|missing/i.test(reason)
			? `the tool's inputSchema references a schema that is not included (${reason}); external references are never fetched`
			: `the tool's inputSchema is not a usable JSON Schema (${reason})`,
	);
}

/** Keywords whose values are data, not schemas: a "pattern" inside them is not compiled. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/**
 * Where a pattern sits in the schema ("properties.a", "patternProperties" of the top level...),
 * for the error message: Ajv does not say which pattern it was compiling.
 */
function findPattern(schema: Record<string, unknown>, pattern: string): string | undefined {
	const pending: Array<[unknown, string[]]> = [[schema, []]];
	while (pending.length > 0) {
		const [node, path] = pending.shift() as [unknown, string[]];
		if (node === null || typeof node !== 'object') continue;
		const record = node as Record<string, unknown>;
		const patternProperties = record.patternProperties;
		if (record.pattern === pattern || (patternProperties && typeof patternProperties === 'object' && Object.prototype.hasOwnProperty.call(patternProperties, pattern))) {
			const at = record.pattern === pattern ? path : [...path, 'patternProperties'];
			return at.length > 0 ? at.join('.') : 'the top level';
		}
		for (const [key, value] of Object.entries(record)) {
			if (!DATA_KEYWORDS.has(key) || Array.isArray(node)) pending.push([value, [...path, key]]);
		}
	}
	return undefined;
}

/**
 * Ajv registers a compiled schema by its $id, and refuses an $id it cannot handle (a malformed URI):
 * such an $id is left out instead, since the instance serves this one schema only.
 */
function compileKeepingId(schema: Record<string, unknown>): ValidateFunction {
	const { $id, ...withoutId } = schema;
	try {
		return freshAjvFor(schema).compile(schema);
	} catch (error) {
		if (typeof $id !== 'string' || error instanceof UnsupportedPatternError || error instanceof RangeError) throw error;
		return freshAjvFor(schema).compile(withoutId);
	}
}

/**
 * A schema that refers to itself on the same data (`{"$ref": "#"}`, or two definitions that refer to
 * each other) compiles, but validating recurses until the stack overflows; one whose references
 * multiply runs practically forever. Both become a SchemaCompileError, the schema's fault, instead
 * of a RangeError from deep inside Ajv or a stalled n8n.
 */
function stopRunawayValidation(validate: ValidateFunction): ValidateFunction {
	const guarded = function (data: unknown): boolean {
		resetReferenceBudget();
		try {
			const valid = validate(data) as boolean;
			guarded.errors = validate.errors;
			return valid;
		} catch (error) {
			if (error instanceof ReferenceBudgetExceeded) {
				throw new SchemaCompileError(
					`the tool's inputSchema is unusable: ${error.message} (its references multiply, as definitions that each apply the next one twice do)`,
				);
			}
			if (!(error instanceof RangeError)) throw error;
			throw new SchemaCompileError(
				"the tool's inputSchema is unusable: validating against it recursed without end (it refers to itself without descending into the data, as {\"$ref\": \"#\"} does)",
			);
		}
	} as ValidateFunction;
	guarded.schema = validate.schema;
	guarded.schemaEnv = validate.schemaEnv;
	return guarded;
}

export function validateArguments(schema: Record<string, unknown> | undefined, args: unknown): ValidationOutcome {
	let validate: ValidateFunction;
	try {
		validate = compileArgumentValidator(schema);
	} catch (error) {
		return unusableSchema(error);
	}
	if (args === null || typeof args !== 'object' || Array.isArray(args)) {
		const problem = { path: 'arguments', rule: 'type', message: 'must be a JSON object' };
		return { valid: false, problems: [problem], summary: formatProblem(problem) };
	}
	const oversized = exceededLimit(args, ARGUMENT_LIMITS);
	if (oversized) {
		const problem = { path: 'arguments', rule: oversized.limit, message: oversized.message };
		return { valid: false, problems: [problem], summary: formatProblem(problem) };
	}
	let valid: boolean;
	try {
		valid = validate(args) as boolean;
	} catch (error) {
		if (error instanceof SchemaCompileError) return unusableSchema(error);
		throw error;
	}
	if (valid) return { valid: true };
	const problems = (validate.errors ?? []).map(toProblem);
	const unique = dedupe(problems);
	return { valid: false, problems: unique, summary: unique.map(formatProblem).join('; ') };
}

function unusableSchema(error: unknown): ValidationOutcome {
	const message = (error as Error).message;
	return { valid: false, problems: [{ path: 'arguments', rule: 'schema', message }], summary: message };
}

function toProblem(error: ErrorObject): ArgumentProblem {
	const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
	let path = ['arguments', ...segments].join('.');
	let message = error.message ?? 'is invalid';
	if (error.keyword === 'required') {
		path += `.${(error.params as { missingProperty: string }).missingProperty}`;
		message = 'is required';
	} else if (error.keyword === 'additionalProperties') {
		path += `.${(error.params as { additionalProperty: string }).additionalProperty}`;
		message = 'is not allowed by the schema';
	} else if (error.keyword === 'enum') {
		message = `must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
	}
	return { path, rule: error.keyword, message };
}

function dedupe(problems: ArgumentProblem[]): ArgumentProblem[] {
	const seen = new Set<string>();
	return problems.filter((p) => {
		const key = `${p.path}|${p.rule}|${p.message}`;
		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}

export function formatProblem(problem: ArgumentProblem): string {
	return `${problem.path} ${problem.message} (rule: ${problem.rule})`;
}
