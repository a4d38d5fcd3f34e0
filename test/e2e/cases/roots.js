'use strict';
const assert = require('node:assert/strict');
const { describeBody } = require('../lib/assertions');
const { README_TEXT } = require('../lib/rootsFixture');
const { waitFor } = require('../lib/net');

// Roots (issue 26, point 1) in a real n8n: a credential without Roots declares no roots, so
// server-pdf keeps the directory on its command line; a credential with Roots gives
// server-filesystem, started without directories, the one it may read.
module.exports = function rootsCases(e2eTest, env) {
	e2eTest('roots: server-pdf keeps the directory on its command line (no Roots in the credential)', async () => {
		const { status, body } = await env.n8n.trigger('mcp-e2e-roots-pdf');
		assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
		assert.ok(Array.isArray(body) && body.length === 1, `expected one item, got ${describeBody(body)}`);
		const [item] = body;
		assert.equal(item.tool, 'read_pdf_bytes', describeBody(item));
		assert.equal(item.isError, false, describeBody(item));
		assert.match(item.structuredContent?.url ?? '', /doc\.pdf$/, describeBody(item));
		assert.equal(Buffer.from(item.structuredContent.bytes, 'base64').toString('latin1'), '%PDF-1.4', describeBody(item));
	});

	e2eTest('roots: server-filesystem reads under the Roots of its credential (no directory on its command line)', async () => {
		// server-filesystem asks for the roots once it is initialized and applies them after checking
		// each directory (asynchronous file-system calls), while it already serves calls: the first call
		// on a new connection may come before that (seen on n8n 1.123). The connection is kept between
		// executions, so the ready check is the server answering from the credential's root; a server
		// that never gets the roots (as before this package declared them) never passes it.
		let last;
		await waitFor('server-filesystem to allow the credential\'s root', async () => {
			last = await env.n8n.trigger('mcp-e2e-roots-fs', { path: env.roots.readmeFile });
			const [item] = Array.isArray(last.body) ? last.body : [];
			return last.status === 200 && item?.isError === false;
		}, { timeoutMs: 20000, intervalMs: 500 }).catch(() => undefined);
		const { status, body } = last;
		assert.equal(status, 200, `webhook answered ${status}: ${describeBody(body)}`);
		assert.ok(Array.isArray(body) && body.length === 1, `expected one item, got ${describeBody(body)}`);
		assert.equal(body[0].isError, false, describeBody(body[0]));
		assert.equal(body[0].text, README_TEXT, describeBody(body[0]));
	});
};
