'use strict';
// Issue 12 in a real n8n. The cases run in order and build on each other:
// 1. "Connect my account" for an MCP Server OAuth2 API credential, through n8n's REST as the editor does.
// 2. A published workflow lists and calls the protected tools with Server Connection "HTTP with OAuth".
// 3. The credential's Test button.
// 4. Expired access tokens are refreshed without a person: on the server's 401, and before expiry
//    (a short lifetime), each time with the refresh token n8n stored last (the fixture rotates them).
// 5. The server echoes the bearer token it received: the output shows it redacted.
// 6. A revoked grant fails with a message saying to reconnect; connecting again works.
// 7. Client credentials on the HTTP credential (client secret, and a private-key JWT), and a
//    configured Scope wider than the scope the server's 401 challenge names (issue 26, point 4).
// 8. Connect my account with a client registered by hand asks for the Scope entered (n8n 2.x and 1.x).
// 9. No token, refresh token or client secret appears in n8n's database, log or any output.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { toolsWorkflow } = require('./workflows');
const { fixtureStats } = require('../lib/oauthFixture');
const { latestFinishedExecution } = require('../lib/executions');
const { describeBody } = require('../lib/assertions');

/** n8n's placeholder for "keep the stored value" in credential data the editor sends back (n8n-workflow). */
const CREDENTIAL_BLANKING_VALUE = '__n8n_BLANK_VALUE_e5362baf-c777-4d57-a609-6eaf1f9e87f6';
const TOOL_NAMES = ['echo', 'echo_authorization', 'whoami', 'write_note'];
const COMMON = { transport: 'streamableHttp', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000, keepServerRunning: true, idleShutdownMinutes: 5 };

/** A file's text, or undefined when it was deleted after it was listed. */
function readUnlessGone(file) {
	try {
		return fs.readFileSync(file, 'latin1');
	} catch (error) {
		if (error.code === 'ENOENT') return undefined;
		throw error;
	}
}

module.exports = function oauthCases(e2e, ctx) {
	const state = { responses: [], workflowIds: {} };
	const urls = () => ctx.fixture.urls;

	/** POST to a workflow's webhook; keeps every answer for the leak search at the end. */
	async function trigger(prefix, kind, body = {}) {
		const response = await ctx.n8n.trigger(`${prefix}-${kind}`, body);
		state.responses.push(response);
		return response;
	}

	async function callTool(prefix, tool, args = {}) {
		const { status, body } = await trigger(prefix, 'call', { tool, args });
		assert.equal(status, 200, `calling ${tool} answered ${status}: ${describeBody(body)}`);
		assert.ok(Array.isArray(body) && body.length === 1, `expected one item: ${describeBody(body)}`);
		assert.equal(body[0].isError, false, describeBody(body));
		return body[0];
	}

	async function listTools(prefix) {
		const { status, body } = await trigger(prefix, 'list');
		assert.equal(status, 200, `listing answered ${status}: ${describeBody(body)}`);
		return body;
	}

	/** The error of the workflow's latest (failed) execution, as n8n stored it. */
	async function failedRun(prefix, kind, body, workflowId) {
		const { status } = await trigger(prefix, kind, body);
		assert.ok(status >= 500, `expected the execution to fail, the webhook answered ${status}`);
		const execution = await latestFinishedExecution(ctx.n8n, workflowId);
		assert.equal(execution.status, 'error', JSON.stringify(execution));
		return execution.error;
	}

	async function publish(id, prefix, connection, credentialType, credential) {
		const editor = await ctx.editor();
		// n8n 1.x's POST /rest/workflows ignores the given id: keep the one n8n assigned.
		const saved = await editor.createActiveWorkflow(toolsWorkflow({ id, name: `E2E OAuth: ${prefix}`, prefix, connection, credentialType, credential }));
		state.workflowIds[prefix] = saved.id;
	}

	e2e('Connect my account: n8n discovers the authorization server from the MCP URL, registers, and stores the tokens (REST calls of the editor)', async () => {
		const editor = await ctx.editor();
		state.oauth = await editor.createCredential({ name: 'OAuth fixture (Connect my account)', type: 'mcpServerOAuth2Api', data: { serverUrl: urls().mcpUrl, useDynamicClientRegistration: true, ...COMMON } });
		assert.match(String(state.oauth.id), /\S/);
		const connected = await editor.connectOAuth2(state.oauth.id);
		assert.equal(connected.callbackStatus, 200, connected.callbackPage.slice(0, 800));
		assert.doesNotMatch(connected.callbackPage, /error|failed|Unauthorized/i, connected.callbackPage.slice(0, 800));
		const authorize = new URL(connected.authorizationUrl);
		assert.equal(`${authorize.origin}${authorize.pathname}`, urls().authorizationEndpoint);
		assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
		// n8n 1.x sends no `resource` (RFC 8707) in the authorization request; 2.x sends the MCP URL.
		assert.equal(authorize.searchParams.get('resource'), ctx.n8n.major >= 2 ? urls().mcpUrl : null);
		// With automatic registration the scope is the one the server publishes, not the credential's:
		// 2.x takes the protected-resource metadata's scopes_supported, 1.x the authorization server's.
		const published = ctx.n8n.major >= 2 ? 'mcp:read mcp:write' : 'mcp:read mcp:write offline_access';
		assert.equal(authorize.searchParams.get('scope'), published);
		const stats = await fixtureStats(ctx.fixture);
		assert.equal(stats.register, 1, 'n8n registers itself (dynamic client registration)');
		assert.equal(stats.lastRegistration.scope, published);
		assert.deepEqual(stats.lastRegistration.redirect_uris, [`${ctx.n8n.baseUrl}/rest/oauth2-credential/callback`]);
		// A public client: PKCE instead of a client secret, and refresh tokens.
		assert.equal(stats.lastRegistration.token_endpoint_auth_method, 'none');
		assert.ok(stats.lastRegistration.grant_types.includes('refresh_token'), JSON.stringify(stats.lastRegistration));
		assert.equal(stats.token.authorization_code, 1);
		assert.equal(stats.tokenErrors, 0);
		// The editor sees that a token is stored, never the token.
		const stored = await editor.call('GET', `/rest/credentials/${state.oauth.id}?includeData=true`);
		assert.equal(stored.data.oauthTokenData, true, JSON.stringify(stored.data.oauthTokenData));
	});

	e2e('a published workflow lists and calls the protected tools with Server Connection "HTTP with OAuth"', async () => {
		assert.ok(state.oauth, 'needs the connected credential');
		await publish('e2eOAuthConnected1', 'oauth', 'oauth', 'mcpServerOAuth2Api', state.oauth);
		const tools = await listTools('oauth');
		assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
		assert.equal(tools[0].server.name, 'oauth-fixture');
		const echo = await callTool('oauth', 'echo', { message: 'hello over OAuth' });
		assert.equal(echo.text, 'Echo: hello over OAuth');
		const who = JSON.parse((await callTool('oauth', 'whoami')).text);
		assert.match(who.client_id, /^client_/, 'the token belongs to the client n8n registered');
		const stats = await fixtureStats(ctx.fixture);
		assert.equal(stats.token.refresh_token, 0, 'a fresh token needs no refresh');
		assert.equal(stats.mcp401, 0, 'every request carried a valid token');
	});

	e2e('the credential Test of the OAuth credential: n8n checks that a token is stored (its own check for every OAuth 2 type)', async () => {
		assert.ok(state.oauth, 'needs the connected credential');
		// n8n 2.41 answers the Test of any credential extending oAuth2Api itself: OK when the stored data
		// holds an access token, without calling the nodes' test. Its editor does not even ask once the
		// credential shows "connected". Posting the blanking value asks n8n to use the stored token data.
		const editor = await ctx.editor();
		const opened = await editor.call('GET', `/rest/credentials/${state.oauth.id}?includeData=true`);
		const test = (data) => editor.call('POST', '/rest/credentials/test', { credentials: { id: opened.id, name: opened.name, type: opened.type, data } });
		assert.deepEqual(await test({ ...opened.data, oauthTokenData: CREDENTIAL_BLANKING_VALUE }), { status: 'OK', message: 'Connection Successful!' });
		const { oauthTokenData, ...withoutToken } = opened.data;
		assert.equal(oauthTokenData, true);
		assert.deepEqual(await test(withoutToken), { status: 'Error', message: 'This OAuth2 credential was not connected to an account.' });
	});

	/** Waits until every access token the fixture issued so far has expired (their lifetime is known). */
	async function untilIssuedTokensExpire(ttlSeconds) {
		const lastIssued = Math.max(...ctx.fixture.issued.filter((s) => s.field === 'access_token').map((s) => s.issuedAt));
		const wait = lastIssued + ttlSeconds * 1000 + 50 - Date.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
	}

	e2e('an access token the server no longer accepts is refreshed on its 401, without a person', async () => {
		assert.ok(state.oauth, 'needs the connected credential');
		const before = await fixtureStats(ctx.fixture);
		ctx.fixture.expireAccessTokens();
		assert.equal((await callTool('oauth', 'echo', { message: 'after expiry' })).text, 'Echo: after expiry');
		const after = await fixtureStats(ctx.fixture);
		assert.equal(after.token.refresh_token, before.token.refresh_token + 1, 'one refresh grant');
		assert.ok(after.mcp401 > before.mcp401, 'the server refused the expired token first');
		assert.equal(after.tokenErrors, before.tokenErrors);
		assert.equal(after.authorize, before.authorize, 'no new authorization: nobody was asked');
	});

	e2e('a short-lived token is refreshed before it expires, each time with the rotated refresh token n8n stored', async () => {
		assert.ok(state.oauth, 'needs the connected credential');
		ctx.fixture.configure({ accessTokenTtl: 1 });
		ctx.fixture.expireAccessTokens();
		// This run refreshes on the 401 and stores a token that lives one second.
		await callTool('oauth', 'echo', { message: 'short-lived 1' });
		for (const round of [2, 3]) {
			await untilIssuedTokensExpire(1);
			const before = await fixtureStats(ctx.fixture);
			assert.equal((await callTool('oauth', 'echo', { message: `short-lived ${round}` })).text, `Echo: short-lived ${round}`);
			const after = await fixtureStats(ctx.fixture);
			assert.equal(after.token.refresh_token, before.token.refresh_token + 1, `round ${round}: one refresh grant`);
			// The fixture rotates refresh tokens: the grant succeeded only with the one n8n stored last.
			assert.equal(after.tokenErrors, before.tokenErrors, `round ${round}: the refresh token was accepted`);
			assert.equal(after.mcp401, before.mcp401, `round ${round}: refreshed before use, so the server never saw an expired token`);
		}
		ctx.fixture.configure({ accessTokenTtl: 3600 });
		await untilIssuedTokensExpire(1);
		await callTool('oauth', 'echo', { message: 'long-lived again' });
		const settled = await fixtureStats(ctx.fixture);
		await callTool('oauth', 'echo', { message: 'no refresh needed' });
		assert.equal((await fixtureStats(ctx.fixture)).token.refresh_token, settled.token.refresh_token, 'a token valid for an hour is used as it is');
	});

	e2e('a server echoing the bearer token it received: the output shows it redacted', async () => {
		assert.ok(state.oauth, 'needs the connected credential');
		const echoed = await callTool('oauth', 'echo_authorization');
		assert.match(echoed.text, /^You sent: Bearer \S/);
		assert.doesNotMatch(echoed.text, /at_[A-Za-z0-9_-]{16}/, `the echoed header: ${echoed.text}`);
		const tokens = ctx.fixture.issued.filter((s) => s.field === 'access_token').map((s) => s.value);
		for (const token of tokens) assert.ok(!JSON.stringify(echoed).includes(token), 'an access token reached the output');
	});

	e2e('a revoked grant fails with a message saying to reconnect the credential; connecting again works', async () => {
		assert.ok(state.oauth, 'needs the connected credential');
		const revoked = await fetch(urls().revokeUrl, { method: 'POST' });
		assert.equal(revoked.status, 200);
		const error = await failedRun('oauth', 'call', { tool: 'echo', args: { message: 'after revoke' } }, state.workflowIds.oauth);
		const text = `${error.message} ${error.description ?? ''}`;
		assert.equal(error.node, 'MCP Call Tool');
		assert.match(text, /revoked or has expired/, text);
		assert.match(text, /click "Connect my account" again/, text);
		assert.match(text, /OAuth fixture \(Connect my account\)/, `the message names the credential: ${text}`);
		assert.doesNotMatch(text, /at_|rt_/, 'no token in the message');

		const editor = await ctx.editor();
		const again = await editor.connectOAuth2(state.oauth.id);
		assert.equal(again.callbackStatus, 200, again.callbackPage.slice(0, 800));
		assert.equal((await callTool('oauth', 'echo', { message: 'reconnected' })).text, 'Echo: reconnected');
	});

	for (const variant of ['client secret', 'private key JWT']) {
		const prefix = variant === 'client secret' ? 'ccsecret' : 'ccjwt';
		e2e(`client credentials (${variant}) on the HTTP credential: no person, lists and calls; Test connects`, async () => {
			const { secret, jwt } = urls().clients;
			const auth =
				variant === 'client secret'
					? { clientId: secret.client_id, clientAuthMethod: 'client_secret_basic', clientSecret: secret.client_secret, scope: 'mcp:read mcp:write' }
					: { clientId: jwt.client_id, clientAuthMethod: 'private_key_jwt', privateKey: jwt.private_key_pem, signingAlgorithm: jwt.algorithm, scope: 'mcp:read' };
			const editor = await ctx.editor();
			const credential = await editor.createCredential({
				name: `OAuth fixture (client credentials, ${variant})`,
				type: 'mcpServerHttpApi',
				data: { url: urls().mcpUrl, authentication: 'oauthClientCredentials', issuer: urls().issuer, token: '', headers: '', ...auth, ...COMMON },
			});
			state[prefix] = credential;
			const before = await fixtureStats(ctx.fixture);
			await publish(`e2eOAuthCc${prefix === 'ccsecret' ? 'Secret1' : 'Jwt0001'}`, prefix, 'http', 'mcpServerHttpApi', credential);
			assert.deepEqual((await listTools(prefix)).map((t) => t.name), TOOL_NAMES);
			assert.equal((await callTool(prefix, 'echo', { message: `hello ${prefix}` })).text, `Echo: hello ${prefix}`);
			assert.equal(JSON.parse((await callTool(prefix, 'whoami')).text).client_id, auth.clientId);
			const after = await fixtureStats(ctx.fixture);
			assert.ok(after.token.client_credentials > before.token.client_credentials, 'the client-credentials grant was used');
			assert.equal(after.authorize, before.authorize, 'nobody was asked to sign in');
			assert.equal(after.tokenErrors, before.tokenErrors);
			assert.deepEqual(await editor.testCredential(credential.id), { status: 'OK', message: 'Connected to oauth-fixture 1.0.0, protocol 2026-07-28: 4 tools.' });
		});
	}

	// Issue 26, point 4: the fixture's 401 challenge names only mcp:read; the SDK would ask for that.
	e2e('client credentials with a configured Scope wider than the server\'s challenge: the token carries it and a tool needing mcp:write works', async () => {
		const { secret } = urls().clients; // allowed mcp:read mcp:write
		const editor = await ctx.editor();
		const credential = await editor.createCredential({
			name: 'OAuth fixture (client credentials, wide scope)',
			type: 'mcpServerHttpApi',
			data: { url: urls().mcpUrl, authentication: 'oauthClientCredentials', issuer: urls().issuer, token: '', headers: '', clientId: secret.client_id, clientAuthMethod: 'client_secret_basic', clientSecret: secret.client_secret, scope: 'mcp:read mcp:write', ...COMMON },
		});
		await publish('e2eOAuthCcScope1', 'ccscope', 'http', 'mcpServerHttpApi', credential);
		const before = await fixtureStats(ctx.fixture);
		assert.equal((await callTool('ccscope', 'write_note', { text: 'wide' })).text, 'Saved: wide');
		const after = await fixtureStats(ctx.fixture);
		assert.ok(after.token.client_credentials > before.token.client_credentials, 'the client-credentials grant was used');
		assert.equal(after.lastToken.grant_type, 'client_credentials');
		assert.equal(after.lastToken.scope, 'mcp:read mcp:write', 'the token request asks for the configured Scope, not the challenge\'s mcp:read');
	});

	e2e('a tool needing a scope the client was not granted fails naming the scope', async () => {
		assert.ok(state.ccjwt, 'needs the JWT client-credentials workflow (scope mcp:read only)');
		const error = await failedRun('ccjwt', 'call', { tool: 'write_note', args: { text: 'denied' } }, state.workflowIds.ccjwt);
		const text = `${error.message} ${error.description ?? ''}`;
		assert.match(text, /mcp:write/, text);
	});

	// Issue 27, point 5: the type name contains "OAuth2". When n8n builds the authorization URL it
	// deletes the stored scope of such a type (not one of its own; 2.x only when the field is hidden)
	// and applies the type's defaults: the credential's hidden `scope` defaults to an expression over
	// the Scope field (`mcpScope`), so both versions ask for what was entered there.
	e2e('Connect my account with a client registered by hand: the authorization request asks for the Scope entered, and a tool needing mcp:write works', async () => {
		const { preRegistered } = urls().clients;
		const scope = 'mcp:read mcp:write offline_access';
		const editor = await ctx.editor();
		const credential = await editor.createCredential({
			name: 'OAuth fixture (client registered by hand)',
			type: 'mcpServerOAuth2Api',
			data: { serverUrl: urls().mcpUrl, useDynamicClientRegistration: false, grantType: 'pkce', authUrl: urls().authorizationEndpoint, accessTokenUrl: urls().tokenEndpoint, clientId: preRegistered.client_id, clientSecret: preRegistered.client_secret, authentication: 'header', mcpScope: scope, ...COMMON },
		});
		const connected = await editor.connectOAuth2(credential.id);
		assert.equal(connected.callbackStatus, 200, connected.callbackPage.slice(0, 800));
		assert.doesNotMatch(connected.callbackPage, /error|failed|Unauthorized/i, connected.callbackPage.slice(0, 800));
		const authorize = new URL(connected.authorizationUrl);
		assert.equal(authorize.searchParams.get('client_id'), preRegistered.client_id);
		assert.equal(authorize.searchParams.get('scope'), scope);
		await publish('e2eOAuthManual01', 'manual', 'oauth', 'mcpServerOAuth2Api', credential);
		assert.equal((await callTool('manual', 'write_note', { text: 'by hand' })).text, 'Saved: by hand');
		assert.equal(JSON.parse((await callTool('manual', 'whoami')).text).scope, scope);
	});

	e2e('no access token, refresh token or client secret appears in n8n\'s database, its log or any output', async () => {
		const { secret, jwt } = urls().clients;
		const pemBody = jwt.private_key_pem.split('\n').filter((line) => line && !line.startsWith('-----')).join('');
		const secrets = [...ctx.fixture.issued.map((s) => ({ what: `${s.field} from ${s.at}`, value: s.value })), { what: 'client secret', value: secret.client_secret }, { what: 'private key', value: pemBody.slice(0, 40) }];
		const kinds = new Set(ctx.fixture.issued.map((s) => s.field));
		assert.ok(kinds.has('access_token') && kinds.has('refresh_token'), `the run must have issued tokens: ${[...kinds]}`);
		assert.ok(ctx.fixture.issued.length >= 10, `only ${ctx.fixture.issued.length} secrets issued`);
		const dataDir = path.join(ctx.userFolder, '.n8n');
		const places = [
			{ name: 'n8n.log', text: fs.readFileSync(ctx.n8n.logFile, 'latin1') },
			// The database (executions, encrypted credentials; WAL files too) and n8n's event log.
			// SQLite deletes its -journal when a transaction commits; one listed a moment ago may be gone,
			// and what it held is in database.sqlite by then, which is read too.
			...fs
				.readdirSync(dataDir)
				.filter((f) => /^(database\.sqlite|n8nEventLog)/.test(f))
				.map((f) => ({ name: f, text: readUnlessGone(path.join(dataDir, f)) }))
				.filter((place) => place.text !== undefined),
			{ name: 'webhook responses', text: JSON.stringify(state.responses) },
		];
		const found = [];
		for (const place of places) for (const s of secrets) if (place.text.includes(s.value)) found.push(`${s.what} in ${place.name}`);
		assert.deepEqual(found, [], `secrets found: ${found.join(', ')}`);
		assert.ok(places.some((p) => p.name.startsWith('database') && p.text.includes('Echo: hello over OAuth')), 'the search read the stored execution data');
	});
};
