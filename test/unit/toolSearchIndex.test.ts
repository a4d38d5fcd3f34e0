/**
 * The tool search ranking (issue 31.1): BM25F over name, title, description and argument names,
 * pure and explainable. Found by their names (snake_case, camelCase, kebab-case), by words only
 * their descriptions use, and by their argument names; results capped, ties in catalog order.
 */
import { argumentNames, stem, tokenize, ToolSearchIndex, type SearchableTool } from '../../lib/tools/toolSearchIndex';

const VERBS = ['get', 'list', 'create', 'update', 'delete', 'archive', 'sync', 'export', 'import', 'count'];
const NOUNS = ['widget', 'gadget', 'ledger', 'invoice', 'account', 'order', 'shipment', 'product', 'report', 'ticket'];

/** A big catalog of look-alike tools (1,000), and the specific ones each test looks for. */
function catalog(extra: SearchableTool[]): SearchableTool[] {
	const filler: SearchableTool[] = [];
	for (let i = 0; i < 1000; i++) {
		const verb = VERBS[i % VERBS.length];
		const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
		filler.push({ name: `${verb}_${noun}_${i}`, description: `${verb} a ${noun} record in system ${i}.`, inputSchema: { type: 'object', properties: { id: { type: 'string' }, limit: { type: 'number' } } } });
	}
	return [...filler, ...extra];
}

const names = (tools: SearchableTool[], hits: Array<{ index: number }>) => hits.map((hit) => tools[hit.index].name);

describe('tokenize', () => {
	it('splits snake_case, camelCase, kebab-case, dotted names and acronyms, lower-cased and stemmed', () => {
		expect(tokenize('list_issues')).toEqual(['list', 'issu']);
		expect(tokenize('createPullRequest')).toEqual(['creat', 'pull', 'request']);
		expect(tokenize('get-HTTPServer.status')).toEqual(['get', 'http', 'server', 'status']);
		expect(tokenize('Sends the e-mail to a recipient')).toEqual(['send', 'mail', 'recipient']);
	});

	it('stems plurals, -ing and -ed to the same word', () => {
		expect(new Set(['issue', 'issues'].map(stem)).size).toBe(1);
		expect(new Set(['create', 'created', 'creating', 'creates'].map(stem)).size).toBe(1);
		expect(new Set(['repository', 'repositories'].map(stem)).size).toBe(1);
	});

	it('reads argument names from nested objects, array items and combinators', () => {
		const schema = { type: 'object', properties: { owner: { type: 'string' }, filter: { type: 'object', properties: { labelName: { type: 'string' } } }, rows: { type: 'array', items: { oneOf: [{ properties: { zipCode: {} } }] } } } };
		expect(argumentNames(schema)).toEqual(['owner', 'filter', 'labelName', 'rows', 'zipCode']);
	});
});

describe('ToolSearchIndex', () => {
	it('finds a tool by the words of its name among 1,000, first', () => {
		const tools = catalog([
			{ name: 'list_issues', description: 'Lists issues of a repository.' },
			{ name: 'createPullRequest', description: 'Opens a PR.' },
			{ name: 'merge-branches', description: 'Merges one branch into another.' },
		]);
		const index = new ToolSearchIndex(tools);
		expect(names(tools, index.search('list issues', 3))[0]).toBe('list_issues');
		expect(names(tools, index.search('pull request', 3))[0]).toBe('createPullRequest');
		expect(names(tools, index.search('merge branch', 3))[0]).toBe('merge-branches');
	});

	it('finds a tool by a word only its description uses (a synonym of its name)', () => {
		const tools = catalog([
			{ name: 'send_message', description: 'Sends an email to one recipient, with an optional attachment.' },
			{ name: 'notify_user', description: 'Posts a chat notification.' },
		]);
		const index = new ToolSearchIndex(tools);
		const hits = index.search('email', 5);
		expect(names(tools, hits)[0]).toBe('send_message');
		expect(hits[0].matched).toEqual(['email']);
	});

	it('finds a tool by its argument names', () => {
		const tools = catalog([
			{ name: 'lookup', description: 'Looks a place up.', inputSchema: { type: 'object', properties: { zipCode: { type: 'string' }, country_iso: { type: 'string' } } } },
		]);
		const index = new ToolSearchIndex(tools);
		expect(names(tools, index.search('zip code', 3))[0]).toBe('lookup');
	});

	it('matches a word by its prefix ("repo" finds "repository"), below an exact match', () => {
		const tools = [
			{ name: 'fork_repository', description: 'Forks a repository.' },
			{ name: 'repo_stats', description: 'Statistics of a repo.' },
			{ name: 'weather', description: 'Tells the weather.' },
		];
		const index = new ToolSearchIndex(tools);
		expect(names(tools, index.search('repo', 5))).toEqual(['repo_stats', 'fork_repository']);
	});

	it('puts a tool the query names exactly first', () => {
		const tools = catalog([{ name: 'get_widget_7', description: 'The seventh widget.' }]);
		const index = new ToolSearchIndex(tools);
		expect(names(tools, index.search('get_widget_7', 3))[0]).toBe('get_widget_7');
		expect(index.search('get_widget_7', 3)[0].matched).toContain('name');
	});

	it('caps the results, returns only matching tools, and breaks ties by catalog order', () => {
		const tools = catalog([]);
		const index = new ToolSearchIndex(tools);
		const hits = index.search('widget', 5);
		expect(hits).toHaveLength(5);
		expect(hits.map((hit) => hit.index)).toEqual([...hits.map((hit) => hit.index)].sort((a, b) => a - b));
		expect(index.search('zebra unicorn', 5)).toEqual([]);
		expect(index.search('', 5)).toEqual([]);
	});

	it('leaves out the tools `accept` refuses, and fills the cap with the next ones', () => {
		const tools = [
			{ name: 'send_money', description: 'Sends money.' },
			{ name: 'send_money_fast', description: 'Sends money fast.' },
			{ name: 'request_money', description: 'Requests money.' },
		];
		const index = new ToolSearchIndex(tools);
		expect(names(tools, index.search('send money', 2, (i) => i !== 0))).toEqual(['send_money_fast', 'request_money']);
	});

	it('ranks the same way every time (no randomness, no state)', () => {
		const tools = catalog([{ name: 'list_issues', description: 'Lists issues.' }]);
		const a = new ToolSearchIndex(tools).search('list ledger invoice', 10);
		const b = new ToolSearchIndex(tools).search('list ledger invoice', 10);
		expect(a).toEqual(b);
	});
});
