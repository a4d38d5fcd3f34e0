'use strict';
const assert = require('node:assert/strict');
const { describeBody, errorText } = require('../lib/assertions');
const { latestFinishedExecution } = require('../lib/executions');

/** The stdio server `node -e "process.exit(3)"` dies at once: the error must say how it exited. */
function assertMentionsExitCode(text) {
	assert.match(text, /exit/i, `error does not mention the exit: ${text}`);
	assert.match(text, /\b3\b/, `error does not mention exit code 3: ${text}`);
}

module.exports = function errorCases(e2eTest, env) {
	e2eTest('MCP Call Tool sends an item with bad arguments to the error output, naming the field', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-call-bad-arguments');
		assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
		// The last node to run is "Errors" on the error output; the success output stays empty.
		assert.ok(Array.isArray(body) && body.length === 1, `expected one error item, got ${describeBody(body)}`);
		const text = errorText(body[0]);
		assert.ok(text, `error item has no error: ${describeBody(body[0])}`);
		assert.match(text, /message/, `error does not name the bad field 'message': ${text}`);
	});

	e2eTest('MCP List Tools on a stdio server that exits with code 3 continues with the exit code in the error', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-dead-stdio');
		assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
		assert.ok(Array.isArray(body) && body.length === 1, `expected one error item, got ${describeBody(body)}`);
		assertMentionsExitCode(errorText(body[0]));
	});

	e2eTest('MCP List Tools on a stdio server that exits with code 3 fails the execution', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-dead-stdio-fails');
		assert.ok(status >= 500, `expected the failed workflow to answer 5xx, got ${status}: ${describeBody(body)}`);
		const execution = await latestFinishedExecution(env.n8n, 'e2eErrors0000000001');
		assert.equal(execution.status, 'error', `execution: ${JSON.stringify(execution)}`);
		assert.equal(execution.error?.node, 'List Tools (dead stdio)', `execution: ${JSON.stringify(execution)}`);
		assertMentionsExitCode(`${execution.error.message} ${execution.error.description ?? ''}`);
	});

	e2eTest('MCP Call Tool on a closed HTTP port continues with "connection refused" in the error', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-dead-http');
		assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
		assert.ok(Array.isArray(body) && body.length === 1, `expected one error item, got ${describeBody(body)}`);
		const text = errorText(body[0]);
		assert.match(text, /ECONNREFUSED|connection refused/i, `error does not say the connection was refused: ${text}`);
	});
};
