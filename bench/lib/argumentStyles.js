'use strict';
// How the measured MCP Call Tool node gets each item's arguments. n8n 2.41 evaluates a JavaScript
// expression once per item in its isolated-vm engine (~1.3 ms each in the CPU profile), so the
// style decides much of the per-item cost; the bench measures each. `parameters(field)` reads the
// message from `$json.<field>` (`body.message` when the webhook's body is the item).

const ARGUMENT_STYLES = {
	// The node's default mode with the mapping n8n's editor writes when `message` is dragged from
	// the input panel: read from the item by the node, no expression engine per item.
	fields: {
		label: 'fields mapped from the item (`{{ $json.message }}`)',
		short: 'fields mapped',
		parameters: (field = 'message') => ({
			argumentsMode: 'fields',
			arguments: {
				mappingMode: 'defineBelow',
				value: { message: `={{ $json.${field} }}` },
				matchingColumns: [],
				schema: [{ id: 'message', displayName: 'message', required: true, defaultMatch: false, display: true, type: 'string', canBeUsedToMatch: false }],
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
		}),
	},
	// Arguments mode "Input Item": the item is the arguments object.
	item: {
		label: 'arguments mode Input Item',
		short: 'Input Item',
		parameters: (field = 'message') => ({ argumentsMode: 'item', argumentsField: field.split('.').slice(0, -1).join('.') }),
	},
	// A computed expression, which only n8n's expression engine can evaluate, once per item.
	expression: {
		label: 'arguments computed by an expression (`{{ JSON.stringify({ message: $json.message }) }}`)',
		short: 'computed expression',
		parameters: (field = 'message') => ({ argumentsMode: 'json', argumentsJson: `={{ JSON.stringify({ message: $json.${field} }) }}` }),
	},
};

module.exports = { ARGUMENT_STYLES };
