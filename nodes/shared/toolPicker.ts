import type {
	ILoadOptionsFunctions,
	INodeListSearchResult,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { listToolsCached } from '../../lib/mcp/listing';
import { schemaToFields } from '../../lib/tools/schemaFields';
import { acquireServerConnection } from './serverConnection';
import { toNodeError } from './nodeErrors';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { isAppOnlyTool } from '../../lib/tools/mcpApps';

const APP_ONLY_NOTE = 'App-only tool (MCP Apps): the server meant it for its app, not for a model; the MCP Agent never offers it.';

async function loadTools(context: ILoadOptionsFunctions): Promise<ToolDefinition[]> {
	const lease = await acquireServerConnection(context);
	try {
		// The editor asks twice in a row (the dropdown, then the fields): one listing serves both.
		return await listToolsCached(lease.connection);
	} catch (error) {
		throw toNodeError(context, error);
	} finally {
		await lease.release();
	}
}

/** Searchable tool dropdown: filters by name, title and description. */
export async function searchTools(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const tools = await loadTools(this);
	const needle = (filter ?? '').toLowerCase();
	const matching = needle
		? tools.filter((tool) => [tool.name, tool.title, tool.description].some((text) => text?.toLowerCase().includes(needle)))
		: tools;
	return {
		results: matching.map((tool) => {
			const label = tool.title && tool.title !== tool.name ? `${tool.title} (${tool.name})` : tool.name;
			// MCP Apps: a person may still pick a tool meant for the app, knowing it is one.
			if (!isAppOnlyTool(tool)) return { name: label, value: tool.name, description: tool.description };
			return { name: `${label} [app-only]`, value: tool.name, description: `${APP_ONLY_NOTE}${tool.description ? ` ${tool.description}` : ''}` };
		}),
	};
}

/** Argument fields generated from the selected tool's inputSchema. */
export async function getToolArgumentFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const toolName = this.getNodeParameter('tool', '', { extractValue: true }) as string;
	if (!toolName) return { fields: [] };
	const tool = (await loadTools(this)).find((candidate) => candidate.name === toolName);
	if (!tool) return { fields: [], emptyFieldsNotice: `The server has no tool named "${toolName}"` };
	const fields: ResourceMapperField[] = schemaToFields(tool.inputSchema).map((field) => ({
		id: field.id,
		displayName: field.displayName,
		required: field.required,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: field.kind,
		...(field.options ? { options: field.options.map((o) => ({ name: o.name, value: o.value as string | number })) } : {}),
	}));
	return { fields, ...(fields.length === 0 ? { emptyFieldsNotice: 'This tool takes no arguments' } : {}) };
}
