import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { canonicalJson } from './fingerprint';

/**
 * Validates arguments against a tool's inputSchema before anything reaches the server. Schemas
 * come in draft-07 (older servers) and 2020-12 (the default in newer spec revisions); `$schema`
 * picks the dialect. External `$ref`s are never fetched: such a schema is reported as unusable,
 * and the call is refused (fail closed).
 */
export interface ArgumentProblem {
	/** Dotted path of the offending field, e.g. "arguments.user.email". */
	path: string;
	/** The JSON Schema keyword that failed, e.g. "type", "required". */
	rule: string;
	message: string;
}

export type ValidationOutcome = { valid: true } | { valid: false; problems: ArgumentProblem[]; summary: string };

type AjvLike = Pick<Ajv, 'compile' | 'removeSchema'>;

function makeAjv<T extends AjvLike>(Ctor: new (options: object) => T): T {
	const ajv = new Ctor({ strict: false, allErrors: true, allowUnionTypes: true, validateSchema: false, loadSchema: undefined });
	addFormats(ajv as unknown as Ajv);
	return ajv;
}

let draft07: Ajv | undefined;
let draft2019: AjvLike | undefined;
let draft2020: AjvLike | undefined;

function ajvFor(schema: Record<string, unknown>): AjvLike {
	const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
	if (/draft-0[4-7]/.test(dialect)) return (draft07 ??= makeAjv(Ajv));
	if (/2019-09/.test(dialect)) return (draft2019 ??= makeAjv(Ajv2019 as unknown as new (o: object) => AjvLike));
	return (draft2020 ??= makeAjv(Ajv2020 as unknown as new (o: object) => AjvLike));
}

const cache = new Map<string, ValidateFunction | Error>();
/** The same schema object is validated against on every call of a tool: skip re-serializing it. */
const bySchemaObject = new WeakMap<object, ValidateFunction | Error>();
const CACHE_LIMIT = 5000;

export class SchemaCompileError extends Error {}

/** Compiles (once per distinct schema) and returns the validator; throws SchemaCompileError. */
export function compileArgumentValidator(schema: Record<string, unknown> | undefined): ValidateFunction {
	const effective = schema && typeof schema === 'object' ? schema : { type: 'object' };
	const known = bySchemaObject.get(effective);
	if (known) {
		if (known instanceof Error) throw known;
		return known;
	}
	const key = canonicalJson(effective);
	let entry = cache.get(key);
	if (!entry) {
		try {
			entry = compileKeepingId(ajvFor(effective), effective);
		} catch (error) {
			const reason = (error as Error).message;
			entry = new SchemaCompileError(
				/can't resolve reference|missing/i.test(reason)
					? `the tool's inputSchema references a schema that is not included (${reason}); external references are never fetched`
					: `the tool's inputSchema is not a usable JSON Schema (${reason})`,
			);
		}
		if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
		cache.set(key, entry);
	}
	bySchemaObject.set(effective, entry);
	if (entry instanceof Error) throw entry;
	return entry;
}

/**
 * Ajv registers compiled schemas by $id: another tool's schema with the same $id is dropped first,
 * and the $id is kept so that references through it still resolve. An $id Ajv cannot handle
 * (a malformed URI) is left out instead.
 */
function compileKeepingId(ajv: AjvLike, schema: Record<string, unknown>): ValidateFunction {
	const { $id, ...withoutId } = schema;
	if (typeof $id !== 'string') return ajv.compile(schema);
	try {
		ajv.removeSchema($id);
		return ajv.compile(schema);
	} catch {
		return ajv.compile(withoutId);
	}
}

export function validateArguments(schema: Record<string, unknown> | undefined, args: unknown): ValidationOutcome {
	let validate: ValidateFunction;
	try {
		validate = compileArgumentValidator(schema);
	} catch (error) {
		const message = (error as Error).message;
		return { valid: false, problems: [{ path: 'arguments', rule: 'schema', message }], summary: message };
	}
	if (args === null || typeof args !== 'object' || Array.isArray(args)) {
		const problem = { path: 'arguments', rule: 'type', message: 'must be a JSON object' };
		return { valid: false, problems: [problem], summary: formatProblem(problem) };
	}
	if (validate(args)) return { valid: true };
	const problems = (validate.errors ?? []).map(toProblem);
	const unique = dedupe(problems);
	return { valid: false, problems: unique, summary: unique.map(formatProblem).join('; ') };
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
