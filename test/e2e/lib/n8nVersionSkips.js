'use strict';
// The e2e cases that check a behaviour of n8n 2.x which n8n 1.x does not have, with the reason
// printed when they are skipped there (lib/reportingTest.js, run.js). One list, so what 1.x lacks
// is visible in one place; a case renamed without updating its entry runs on 1.x and fails, which
// shows the entry is stale (nothing is skipped silently).

const { skipOnN8n1 } = require('./n8nVersion');

const SKIPPED_ON_N8N_1 = [
	{
		suite: 'oauth',
		caseName: 'a short-lived token is refreshed before it expires, each time with the rotated refresh token n8n stored',
		reason:
			'n8n 1.x stores no expiry with the token data (no n8n_expires_at), so a token is refreshed on the server\'s 401 only; that refresh is checked by "an access token the server no longer accepts is refreshed on its 401"',
	},
];

/** Why case `name` is skipped on n8n `version`, or null when it runs. */
function skipReasonFor(version, name) {
	const entry = SKIPPED_ON_N8N_1.find((e) => e.caseName === name);
	return entry ? skipOnN8n1(version, entry.reason) : null;
}

module.exports = { SKIPPED_ON_N8N_1, skipReasonFor };
