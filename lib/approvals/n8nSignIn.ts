/**
 * "Require n8n login" for the review page. n8n strips its session cookie from requests to waiting
 * executions (for nodes outside its own allow-list), so the page cannot see who is logged in.
 * Instead the reviewer signs in on the page with their n8n account, and the credentials are
 * checked against this n8n's own login endpoint. Nothing is stored; the session n8n returns is
 * discarded.
 */
export interface SignInResult {
	ok: boolean;
	/** "First Last <email>" for the audit log. */
	reviewer?: string;
	error?: string;
}

/** This n8n's own REST base, as seen from inside the process serving the review page. */
export function localN8nBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
	if (env.N8N_MCP_AGENT_N8N_URL) return env.N8N_MCP_AGENT_N8N_URL.replace(/\/+$/, '');
	const protocol = env.N8N_PROTOCOL === 'https' && env.N8N_SSL_CERT ? 'https' : 'http';
	const path = (env.N8N_PATH ?? '/').replace(/\/+$/, '');
	return `${protocol}://127.0.0.1:${env.N8N_PORT || '5678'}${path}`;
}

export async function verifyN8nSignIn(
	credentials: { email?: unknown; password?: unknown; mfaCode?: unknown },
	baseUrl = localN8nBaseUrl(),
	fetchImpl: typeof fetch = fetch,
): Promise<SignInResult> {
	const email = typeof credentials.email === 'string' ? credentials.email.trim() : '';
	const password = typeof credentials.password === 'string' ? credentials.password : '';
	if (!email || !password) return { ok: false, error: 'Sign in with your n8n e-mail and password to decide.' };
	const mfaCode = typeof credentials.mfaCode === 'string' && credentials.mfaCode.trim() ? credentials.mfaCode.trim() : undefined;
	let response: Response;
	try {
		response = await fetchImpl(`${baseUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': 'mcp-agent-review-page' },
			body: JSON.stringify({ emailOrLdapLoginId: email, password, ...(mfaCode ? { mfaCode } : {}) }),
			signal: AbortSignal.timeout(15_000),
		});
	} catch (error) {
		return { ok: false, error: `Could not check the sign-in with n8n (${(error as Error).message}); an administrator can set N8N_MCP_AGENT_N8N_URL.` };
	}
	if (!response.ok) {
		const text = await response.text().catch(() => '');
		const mfa = /mfa/i.test(text) && !mfaCode;
		return { ok: false, error: mfa ? 'This n8n account uses two-factor authentication: enter the code too.' : 'The n8n e-mail or password is not correct.' };
	}
	const body = (await response.json().catch(() => ({}))) as { data?: { email?: string; firstName?: string; lastName?: string } };
	const user = body.data ?? {};
	const name = [user.firstName, user.lastName].filter(Boolean).join(' ');
	const address = user.email ?? email;
	return { ok: true, reviewer: name ? `${name} <${address}>` : address };
}
