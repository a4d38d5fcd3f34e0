'use strict';
const assert = require('node:assert/strict');
const { describeBody } = require('../lib/assertions');

module.exports = function listToolsCases(e2eTest, env) {
	const fingerprints = {};

	for (const transport of ['stdio', 'http']) {
		e2eTest(`MCP List Tools lists server-everything's tools over ${transport}`, async () => {
			const { status, body } = await env.n8n.trigger(`mcp-e2e-list-tools-${transport}`);
			assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
			assert.ok(Array.isArray(body) && body.length > 1, `expected one item per tool, got ${describeBody(body)}`);

			const echo = body.find((tool) => tool.name === 'echo');
			assert.ok(echo, `no 'echo' among ${body.map((t) => t.name).join(', ')}`);
			assert.equal(echo.description, 'Echoes back the input string');
			assert.equal(echo.inputSchema?.type, 'object', `inputSchema: ${JSON.stringify(echo.inputSchema)}`);
			assert.equal(echo.inputSchema.properties?.message?.type, 'string', `inputSchema: ${JSON.stringify(echo.inputSchema)}`);
			assert.equal(typeof echo.fingerprint, 'string');
			assert.ok(echo.fingerprint.length >= 8, `fingerprint '${echo.fingerprint}' looks too short`);
			assert.equal(typeof echo.server?.name, 'string', `server: ${JSON.stringify(echo.server)}`);
			assert.ok(echo.server.name.length > 0);

			for (const tool of body) {
				assert.equal(typeof tool.name, 'string');
				assert.equal(typeof tool.fingerprint, 'string', `tool ${tool.name} has no fingerprint`);
			}
			const names = body.map((t) => t.name);
			assert.equal(new Set(names).size, names.length, `duplicate tools: ${names.join(', ')}`);
			fingerprints[transport] = echo.fingerprint;
		});
	}

	e2eTest('the same tool has the same fingerprint over stdio and HTTP', async () => {
		assert.ok(fingerprints.stdio && fingerprints.http, 'both List Tools cases must have passed');
		assert.equal(fingerprints.stdio, fingerprints.http);
	});
};
