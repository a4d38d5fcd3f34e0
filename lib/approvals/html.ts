/** Escapes text for HTML element content and quoted attribute values. Every server- or model-provided string goes through here. */
export function escapeHtml(value: unknown): string {
	return String(value ?? '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

/** Makes invisible and bidirectional control characters visible, so hidden text cannot hide on the page. */
export function revealInvisible(text: string): string {
	return text.replace(/[\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD]/gu, (ch) => `[U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}]`)
		.replace(/[\u{E0000}-\u{E007F}]/gu, (ch) => `[U+${ch.codePointAt(0)?.toString(16).toUpperCase()}]`);
}

export function showText(value: unknown): string {
	return escapeHtml(revealInvisible(String(value ?? '')));
}
