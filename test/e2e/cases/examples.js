'use strict';
// The workflows in examples/ (imported by `npm start`) run as shipped, via `n8n execute`.
const assert = require('node:assert/strict');
const { describeBody } = require('../lib/assertions');

function outputOf(env, workflowId, nodeName) {
	const result = env.exampleRuns?.[workflowId];
	assert.ok(result, `example ${workflowId} did not run (is it in examples/?)`);
	if (result.error) throw result.error;
	const runs = result.run?.data?.resultData?.runData?.[nodeName];
	assert.ok(runs?.length, `no run of node "${nodeName}" in ${describeBody(result.run)}`);
	assert.equal(runs[0].error, undefined, `node "${nodeName}" failed: ${describeBody(runs[0].error)}`);
	return runs[0].data.main[0].map((item) => item.json);
}

module.exports = function exampleCases(e2eTest, env) {
	e2eTest('example "MCP List Tools" runs and lists echo', async () => {
		const tools = outputOf(env, 'exampleMcpListTools1', 'MCP List Tools');
		assert.ok(tools.some((t) => t.name === 'echo'), `tools: ${tools.map((t) => t.name).join(', ')}`);
	});

	e2eTest('example "MCP Call Tool echo" runs and echoes', async () => {
		const items = outputOf(env, 'exampleMcpCallToolEcho', 'MCP Call Tool');
		assert.equal(items.length, 1, describeBody(items));
		assert.equal(items[0].text, 'Echo: Hello from n8n', describeBody(items));
	});
};
