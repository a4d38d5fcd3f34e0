import {
	AuthorizationServerMismatchError,
	InsecureTokenEndpointError,
	InsufficientScopeError,
	IssuerMismatchError,
	OAuthClientFlowError,
	OAuthError,
	SdkError,
	SdkErrorCode,
	UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { McpFailureKind } from '../failureKind';
import type { McpAuth } from './types';
import { howToAskForScope } from './scopeAdvice';

/**
 * OAuth failures explained for a person, from what the v2 client throws: what was refused, by
 * whom, and what to do. Server-supplied text (a challenge's scope, an `iss`) is attacker-
 * controllable: only values that fit the OAuth grammar are repeated, never free text.
 */
export interface OAuthExplanation {
	message: string;
	kind: McpFailureKind;
	httpStatus?: number;
}

/** RFC 6749 §3.3 scope tokens, space-separated; anything else is not repeated. */
function safeScope(scope: string | undefined): string | undefined {
	if (!scope) return undefined;
	const trimmed = scope.trim();
	return trimmed.length <= 300 && /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(trimmed) ? trimmed : undefined;
}

function scopeAdvice(auth: McpAuth | undefined, scope: string | undefined): string {
	const named = scope ? `"${scope}"` : 'the scope it names';
	if (auth?.kind === 'client-credentials') {
		return `Add ${named} to Scope in the credential, and make sure the authorization server allows it for this client.`;
	}
	return `A person has to approve more access: ${howToAskForScope(named, auth?.registration)}.`;
}

/** The first error in the cause chain that `test` accepts. */
function findInChain<T>(error: unknown, test: (candidate: unknown) => candidate is T): T | undefined {
	let current: unknown = error;
	for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
		if (test(current)) return current;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

export function explainOAuthError(error: unknown, auth: McpAuth | undefined, where: string, phase: string): OAuthExplanation | undefined {
	const remedy = auth?.remedy ?? 'Check the credential.';
	const scopeError = findInChain(error, (e): e is InsufficientScopeError => e instanceof InsufficientScopeError);
	if (scopeError) {
		const scope = safeScope(scopeError.requiredScope);
		return {
			message: `${where} answered 403 insufficient_scope while ${phase}: the access token lacks ${scope ? `the scope "${scope}"` : 'a scope the server requires'}. ${scopeAdvice(auth, scope)}`,
			kind: 'insufficient-scope',
			httpStatus: 403,
		};
	}
	const issuerError = findInChain(error, (e): e is IssuerMismatchError => e instanceof IssuerMismatchError);
	if (issuerError) {
		const what =
			issuerError.kind === 'metadata'
				? 'its metadata names an issuer other than the address it was fetched from'
				: 'the authorization response did not come from the expected issuer (RFC 9207 iss check)';
		return { message: `The authorization server of ${where} failed the issuer check while ${phase}: ${what}. Nothing was sent to its token endpoint.`, kind: 'oauth' };
	}
	const serverMismatch = findInChain(error, (e): e is AuthorizationServerMismatchError => e instanceof AuthorizationServerMismatchError);
	if (serverMismatch) {
		return { message: `${where} now names a different authorization server than the one this credential was authorized with (while ${phase}). ${remedy}`, kind: 'reconnect' };
	}
	const insecure = findInChain(error, (e): e is InsecureTokenEndpointError => e instanceof InsecureTokenEndpointError);
	if (insecure) {
		return { message: `The token endpoint of ${where}'s authorization server does not use https (while ${phase}); credentials are not sent there.`, kind: 'oauth' };
	}
	const oauthError = findInChain(error, (e): e is OAuthError => e instanceof OAuthError);
	if (oauthError) {
		const code = /^[a-z_]{1,64}$/.test(String(oauthError.code)) ? String(oauthError.code) : 'an error';
		const kind = code === 'invalid_grant' && auth?.kind !== 'client-credentials' ? 'reconnect' : 'oauth';
		return { message: `The authorization server of ${where} refused the token request with ${code} while ${phase}. ${remedy}`, kind };
	}
	const secondRefusal = findInChain(error, (e): e is SdkError => e instanceof SdkError && e.code === SdkErrorCode.ClientHttpAuthentication);
	if (secondRefusal && auth) {
		return { message: `${where} answered 401 Unauthorized again after the access token was renewed, while ${phase}. ${remedy}`, kind: 'reconnect', httpStatus: 401 };
	}
	if (auth && findInChain(error, (e): e is UnauthorizedError => e instanceof UnauthorizedError)) {
		return { message: `${where} requires an authorization that this credential does not hold (while ${phase}). ${remedy}`, kind: 'reconnect', httpStatus: 401 };
	}
	const flowError = findInChain(error, (e): e is OAuthClientFlowError => e instanceof OAuthClientFlowError);
	if (flowError) {
		return { message: `OAuth with ${where} failed while ${phase}: ${flowError.message}`, kind: 'oauth' };
	}
	return undefined;
}
