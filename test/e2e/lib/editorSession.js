'use strict';
// n8n's REST API as its editor calls it: owner setup, login, credentials, workflows, the credential
// Test button and "Connect my account" for OAuth 2 credentials. A small cookie jar keeps what n8n
// sets (the `n8n-auth` session, and the OAuth browser-binding cookie when n8n uses one), because the
// OAuth callback only accepts the browser that started the flow.

const assert = require('node:assert/strict');

const BROWSER_ID = 'e2e-editor-browser';

class EditorSession {
	constructor(baseUrl) {
		this.baseUrl = baseUrl;
		this.cookies = new Map();
	}

	/** Creates n8n's owner account (a fresh n8n has none) and logs in as it. */
	static async asNewOwner(baseUrl, owner) {
		const session = new EditorSession(baseUrl);
		await session.call('POST', '/rest/owner/setup', owner);
		await session.call('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
		assert.ok(session.cookies.has('n8n-auth'), 'login set no n8n-auth cookie');
		return session;
	}

	cookieHeader() {
		return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
	}

	keepCookies(response) {
		for (const line of response.headers.getSetCookie()) {
			const [pair] = line.split(';');
			const at = pair.indexOf('=');
			this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
		}
	}

	/** A request with the session's cookies, as the editor (or the browser following a redirect) sends it. */
	async fetch(pathOrUrl, init = {}) {
		const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.baseUrl}${pathOrUrl}`;
		const response = await fetch(url, { redirect: 'manual', ...init, headers: { 'browser-id': BROWSER_ID, cookie: this.cookieHeader(), ...init.headers } });
		this.keepCookies(response);
		return response;
	}

	/** A JSON REST call; fails with n8n's answer unless the status is 200. Returns n8n's `data`. */
	async call(method, path, body) {
		const response = await this.fetch(path, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
		const text = await response.text();
		assert.equal(response.status, 200, `${method} ${path} answered ${response.status}: ${text.slice(0, 800)}`);
		const parsed = text ? JSON.parse(text) : {};
		return parsed.data ?? parsed;
	}

	/** Saves a new credential as the editor's Save button does; returns it with its id. */
	createCredential({ name, type, data }) {
		return this.call('POST', '/rest/credentials', { name, type, data });
	}

	/**
	 * The credential editor's Test button for a saved credential: the editor opens it (secrets come
	 * back redacted) and posts what it shows; n8n puts the stored secrets back before testing.
	 */
	async testCredential(credentialId) {
		const opened = await this.call('GET', `/rest/credentials/${encodeURIComponent(credentialId)}?includeData=true`);
		return this.call('POST', '/rest/credentials/test', { credentials: { id: opened.id, name: opened.name, type: opened.type, data: opened.data } });
	}

	/**
	 * "Connect my account": n8n builds the authorization URL (discovery and client registration
	 * happen here on n8n 2.x), the browser goes there, the authorization server (which consents at
	 * once in the fixture) redirects back to n8n's callback, and the browser follows with its
	 * cookies. Returns { authorizationUrl, callbackUrl, callbackStatus, callbackPage }.
	 */
	async connectOAuth2(credentialId) {
		const authorizationUrl = await this.call('GET', `/rest/oauth2-credential/auth?id=${encodeURIComponent(credentialId)}`);
		assert.equal(typeof authorizationUrl, 'string', `the auth endpoint gave no URL: ${JSON.stringify(authorizationUrl)}`);
		const consent = await fetch(authorizationUrl, { redirect: 'manual' });
		const callbackUrl = consent.headers.get('location');
		assert.equal(consent.status, 302, `the authorization server did not redirect: ${consent.status} ${await consent.text()}`);
		assert.ok(callbackUrl.startsWith(`${this.baseUrl}/rest/oauth2-credential/callback?`), `redirected elsewhere: ${callbackUrl}`);
		const callback = await this.fetch(callbackUrl);
		return { authorizationUrl, callbackUrl, callbackStatus: callback.status, callbackPage: await callback.text() };
	}

	/** Saves a workflow (fixed id allowed) and publishes it, as the editor's Save and Publish buttons do. */
	async createActiveWorkflow(workflow) {
		const saved = await this.call('POST', '/rest/workflows', { ...workflow, active: false });
		await this.call('POST', `/rest/workflows/${saved.id}/activate`, { versionId: saved.versionId });
		return saved;
	}
}

module.exports = { EditorSession };
