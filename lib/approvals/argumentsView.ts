import { hiddenCharacterFlag, showName, showText } from './html';

/**
 * A call's arguments as a person reads them: keys and values, nested objects indented, long
 * strings wrapped (and cut only in this view, with the full value in the JSON below), every string
 * escaped and its invisible characters revealed. The exact JSON is always on the page as well.
 */
const SHOWN_CHARS = 600;
const MAX_DEPTH = 12;
const MAX_ENTRIES = 400;

interface Budget {
	entries: number;
}

function scalar(value: unknown): string {
	if (typeof value === 'string') {
		const cut = value.length > SHOWN_CHARS;
		const shown = cut ? value.slice(0, SHOWN_CHARS) : value;
		return `<span class="v s">${showText(shown)}</span>${cut ? ` <span class="meta">… ${value.length - SHOWN_CHARS} more characters: see the full JSON below</span>` : ''}${hiddenCharacterFlag(value)}`;
	}
	return `<span class="v lit">${showText(JSON.stringify(value) ?? String(value))}</span>`;
}

function view(value: unknown, depth: number, budget: Budget): string {
	if (value === null || typeof value !== 'object') return scalar(value);
	if (depth >= MAX_DEPTH || budget.entries > MAX_ENTRIES) return '<span class="meta">(deeper values: see the full JSON below)</span>';
	if (Array.isArray(value)) {
		if (value.length === 0) return '<span class="v lit">[] (empty list)</span>';
		budget.entries += value.length;
		return `<ol start="0">${value.map((item) => `<li>${view(item, depth + 1, budget)}</li>`).join('')}</ol>`;
	}
	const keys = Object.keys(value);
	if (keys.length === 0) return '<span class="v lit">{} (empty object)</span>';
	budget.entries += keys.length;
	return `<dl>${keys.map((key) => `<dt>${showName(key)}${hiddenCharacterFlag(key, { oneLine: true })}</dt><dd>${view((value as Record<string, unknown>)[key], depth + 1, budget)}</dd>`).join('')}</dl>`;
}

export function renderArgumentsView(args: unknown): string {
	return `<div class="args">${view(args, 0, { entries: 0 })}</div>`;
}
