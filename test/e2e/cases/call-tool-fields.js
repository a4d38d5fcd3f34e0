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
};
