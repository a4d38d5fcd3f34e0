/**
 * The house's structure: one-way layers and no import cycles in lib/, nodes/ or credentials/,
 * type-only imports included (docs/development.md, "Layers"). ESLint's
 * import-x/no-cycle (npm run lint) follows runtime imports only; a type cycle still ties two modules
 * together (lib/agent/types.ts <-> lib/providers/types.ts made twins of shared definitions).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Relative imports and re-exports of a file, resolved to .ts files. */
function importsOf(file: string): string[] {
	const source = readFileSync(file, 'utf8');
	const targets: string[] = [];
	for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'(\.[^']+)'/g)) {
		const base = join(dirname(file), match[1]);
		const resolved = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
		if (resolved) targets.push(resolved);
	}
	return targets;
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
	let counter = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (node: string): void => {
		index.set(node, counter);
		low.set(node, counter++);
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node)!, low.get(next)!));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
		}
		if (low.get(node) === index.get(node)) {
			const component: string[] = [];
			let member: string;
			do {
				member = stack.pop()!;
				onStack.delete(member);
				component.push(relative(ROOT, member));
			} while (member !== node);
			if (component.length > 1) found.push(component.sort());
		}
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return found;
}

/**
 * Floors, highest first: a folder may import only folders on a lower floor (its own files freely).
 * The n8n glue sits on top; lib/errors.ts and lib/packageInfo.ts (the folder "lib") at the bottom.
 * A new folder must be given its floor here.
 */
const FLOORS: Record<string, number> = {
	nodes: 8,
	credentials: 8,
	approvals: 7,
	agent: 6,
	providers: 5,
	mcp: 4,
	tools: 3,
	util: 2,
	lib: 1,
};

/** lib/<folder>/… counts as <folder> (subfolders included), lib/<file> as "lib", anything else by its top folder. */
function folderOf(file: string): string {
	const parts = relative(ROOT, file).split(/[\\/]/);
	if (parts[0] !== 'lib') return parts[0];
	return parts.length > 2 ? parts[1] : 'lib';
}

/** Imports that cross folders and do not go down a floor, as "from -> to". */
function importsGoingUp(graph: Map<string, string[]>): string[] {
	const found: string[] = [];
	for (const [file, targets] of graph) {
		const from = folderOf(file);
		for (const target of targets) {
			const to = folderOf(target);
			if (from === to || !target.startsWith(ROOT) || relative(ROOT, target).startsWith('package.json')) continue;
			const fromFloor = FLOORS[from];
			const toFloor = FLOORS[to];
			if (fromFloor === undefined || toFloor === undefined || fromFloor <= toFloor) {
				found.push(`${relative(ROOT, file)} -> ${relative(ROOT, target)}`);
			}
		}
	}
	return found.sort();
}

describe('module structure', () => {
	const files = ['lib', 'nodes', 'credentials'].flatMap((folder) => sourceFiles(join(ROOT, folder)));
	const graph = new Map(files.map((file) => [file, importsOf(file)]));

	test('the import graph is read (sanity: the agent step imports its types)', () => {
		expect(graph.get(join(ROOT, 'lib/agent/step.ts'))).toContain(join(ROOT, 'lib/agent/types.ts'));
	});

	test('every folder is on a floor', () => {
		expect([...new Set(files.map(folderOf))].filter((folder) => FLOORS[folder] === undefined)).toEqual([]);
	});

	test('imports go only down the floors (nodes → approvals → agent → providers → mcp → tools → util → lib)', () => {
		expect(importsGoingUp(graph)).toEqual([]);
	});

	test('the floor rule sees an import going up (sanity)', () => {
		const step = join(ROOT, 'lib/agent/step.ts');
		const upward = new Map([[step, [join(ROOT, 'lib/approvals/resumeInput.ts')]]]);
		expect(importsGoingUp(upward)).toEqual(['lib/agent/step.ts -> lib/approvals/resumeInput.ts']);
	});

	test('no import cycles, type-only imports included', () => {
		expect(cycles(graph)).toEqual([]);
	});

	test('lib/ imports nothing of the n8n glue and no n8n-workflow value', () => {
		for (const file of files.filter((f) => relative(ROOT, f).startsWith('lib/'))) {
			const source = readFileSync(file, 'utf8');
			expect({ file: relative(ROOT, file), glue: /from '(?:\.\.\/)+(?:nodes|credentials)\//.test(source) }).toEqual({ file: relative(ROOT, file), glue: false });
			expect({
				file: relative(ROOT, file),
				n8nValue: /import\s+\{[^}]*\}\s+from\s+'n8n-workflow'|require\('n8n-workflow'\)/.test(source.replace(/import type \{[^}]*\} from 'n8n-workflow'/g, '')),
			}).toEqual({
				file: relative(ROOT, file),
				n8nValue: false,
			});
		}
	});
});
