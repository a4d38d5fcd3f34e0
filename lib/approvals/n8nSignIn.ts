import { randomBytes } from 'node:crypto';

/**
 * "Require n8n login" for the review page. n8n strips its session cookie from requests to waiting
 * executions (for nodes outside its own allow-list), so the page cannot see who is logged in.
 * Instead the reviewer signs in on the page with their n8n account; the credentials are checked
 * against this n8n's own login, and the session it returns is used once, server-side, to ask n8n
 * whether that account may act on this workflow, then logged out. Nothing is stored.
 *
 * Checked against n8n 2.41.1: `POST /rest/login` answers 200 with the user and an `n8n-auth`
 * cookie bound to the `browser-id` header; `GET /rest/workflows/<id>` with both answers 200 with
 * `data.scopes` (the account's scopes on that workflow) for owners, admins and project members,
 * and 403/404 for others; `POST /rest/logout` revokes the session. n8n limits its login to 5 tries
 * per e-mail per minute and answers 429.
 */
export type SignInResult =
	/** workflow: what n8n answered about the workflow to this account (its name and nodes), when it did. */
	| { ok: true; reviewer: string; workflow?: WorkflowFacts }
	/** rejected: wrong credentials, a missing or wrong code, or no permission (one message for all, so the page is no oracle). */
	| { ok: false; kind: 'rejected' | 'rateLimited' | 'unavailable'; error: string };

export const SIGN_IN_FAILED =
	'Sign-in failed: check the e-mail, the password and, if your account uses two-factor authentication, the code. Only accounts that may run or edit this workflow can decide here.';

/** The workflow as n8n showed it to the signed-in account: its name, and each node's id, name and type. */
export interface WorkflowFacts {
	name?: string;
	nodes: Array<{ id: string; name: string; type: string }>;
}

/** Scopes that let an account act on a workflow; read-only access is not enough to approve its tool calls. */
const ACTING_SCOPES = ['workflow:execute', 'workflow:update'];

export interface SignInOptions {
	/** The workflow the review belongs to; the account must have access to it. */
	workflowId: string | undefined;
	/** Lower-case e-mails; when not empty, only these accounts may decide. */
	allowedReviewers?: string[];
	baseUrl?: string;
	fetchImpl?: typeof fetch;
}

/** This n8n's own REST base, as seen from inside the process serving the review page. */
export function localN8nBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
	if (env.N8N_MCP_AGENT_N8N_URL) return env.N8N_MCP_AGENT_N8N_URL.replace(/\/+$/, '');
	const protocol = env.N8N_PROTOCOL === 'https' && env.N8N_SSL_CERT ? 'https' : 'http';
	const path = (env.N8N_PATH ?? '/').replace(/\/+$/, '');
	return `${protocol}://127.0.0.1:${env.N8N_PORT || '5678'}${path}`;
}

/** "a@b.c, d@e.f" or one per line → lower-case e-mails. */
export function parseAllowedReviewers(text: unknown): string[] {
	if (typeof text !== 'string') return [];
	return text.split(/[\s,;]+/).map((entry) => entry.trim().toLowerCase()).filter(Boolean);
}

const rejected = (): SignInResult => ({ ok: false, kind: 'rejected', error: SIGN_IN_FAILED });
const unavailable = (detail: string): SignInResult => ({
	ok: false,
	kind: 'unavailable',
	error: `Could not check the sign-in with n8n (${detail}); nothing was decided. An administrator can set N8N_MCP_AGENT_N8N_URL.`,
});
const rateLimited = (): SignInResult => ({
	ok: false,
	kind: 'rateLimited',
	error: 'n8n is limiting sign-in attempts for this account right now; nothing was decided. Wait a minute and try again.',
});

/**
 * A refusal is answered no sooner than this after the sign-in started. A right password for an
 * account without access costs two more requests to n8n than a wrong one; without a floor, the
 * answer time would tell the two apart.
 */
export const signInTiming = { rejectFloorMs: 1500 };

export async function verifyN8nSignIn(
	credentials: { email?: unknown; password?: unknown; mfaCode?: unknown },
	options: SignInOptions,
): Promise<SignInResult> {
	const started = Date.now();
	const result = await checkSignIn(credentials, options);
	if (!result.ok && result.kind === 'rejected') {
		const wait = signInTiming.rejectFloorMs - (Date.now() - started);
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
	}
	return result;
}

async function checkSignIn(
	credentials: { email?: unknown; password?: unknown; mfaCode?: unknown },
	options: SignInOptions,
): Promise<SignInResult> {
	const baseUrl = options.baseUrl ?? localN8nBaseUrl();
	const fetchImpl = options.fetchImpl ?? fetch;
	const email = typeof credentials.email === 'string' ? credentials.email.trim() : '';
	const password = typeof credentials.password === 'string' ? credentials.password : '';
	if (!email || !password) return rejected();
	if (!options.workflowId) return unavailable('the workflow of this review is not known');
	const mfaCode = typeof credentials.mfaCode === 'string' && credentials.mfaCode.trim() ? credentials.mfaCode.trim() : undefined;
	// n8n binds its session to this header; a fresh value per sign-in keeps sessions apart.
	const browserId = randomBytes(16).toString('hex');

	let login: Response;
	try {
		login = await fetchImpl(`${baseUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': browserId },
			body: JSON.stringify({ emailOrLdapLoginId: email, password, ...(mfaCode ? { mfaCode } : {}) }),
			signal: AbortSignal.timeout(15_000),
		});
	} catch (error) {
		return unavailable((error as Error).message);
	}
	if (login.status === 429) return rateLimited();
	// Wrong password, a missing or wrong two-factor code, a disabled account: all the same to the page.
	if (login.status === 400 || login.status === 401 || login.status === 403) return rejected();
	if (!login.ok) return unavailable(`HTTP ${login.status} from its login`);
	const body = (await login.json().catch(() => ({}))) as { data?: { email?: unknown; firstName?: unknown; lastName?: unknown } };
	const user = body.data ?? {};
	const account = typeof user.email === 'string' ? user.email : '';
	const cookie = sessionCookie(login);
	if (!account || !cookie) return unavailable('its login answered without an account or a session');
	let workflow: WorkflowFacts;

	try {
		const access = await workflowAccess(fetchImpl, baseUrl, options.workflowId, cookie, browserId);
		if (typeof access === 'string') return access === 'denied' ? rejected() : unavailable(access);
		if (options.allowedReviewers?.length && !options.allowedReviewers.includes(account.toLowerCase())) return rejected();
		workflow = access.workflow;
	} finally {
		// The session was only needed for the check above.
		await fetchImpl(`${baseUrl}/rest/logout`, { method: 'POST', headers: { cookie, 'browser-id': browserId }, signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
	}
	const name = [user.firstName, user.lastName].filter((part) => typeof part === 'string' && part).join(' ');
	return { ok: true, reviewer: name ? `${name} <${account}>` : account, workflow };
}

/** The workflow's name and nodes from n8n's answer; nodes without a string id and name are left out. */
function workflowFacts(data: { name?: unknown; nodes?: unknown }): WorkflowFacts {
	const nodes = Array.isArray(data.nodes) ? (data.nodes as Array<Record<string, unknown> | null>) : [];
	return {
		...(typeof data.name === 'string' ? { name: data.name } : {}),
		nodes: nodes
			.filter((node) => node && typeof node.id === 'string' && typeof node.name === 'string')
			.map((node) => ({ id: node!.id as string, name: node!.name as string, type: typeof node!.type === 'string' ? node!.type : '' })),
	};
}

/** { workflow } when allowed, "denied", or why it could not be checked. */
async function workflowAccess(fetchImpl: typeof fetch, baseUrl: string, workflowId: string, cookie: string, browserId: string): Promise<{ workflow: WorkflowFacts } | string> {
	let response: Response;
	try {
		response = await fetchImpl(`${baseUrl}/rest/workflows/${encodeURIComponent(workflowId)}`, {
			headers: { cookie, 'browser-id': browserId, accept: 'application/json' },
			signal: AbortSignal.timeout(15_000),
		});
	} catch (error) {
		return (error as Error).message;
	}
	if (response.status === 401 || response.status === 403 || response.status === 404) return 'denied';
	if (!response.ok) return `HTTP ${response.status} when checking access to the workflow`;
	const body = (await response.json().catch(() => undefined)) as { data?: { id?: unknown; scopes?: unknown; name?: unknown; nodes?: unknown } } | undefined;
	if (!body?.data || String(body.data.id) !== workflowId) return 'an unexpected answer when checking access to the workflow';
	const scopes = body.data.scopes;
	// n8n versions without scopes: access to the workflow is the permission.
	const allowed = scopes === undefined || (Array.isArray(scopes) && ACTING_SCOPES.some((scope) => scopes.includes(scope)));
	return allowed ? { workflow: workflowFacts(body.data) } : 'denied';
}

/** "n8n-auth=…" from the login's Set-Cookie; only that cookie is sent back. */
function sessionCookie(response: Response): string | undefined {
	const headers = response.headers as Headers & { getSetCookie?: () => string[] };
	const all = headers.getSetCookie?.() ?? (headers.get('set-cookie') ?? '').split(/,(?=\s*[\w-]+=)/);
	for (const header of all) {
		const pair = header.split(';')[0]?.trim();
		if (pair?.startsWith('n8n-auth=') && pair.length > 'n8n-auth='.length) return pair;
	}
	return undefined;
}
