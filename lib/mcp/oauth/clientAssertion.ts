import { constants, createPrivateKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { AddClientAuthentication } from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';

/**
 * private_key_jwt client authentication (RFC 7523 §2.2) signed with node:crypto. The SDK's own
 * helper loads `jose` through a dynamic import at request time, which some hosts' module loaders
 * refuse; this needs nothing but Node. The audience is the authorization server's issuer (as the
 * MCP client-credentials extension asks), or the token endpoint when the metadata has none.
 */

export const PRIVATE_KEY_JWT_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const;
export type PrivateKeyJwtAlgorithm = (typeof PRIVATE_KEY_JWT_ALGORITHMS)[number];

const LIFETIME_SECONDS = 300;

/** The curve of each ES algorithm: as Node names it, and as people do. */
const EC_CURVES: Record<string, { node: string; name: string }> = {
	ES256: { node: 'prime256v1', name: 'P-256' },
	ES384: { node: 'secp384r1', name: 'P-384' },
	ES512: { node: 'secp521r1', name: 'P-521' },
};

/** Reads the PEM once, so a wrong key fails at the start with a message that never quotes it. */
export function readPrivateKey(pem: string, algorithm: string): KeyObject {
	if (!(PRIVATE_KEY_JWT_ALGORITHMS as readonly string[]).includes(algorithm)) {
		throw new McpFailure(`The signing algorithm "${algorithm}" is not supported; use one of ${PRIVATE_KEY_JWT_ALGORITHMS.join(', ')}.`, 'config');
	}
	let key: KeyObject;
	try {
		key = createPrivateKey(pem);
	} catch {
		throw new McpFailure('The private key in the credential is not a PEM private key (expected "-----BEGIN PRIVATE KEY-----" or an EC/RSA key in PEM).', 'config');
	}
	const type = key.asymmetricKeyType;
	const fits = algorithm.startsWith('ES') ? type === 'ec' : algorithm === 'EdDSA' ? type === 'ed25519' || type === 'ed448' : type === 'rsa' || type === 'rsa-pss';
	if (!fits) throw new McpFailure(`The private key in the credential is a ${type ?? 'unknown'} key, which cannot sign ${algorithm}.`, 'config');
	// Each ES algorithm has its own curve (RFC 7518 §3.4); another curve signs, but no server accepts it.
	const curve = key.asymmetricKeyDetails?.namedCurve;
	const wanted = EC_CURVES[algorithm];
	if (wanted && curve !== wanted.node) {
		throw new McpFailure(`The private key in the credential is on the ${curve ?? 'unknown'} curve; ${algorithm} needs a ${wanted.node} key (${wanted.name}).`, 'config');
	}
	return key;
}

function signature(algorithm: PrivateKeyJwtAlgorithm, key: KeyObject, data: Buffer): Buffer {
	if (algorithm === 'EdDSA') return sign(null, data, key);
	const hash = `sha${algorithm.slice(2)}`;
	if (algorithm.startsWith('ES')) return sign(hash, data, { key, dsaEncoding: 'ieee-p1363' });
	if (algorithm.startsWith('PS')) return sign(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
	return sign(hash, data, key);
}

export function signClientAssertion(options: { clientId: string; audience: string; key: KeyObject; algorithm: PrivateKeyJwtAlgorithm; now?: number }): string {
	const iat = Math.floor((options.now ?? Date.now()) / 1000);
	const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const header = encode({ alg: options.algorithm, typ: 'JWT' });
	const claims = encode({ iss: options.clientId, sub: options.clientId, aud: options.audience, iat, exp: iat + LIFETIME_SECONDS, jti: randomUUID() });
	const data = Buffer.from(`${header}.${claims}`);
	return `${header}.${claims}.${signature(options.algorithm, options.key, data).toString('base64url')}`;
}

export function privateKeyJwtAuthentication(clientId: string, key: KeyObject, algorithm: PrivateKeyJwtAlgorithm): AddClientAuthentication {
	return (_headers, params, url, metadata) => {
		const audience = String(metadata?.issuer ?? url);
		params.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
		params.set('client_assertion', signClientAssertion({ clientId, audience, key, algorithm }));
	};
}
