'use strict';
// test/fixtures/oauth-server.js (authorization server + OAuth-protected MCP server) in this process,
// with a recorder of every secret it hands out: access and refresh tokens from /token, client
// secrets from /register. The e2e cases search n8n's database, log and outputs for them.
//
// The recorder wraps the fixture's request handler while the fixture is created (the fixture keeps
// its tokens to itself), and reads only the response bodies of /token and /register.

const http = require('node:http');
const path = require('node:path');
const { REPO } = require('./everything');

const { startOAuthFixture } = require(path.join(REPO, 'test', 'fixtures', 'oauth-server.js'));

const SECRET_FIELDS = ['access_token', 'refresh_token', 'client_secret'];

function recordingHandler(handler, issued) {
	return (req, res) => {
		if (req.url.startsWith('/token') || req.url.startsWith('/register')) {
			const end = res.end;
			res.end = function recordedEnd(chunk, ...rest) {
				try {
					const body = JSON.parse(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk ?? ''));
					for (const field of SECRET_FIELDS) if (typeof body[field] === 'string') issued.push({ field, value: body[field], at: req.url.split('?')[0], issuedAt: Date.now() });
				} catch {
					/* not JSON: nothing issued */
				}
				return end.call(this, chunk, ...rest);
			};
		}
		return handler(req, res);
	};
}

/** Starts the fixture with `options` ({ accessTokenTtl, dcr, ... }); `issued` lists every secret it gave out. */
async function startRecordedOAuthFixture(options = {}) {
	const issued = [];
	const createServer = http.createServer;
	http.createServer = (...args) => createServer(...args.map((arg) => (typeof arg === 'function' ? recordingHandler(arg, issued) : arg)));
	let fixture;
	try {
		fixture = await startOAuthFixture(options);
	} finally {
		http.createServer = createServer;
	}
	return Object.assign(fixture, { issued });
}

/** The statistics the fixture serves at GET /admin/stats, fetched as any client would. */
async function fixtureStats(fixture) {
	const response = await fetch(fixture.urls.statsUrl);
	return response.json();
}

module.exports = { startRecordedOAuthFixture, fixtureStats };
