/**
 * Ranking tools for a search query, with no network and no model: BM25F (BM25 over several
 * weighted fields) over a tool's name, title, description and argument names. Every score can be
 * explained: it is the sum, over the query's words, of how rare the word is among the tools (idf)
 * times how often it appears in each field, weighted by field and damped by field length. A word
 * that is a prefix of another ("repo", "repository") counts at half weight; a query naming a tool
 * exactly puts that tool first.
 */

/** The parts of a tool the ranking reads (a catalog tool or an MCP tool definition). */
export interface SearchableTool {
	name: string;
	title?: string;
	description?: string;
	inputSchema?: Record<string, unknown>;
}

export interface SearchHit {
	/** Position of the tool in the list the index was built over. */
	index: number;
	score: number;
	/** The query words (as normalized) that matched, and `name` when the query named the tool exactly. */
	matched: string[];
}

type Field = 'name' | 'title' | 'args' | 'description';

/** A name says most about a tool, then its title and argument names, then its prose. */
const FIELDS: ReadonlyArray<{ field: Field; weight: number; b: number }> = [
	{ field: 'name', weight: 3, b: 0.3 },
	{ field: 'title', weight: 2, b: 0.3 },
	{ field: 'args', weight: 1.5, b: 0.5 },
	{ field: 'description', weight: 1, b: 0.75 },
];
const K1 = 1.2;
/** A vocabulary word one of whose query words is a prefix of (or the other way round), at this share of an exact match. */
const PREFIX_WEIGHT = 0.5;
const MIN_PREFIX = 3;
/** Puts a tool the query names exactly above any sum of word scores a short query can reach. */
const EXACT_NAME_BONUS = 1000;
/** Query words read: a query is a few words, not a document. */
const MAX_QUERY_TERMS = 32;
/** Argument names read per tool (nested objects included), and how deep. */
const MAX_ARGUMENT_NAMES = 200;
const MAX_SCHEMA_DEPTH = 4;
/** Description characters read per tool: what a search needs is in the first few thousand, and a hostile listing (2,000 tools of 16,000 characters) stays cheap to index. */
const MAX_TEXT = 4_000;

const STOPWORDS = new Set(
	'a an and are as at be by can do does for from has have how i in into is it its me my of on or that the their them then there these this to use used uses using via was what when which will with you your'.split(' '),
);

/**
 * Words of a text or a name, normalized: split at anything that is not a letter or digit (snake_case,
 * kebab-case, dots, slashes) and at case changes (camelCase, HTTPServer), lower-cased, stop words
 * dropped, and stemmed lightly (stem) so "issues", "listing" and "created" meet "issue", "list", "create".
 */
export function tokenize(text: string, seen?: Map<string, string[]>): string[] {
	const words: string[] = [];
	for (const piece of text.slice(0, MAX_TEXT).match(/[\p{L}\p{N}]+/gu) ?? []) {
		// Descriptions repeat their words: each distinct piece is split and stemmed once per index.
		let parts = seen?.get(piece);
		if (!parts) {
			parts = pieceWords(piece);
			if (seen && seen.size < 200_000) seen.set(piece, parts);
		}
		for (let i = 0; i < parts.length; i++) words.push(parts[i]);
	}
	return words;
}

/** One run of letters and digits, split at case changes, normalized. */
function pieceWords(piece: string): string[] {
	const words: string[] = [];
	// Plain lower-case words (most of any description) need no case split.
	const parts = /^[a-z]+$/.test(piece) ? [piece] : (piece.match(/\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{L}+|\p{N}+/gu) ?? []);
	for (const part of parts) {
		const word = part.toLowerCase();
		if (word.length < 2 && !/\p{N}/u.test(word)) continue;
		if (STOPWORDS.has(word)) continue;
		words.push(stem(word));
	}
	return words;
}

/** A light English suffix stripper (plurals, -ing, -ed, a final e); short words stay as they are. */
export function stem(word: string): string {
	if (word.length <= 3 || /\p{N}/u.test(word)) return word;
	let w = word;
	if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
	else if (w.endsWith('sses')) w = w.slice(0, -2);
	else if (/(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
	else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
	if (w.endsWith('ing') && w.length - 3 >= 3) w = w.slice(0, -3);
	else if (w.endsWith('ed') && w.length - 2 >= 3) w = w.slice(0, -2);
	if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
	return w;
}

/** The property names of a JSON Schema (nested objects, arrays' items and combinators included), bounded. */
export function argumentNames(schema: unknown): string[] {
	const names: string[] = [];
	const visit = (node: unknown, depth: number) => {
		if (!node || typeof node !== 'object' || depth > MAX_SCHEMA_DEPTH || names.length >= MAX_ARGUMENT_NAMES) return;
		const record = node as Record<string, unknown>;
		const properties = record.properties;
		if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
			for (const [name, child] of Object.entries(properties)) {
				if (names.length >= MAX_ARGUMENT_NAMES) return;
				names.push(name);
				visit(child, depth + 1);
			}
		}
		if (record.items) visit(record.items, depth + 1);
		for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
			const list = record[key];
			if (Array.isArray(list)) for (const child of list) visit(child, depth + 1);
		}
	};
	visit(schema, 0);
	return names;
}

interface IndexedTool {
	lengths: Record<Field, number>;
	/** The name as typed, lower-cased, for the exact-name match. */
	exactName: string;
}

/** One tool having a word: how often, per field (in FIELDS order). */
interface Posting {
	tool: number;
	counts: number[];
}

function related(queryWord: string, word: string): number {
	if (queryWord === word) return 1;
	const [short, long] = queryWord.length <= word.length ? [queryWord, word] : [word, queryWord];
	return short.length >= MIN_PREFIX && long.startsWith(short) ? PREFIX_WEIGHT : 0;
}

/** An index over a list of tools, built once; `search` ranks them for a query. */
export class ToolSearchIndex {
	private readonly tools: IndexedTool[];
	private readonly averages: number[];
	/** Each vocabulary word and the tools that have it, with its count per field. */
	private readonly postings = new Map<string, Posting[]>();

	constructor(tools: readonly SearchableTool[]) {
		const seen = new Map<string, string[]>();
		this.tools = tools.map((tool, index) => {
			const words: Record<Field, string[]> = {
				name: tokenize(tool.name, seen),
				title: tokenize(tool.title ?? '', seen),
				args: argumentNames(tool.inputSchema).flatMap((name) => tokenize(name, seen)),
				description: tokenize(typeof tool.description === 'string' ? tool.description : '', seen),
			};
			const own = new Map<string, Posting>();
			FIELDS.forEach(({ field }, f) => {
				for (const word of words[field]) {
					let posting = own.get(word);
					if (!posting) own.set(word, (posting = { tool: index, counts: [0, 0, 0, 0] }));
					posting.counts[f] += 1;
				}
			});
			for (const [word, posting] of own) {
				let list = this.postings.get(word);
				if (!list) this.postings.set(word, (list = []));
				list.push(posting);
			}
			return {
				lengths: { name: words.name.length, title: words.title.length, args: words.args.length, description: words.description.length },
				exactName: tool.name.toLowerCase(),
			};
		});
		const n = Math.max(1, this.tools.length);
		this.averages = FIELDS.map(({ field }) => this.tools.reduce((sum, tool) => sum + tool.lengths[field], 0) / n || 1);
	}

	get size(): number {
		return this.tools.length;
	}

	/**
	 * The best `limit` tools for the query that `accept` lets through, best first (ties in list
	 * order); only tools that match at all.
	 */
	search(query: string, limit: number, accept: (index: number) => boolean = () => true): SearchHit[] {
		const terms = [...new Set(tokenize(query))].slice(0, MAX_QUERY_TERMS);
		const scores = new Map<number, { score: number; matched: Set<string> }>();
		const hit = (index: number) => {
			let entry = scores.get(index);
			if (!entry) scores.set(index, (entry = { score: 0, matched: new Set() }));
			return entry;
		};
		const n = this.tools.length;
		for (const term of terms) {
			// Per tool, the counts per field of the vocabulary words this query word matches (exactly, or by prefix at a discount).
			const byTool = new Map<number, number[]>();
			for (const [word, list] of this.postings) {
				const weight = related(term, word);
				if (weight === 0) continue;
				for (const { tool, counts } of list) {
					let sums = byTool.get(tool);
					if (!sums) byTool.set(tool, (sums = [0, 0, 0, 0]));
					for (let f = 0; f < 4; f++) sums[f] += counts[f] * weight;
				}
			}
			if (byTool.size === 0) continue;
			const idf = Math.log(1 + (n - byTool.size + 0.5) / (byTool.size + 0.5));
			for (const [index, sums] of byTool) {
				const tool = this.tools[index];
				let tf = 0;
				FIELDS.forEach(({ field, weight, b }, f) => {
					if (sums[f] > 0) tf += (weight * sums[f]) / (1 - b + (b * tool.lengths[field]) / this.averages[f]);
				});
				if (tf <= 0) continue;
				const entry = hit(index);
				entry.score += (idf * tf * (K1 + 1)) / (tf + K1);
				entry.matched.add(term);
			}
		}
		// A query that names a tool exactly (as one of its words, or as the whole query).
		const raw = query.trim().toLowerCase();
		const rawWords = new Set(raw.split(/[\s,;]+/).filter(Boolean));
		this.tools.forEach((tool, index) => {
			if (tool.exactName && (raw === tool.exactName || rawWords.has(tool.exactName))) {
				const entry = hit(index);
				entry.score += EXACT_NAME_BONUS;
				entry.matched.add('name');
			}
		});
		return [...scores.entries()]
			.filter(([index]) => accept(index))
			.sort(([a, x], [b, y]) => y.score - x.score || a - b)
			.slice(0, Math.max(0, limit))
			.map(([index, { score, matched }]) => ({ index, score: Math.round(score * 1000) / 1000, matched: [...matched] }));
	}
}
