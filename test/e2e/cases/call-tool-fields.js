'use strict';
const assert = require('node:assert/strict');
const { describeBody } = require('../lib/assertions');

module.exports = function callToolFieldsCases(e2eTest, env) {
	e2eTest('MCP Call Tool with arguments from schema fields (number field filled by an expression)', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-call-fields', { a: '2' });
		assert.equal(status, 200, describeBody(body));
		const item = Array.isArray(body) ? body[0] : body;
		assert.equal(item.tool, 'get-sum', describeBody(item));
		assert.equal(item.isError, false, describeBody(item));
		assert.match(item.text, /\b5\b/, describeBody(item));
	});

	e2eTest('MCP Call Tool with a field of the input item as the arguments (no per-item expression)', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-call-item', { numbers: { a: 4, b: 5 } });
		assert.equal(status, 200, describeBody(body));
		const item = Array.isArray(body) ? body[0] : body;
		assert.equal(item.isError, false, describeBody(item));
		assert.match(item.text, /\b9\b/, describeBody(item));
	});

	e2eTest('MCP Call Tool with a field mapped from each item ({{ $json.text }}): plain values read from the item, the rest evaluated by n8n', async () => {
		const items = [{ text: 'first' }, { text: 42 }, { other: 'no text here' }, { text: 'last' }];
		const { status, body } = await env.n8n.trigger('mcp-e2e-call-mapped', { items });
		assert.equal(status, 200, describeBody(body));
		assert.ok(Array.isArray(body) && body.length === items.length, describeBody(body));
		assert.deepEqual(
			body.map((item) => item.text ?? null),
			['Echo: first', null, null, 'Echo: last'],
			describeBody(body),
		);
		// A number is passed on as a number, as n8n's evaluation gives it, and the tool's schema
		// wants a string. The item without the field goes through n8n's own evaluation (undefined)
		// and fails the required field. Continue On Fail keeps both as error items, in place.
		assert.match(body[1].error, /arguments\.message must be string/, describeBody(body[1]));
		assert.match(body[2].error, /arguments\.message is required/, describeBody(body[2]));
	});

	e2eTest('MCP Call Tool with schema fields from Pydantic models ($ref into $defs): the customer typed as JSON text reaches the server as an object', async () => {
		// test/fixtures/pydantic-server.js: create_order's arguments as the Python SDK describes them.
		const { status, body } = await env.n8n.trigger('mcp-e2e-call-fields-ref', {});
		assert.equal(status, 200, describeBody(body));
		const item = Array.isArray(body) ? body[0] : body;
		assert.equal(item.tool, 'create_order', describeBody(item));
		assert.equal(item.isError, false, describeBody(item));
		assert.match(item.text, /^received: /, describeBody(item));
		assert.deepEqual(JSON.parse(item.text.slice('received: '.length)), {
			customer: { name: 'Ada', email: 'ada@example.com', address: { street: '1 Loop Rd', city: 'Lisboa' } },
			items: [{ sku: 'A-1', quantity: 2, color: 'blue' }, { sku: 'B-2' }],
			color: 'green',
		});
	});
};
