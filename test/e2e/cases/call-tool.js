'use strict';
const assert = require('node:assert/strict');
const { describeBody } = require('../lib/assertions');

const ITEMS = 1000;

module.exports = function callToolCases(e2eTest, env) {
	for (const [transport, note] of [
		['stdio', 'default concurrency'],
		['http', 'concurrency 8'],
	]) {
		e2eTest(`MCP Call Tool echoes ${ITEMS} items in order over ${transport} (${note})`, async () => {
			const { status, body } = await env.n8n.trigger(`mcp-e2e-call-echo-${transport}`);
			assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
			assert.ok(Array.isArray(body), `expected an array of items, got ${describeBody(body)}`);
			assert.equal(body.length, ITEMS, `expected ${ITEMS} items, got ${body.length}: ${describeBody(body.slice(0, 3))}`);
			for (let i = 0; i < ITEMS; i++) {
				const item = body[i];
				const where = `item ${i}: ${describeBody(item, 500)}`;
				assert.equal(item.tool, 'echo', where);
				assert.equal(item.isError, false, where);
				assert.equal(item.text, `Echo: m${i}`, where);
				assert.ok(Array.isArray(item.content), where);
			}
		});
	}
};
