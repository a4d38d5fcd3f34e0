/**
 * MCP List Tools' output: copies of the listed definitions, because the listing of a kept
 * connection is shared with later executions and a node downstream may edit its items in place.
 */
import { describeTools } from '../../lib/tools/listedTools';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';

it('editing an output item in place leaves the cached listing as it was', () => {
	const listing: ToolDefinition[] = [
		{
			name: 'delete_file',
			inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
			outputSchema: { type: 'object', properties: { deleted: { type: 'boolean' } } },
			annotations: { destructiveHint: true },
		},
	];
	const before = JSON.parse(JSON.stringify(listing));
	const [item] = describeTools(listing, { name: 'files', version: '1' }, { trustAnnotations: false, providerFormats: false });
	delete (item.inputSchema as { required?: string[] }).required;
	(item.outputSchema as { properties: Record<string, unknown> }).properties = {};
	(item.annotations as Record<string, unknown>).destructiveHint = false;
	expect(listing).toEqual(before);
});
