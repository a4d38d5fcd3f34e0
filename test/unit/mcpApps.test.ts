import { buildCatalog } from '../../lib/agent/catalog';
import { describeTools } from '../../lib/tools/listedTools';
import { APP_ONLY_REASON, mcpAppsUi } from '../../lib/tools/mcpApps';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';

/** MCP Apps (issue 26, point 3): app-only tools are never offered to a model, and are listed as such. */
const schema = { type: 'object', properties: {} };
const tool = (name: string, _meta?: Record<string, unknown>): ToolDefinition => ({ name, description: `The ${name} tool`, inputSchema: schema, ...(_meta ? { _meta } : {}) });

const listing: ToolDefinition[] = [
	tool('show', { ui: { resourceUri: 'ui://viewer/app.html' } }),
	tool('show_both', { ui: { resourceUri: 'ui://viewer/app.html', visibility: ['model', 'app'] } }),
	tool('flat_key', { 'ui/resourceUri': 'ui://viewer/old.html' }),
	tool('save', { ui: { resourceUri: 'ui://viewer/app.html', visibility: ['app'] } }),
	tool('nobody', { ui: { visibility: [] } }),
	tool('as_string', { ui: { visibility: 'app' } }),
	tool('odd', { ui: { visibility: { app: true } } }),
	tool('plain'),
];

describe('mcpAppsUi', () => {
	it.each([
		['show', { appOnly: false, resourceUri: 'ui://viewer/app.html' }],
		['show_both', { appOnly: false, resourceUri: 'ui://viewer/app.html' }],
		['flat_key', { appOnly: false, resourceUri: 'ui://viewer/old.html' }],
		['save', { appOnly: true, resourceUri: 'ui://viewer/app.html' }],
		['nobody', { appOnly: true }],
		['as_string', { appOnly: true }],
		['odd', { appOnly: false }],
		['plain', { appOnly: false }],
	])('%s', (name, expected) => {
		expect(mcpAppsUi(listing.find((t) => t.name === name)!)).toEqual(expected);
	});
});

it('the Agent withholds app-only tools, with the reason', () => {
	const { tools, withheld } = buildCatalog([{ id: 'viewer', name: 'viewer', tools: listing }]);
	expect(tools.map((t) => t.mcpName).sort()).toEqual(['flat_key', 'odd', 'plain', 'show', 'show_both']);
	expect(withheld).toEqual(['save', 'nobody', 'as_string'].map((name) => ({ server: 'viewer', tool: name, reason: APP_ONLY_REASON })));
});

it('MCP List Tools keeps _meta (a copy) and marks app-only tools and their ui:// resource', () => {
	const before = JSON.parse(JSON.stringify(listing));
	const items = describeTools(listing, { name: 'viewer', version: '1' }, { trustAnnotations: false, providerFormats: false });
	const byName = Object.fromEntries(items.map((item) => [item.name, item]));
	expect(byName.save).toMatchObject({ _meta: { ui: { resourceUri: 'ui://viewer/app.html', visibility: ['app'] } }, appOnly: true, uiResourceUri: 'ui://viewer/app.html' });
	expect(byName.show).toMatchObject({ _meta: { ui: { resourceUri: 'ui://viewer/app.html' } }, uiResourceUri: 'ui://viewer/app.html' });
	expect(byName.show).not.toHaveProperty('appOnly');
	expect(byName.plain).not.toHaveProperty('_meta');
	expect(byName.plain).not.toHaveProperty('appOnly');
	(byName.save._meta as { ui: { visibility: string[] } }).ui.visibility.push('model');
	expect(listing).toEqual(before);
});
