'use strict';
// Issue 15 in a real n8n: n8n tool nodes next to MCP servers under one review, Simple Memory across
// webhook messages (also around a pause for review), the model's text streamed to a streaming
// Webhook while the model still answers, and every call visible on its sub-node.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { plan, call, finalResults, reviewPage, decide, assertRecorded } = require('../agent/review');
const { latestRuns } = require('./executionData');

/** The text of a user message the fake model reads its plan from (string, or text blocks). */
function userText(message) {
	if (message.role !== 'user') return undefined;
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content) && message.content.every((b) => b.type === 'text')) return message.content.map((b) => b.text).join('');
	return undefined;
}

const textOf = (content) => (typeof content === 'string' ? content : content.map((b) => b.text ?? '').join(''));

module.exports = function toolsCases(e2e, ctx) {
	const start = (name, body) => ctx.n8n.trigger(`tools-${name}`, body);
	const lastUserText = (request) => [...request.body.messages].reverse().map(userText).find((t) => t !== undefined);
	/** The model requests of one message (found by its plan text), in order. */
	const requestsFor = (planText) => ctx.llm.requests.filter((r) => r.url.endsWith('/v1/messages') && lastUserText(r) === planText);

	e2e('MCP and n8n tools on one Agent: echo runs, the Code Tool and the workflow tool wait for review, then run', async () => {
		const rounds = plan([call('echo', { message: 'mixed' }), call('record', { label: 'never written' }), call('Code_Tool', { a: 6, b: 7 }), call('Lookup', { input: 'otter' })]);
		await start('mixed', { plan: rounds });
		const pending = await ctx.inbox.next('pending', 'mixed');
		const offered = requestsFor(rounds)[0].body.tools.map((t) => t.name).sort();
		assert.deepEqual(offered, ['Code_Tool', 'Lookup', 'echo', 'record'], 'the model is offered the MCP and the n8n tools under their own names');
		// Only the n8n tools wait: echo and record are never asked for.
		const waiting = pending.calls.map((c) => ({ tool: c.tool, server: c.server, source: c.source })).sort((a, b) => a.tool.localeCompare(b.tool));
		assert.deepEqual(waiting, [
			{ tool: 'Code_Tool', server: 'Code Tool', source: 'n8n' },
			{ tool: 'Lookup', server: 'Lookup', source: 'n8n' },
		]);
		const page = await reviewPage(pending.reviewUrl);
		assert.match(page, /n8n tool, no annotations/);
		assertRecorded(await decide(pending, {}));
		const done = await ctx.inbox.next('done', 'mixed');
		const results = finalResults(done);
		assert.equal(results.length, 4, JSON.stringify(results));
		assert.match(results[0].text, /Echo: mixed/);
		assert.equal(results[1].isError, true, 'the broken server failed its call');
		assert.equal(results[2].isError, false, JSON.stringify(results[2]));
		assert.match(results[2].text, /^42$/);
		assert.match(results[3].text, /looked up otter/);
		const reviewed = done.toolCalls.filter((c) => c.review).map((c) => [c.tool, c.review.decision]).sort();
		assert.deepEqual(reviewed, [['Code_Tool', 'approved'], ['Lookup', 'approved']]);
	});

	e2e('execution view: each call is a run of the sub-node that supplied it (input, output or error, duration)', async () => {
		// n8n 1.123 may mark the execution finished a moment before its last run data is written: read
		// until the sub-nodes' runs are there (a ready check with a bound), then assert on them.
		const read = () => latestRuns(ctx.n8n, ctx.workflows.mixed.id, ['Code Tool', 'Lookup', 'Everything', 'Broken']);
		let stored = await read();
		for (const deadline = Date.now() + 15000; Date.now() < deadline && !(stored.runs['Code Tool'].length && stored.runs.Lookup.length && stored.runs.Everything.length); ) {
			await new Promise((resolve) => setTimeout(resolve, 200));
			stored = await read();
		}
		const { status, runs } = stored;
		assert.equal(status, 'success');
		// n8n's tool nodes log themselves (as for n8n's AI Agent): the call's input and the response.
		const code = runs['Code Tool'].find((run) => run.inputOverride?.ai_tool && run.data?.ai_tool);
		assert.ok(code, `no run of Code Tool with ai_tool input and output: ${JSON.stringify(runs['Code Tool']).slice(0, 800)}`);
		assert.deepEqual(code.inputOverride.ai_tool[0][0].json, { query: { a: 6, b: 7 } });
		assert.deepEqual(code.data.ai_tool[0][0].json, { response: '42' });
		assert.equal(code.executionStatus, 'success');
		assert.equal(typeof code.executionTime, 'number');
		assert.equal(runs.Lookup.length, 1, JSON.stringify(runs.Lookup).slice(0, 800));
		assert.deepEqual(runs.Lookup[0].inputOverride.ai_tool[0][0].json, { query: 'otter' });
		assert.equal(runs.Lookup[0].data.ai_tool[0][0].json.answer, 'looked up otter');
		assert.equal(runs['Code Tool'].length, 1, 'the Code Tool ran once: after the approval, not while waiting');
		// MCP Server sub-nodes: {tool, arguments} in, {tool, response, durationMs} out.
		assert.equal(runs.Everything.length, 1, 'echo ran once (before the pause), not again when the run resumed');
		const echo = runs.Everything.find((run) => run.inputOverride?.ai_tool?.[0]?.[0]?.json?.tool === 'echo');
		assert.ok(echo, `no echo run on Everything: ${JSON.stringify(runs.Everything).slice(0, 800)}`);
		assert.deepEqual(echo.inputOverride.ai_tool[0][0].json, { tool: 'echo', arguments: { message: 'mixed' } });
		const out = echo.data.ai_tool[0][0].json;
		assert.equal(out.tool, 'echo');
		assert.match(out.response, /Echo: mixed/);
		assert.equal(typeof out.durationMs, 'number');
		assert.equal(typeof echo.executionTime, 'number');
		// A failed call is an error run (red in the editor) with the tool named.
		const failed = runs.Broken.find((run) => run.inputOverride?.ai_tool?.[0]?.[0]?.json?.tool === 'record');
		assert.ok(failed, `no record run on Broken: ${JSON.stringify(runs.Broken).slice(0, 800)}`);
		assert.ok(failed.error, `the failed call's run has no error: ${JSON.stringify(failed).slice(0, 800)}`);
		assert.match(failed.error.description ?? '', /Tool "record"/);
		assert.equal(failed.executionStatus, 'error');
	});

	e2e('Simple Memory: the second message of a session carries the first exchange', async () => {
		const first = JSON.stringify({ rounds: [], note: 'memory first' });
		const second = JSON.stringify({ rounds: [], note: 'memory second' });
		await start('memory', { plan: first, sessionId: 'session-plain' });
		const firstDone = await ctx.inbox.next('done', 'memory');
		await start('memory', { plan: second, sessionId: 'session-plain' });
		await ctx.inbox.next('done', 'memory');
		const [request] = requestsFor(second);
		const turns = request.body.messages.map((m) => [m.role, textOf(m.content)]);
		assert.deepEqual(turns, [
			['user', first],
			['assistant', firstDone.text],
			['user', second],
		]);
		// Another session does not see it.
		const other = JSON.stringify({ rounds: [], note: 'memory other session' });
		await start('memory', { plan: other, sessionId: 'session-other' });
		await ctx.inbox.next('done', 'memory');
		assert.deepEqual(requestsFor(other)[0].body.messages.map((m) => m.role), ['user']);
	});

	e2e('Simple Memory around a review: nothing saved while paused, the exchange saved exactly once after approval', async () => {
		const paused = plan([call('record', { label: 'memory-reviewed' })]);
		await start('memory', { plan: paused, sessionId: 'session-review' });
		const pending = await ctx.inbox.next('pending', 'memory');
		assert.deepEqual(pending.calls.map((c) => c.tool), ['record']);
		await reviewPage(pending.reviewUrl);
		assertRecorded(await decide(pending, { record: 'approve' }));
		const done = await ctx.inbox.next('done', 'memory');
		assert.match(finalResults(done)[0].text, /recorded memory-reviewed/);
		assert.deepEqual(fs.readFileSync(ctx.counterFile, 'utf8').split('\n').filter(Boolean), ['memory-reviewed']);
		const next = JSON.stringify({ rounds: [], note: 'after the review' });
		await start('memory', { plan: next, sessionId: 'session-review' });
		await ctx.inbox.next('done', 'memory');
		const turns = requestsFor(next)[0].body.messages.map((m) => [m.role, textOf(m.content)]);
		assert.deepEqual(turns, [
			['user', paused],
			['assistant', done.text],
			['user', next],
		], 'the paused-then-approved exchange is in memory once: user message and final answer, no tool traffic');
	});

	e2e('streaming Webhook: begin, items, end from "MCP Agent", the first item before the model has finished', async () => {
		const rounds = JSON.stringify({ rounds: [[{ tool: 'echo', args: { message: 'streamed' } }]], holdFinal: true });
		const response = await fetch(`${ctx.n8n.baseUrl}/webhook/tools-stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ plan: rounds }), signal: AbortSignal.timeout(60000) });
		assert.equal(response.status, 200);
		const chunks = [];
		let heldAtFirstItem;
		let buffer = '';
		const decoder = new TextDecoder();
		for await (const bytes of response.body) {
			buffer += decoder.decode(bytes, { stream: true });
			let newline;
			while ((newline = buffer.indexOf('\n')) >= 0) {
				const line = buffer.slice(0, newline).trim();
				buffer = buffer.slice(newline + 1);
				if (!line) continue;
				const chunk = JSON.parse(line);
				chunks.push(chunk);
				if (chunk.type === 'item' && heldAtFirstItem === undefined) {
					heldAtFirstItem = { waiting: ctx.llm.held.waiting, tailSent: ctx.llm.held.tailSent };
					ctx.llm.releaseHeld();
				}
			}
		}
		if (buffer.trim()) chunks.push(JSON.parse(buffer.trim()));
		assert.deepEqual(heldAtFirstItem, { waiting: true, tailSent: false }, 'the first item arrived while the model still held its last events');
		const types = chunks.map((c) => c.type);
		assert.equal(types[0], 'begin', JSON.stringify(types));
		assert.equal(types.at(-1), 'end', JSON.stringify(types));
		assert.ok(types.filter((t) => t === 'item').length >= 2, `expected several items: ${JSON.stringify(types)}`);
		for (const chunk of chunks) assert.equal(chunk.metadata?.nodeName, 'MCP Agent', JSON.stringify(chunk));
		const text = chunks.filter((c) => c.type === 'item').map((c) => c.content).join('');
		assert.match(text, /^FINAL /);
		assert.match(finalResults({ text })[0].text, /Echo: streamed/);
		assert.ok(requestsFor(rounds).every((r) => r.body.stream === true), 'every model request of the run streamed');
	});
};
