'use strict';

/** A short, printable view of a webhook response body for assertion messages. */
function describeBody(body, max = 1500) {
	const text = typeof body === 'string' ? body : String(JSON.stringify(body));
	return text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text;
}

/** Everything an error item says about its error, as one string. */
function errorText(item) {
	if (!item || typeof item !== 'object') return '';
	return ['error', 'message', 'description', 'details']
		.map((key) => item[key])
		.filter((value) => value !== undefined && value !== null)
		.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
		.join(' | ');
}

module.exports = { describeBody, errorText };
