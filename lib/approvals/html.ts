import { codePointLabel, INVISIBLE_CHARACTER, invisibleCharacters } from '../tools/invisibleCharacters';

// Linear time on server and model text (issue 25): every pattern here is a literal, one character
// class or one run of a class with nothing after it to backtrack into: V8 runs it in one pass.

/** Escapes text for HTML element content and quoted attribute values. Every server- or model-provided string goes through here. */
export function escapeHtml(value: unknown): string {
	return String(value ?? '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

// Control characters a browser draws as nothing (or as a box) in multi-line text; line breaks and tabs stay.
const HIDDEN_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// In a one-line value (a name, an id) a line break could fake a second line, so it is shown too.
const ALL_CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g;

/**
 * Makes invisible characters (the one list in invisibleCharacters.ts: zero-width, bidi controls,
 * variation selectors, tags...) and stray control characters visible as "[U+200B]", so hidden text
 * cannot hide on the page.
 */
export function revealInvisible(text: string, { oneLine = false } = {}): string {
	return text.replace(invisibleCharacters(), codePointLabel).replace(oneLine ? ALL_CONTROLS : HIDDEN_CONTROLS, codePointLabel);
}

/** Whether revealInvisible would change the text: the page then flags the value. */
export function hasHiddenCharacters(text: string, { oneLine = false } = {}): boolean {
	return INVISIBLE_CHARACTER.test(text) || new RegExp((oneLine ? ALL_CONTROLS : HIDDEN_CONTROLS).source).test(text);
}

export function showText(value: unknown): string {
	return escapeHtml(revealInvisible(String(value ?? '')));
}

/** Escaped one-line value (tool, server, call id): line breaks and other controls are revealed too. */
export function showName(value: unknown): string {
	return escapeHtml(revealInvisible(String(value ?? ''), { oneLine: true }));
}

/** A visible warning to place next to a value that held invisible or control characters; empty otherwise. */
export function hiddenCharacterFlag(value: unknown, { oneLine = false } = {}): string {
	return hasHiddenCharacters(String(value ?? ''), { oneLine })
		? ' <span class="hidden-flag">⚠ contains invisible or control characters, shown as [U+…]</span>'
		: '';
}
