import { unescapeHtml } from './approvalFixtures';

/**
 * What a browser posts for the review page's form, closer to a browser than `browserPost`: a
 * textarea loses the one line break the HTML parser drops after `<textarea>` and sends its line
 * breaks as CRLF (HTML form submission), a select sends its selected option or else its first, and
 * checkboxes and radios are sent only when checked. `set` overrides values as a person typing or
 * choosing would; `check` / `uncheck` tick or untick boxes by name.
 */
export function formPost(
	html: string,
	{ set = {}, check = [], uncheck = [] }: { set?: Record<string, string>; check?: string[]; uncheck?: string[] } = {},
): Record<string, string> {
	const form = /<form[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1] ?? html;
	const body: Record<string, string> = {};
	const attr = (tag: string, name: string) => {
		const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
		return m ? unescapeHtml(m[1]) : undefined;
	};
	for (const m of form.matchAll(/<input\b[^>]*>/g)) {
		const tag = m[0];
		const name = attr(tag, 'name');
		if (name === undefined) continue;
		const type = attr(tag, 'type') ?? 'text';
		if (type === 'radio' || type === 'checkbox') {
			const on = check.includes(name) || (/\schecked\b/.test(tag) && !uncheck.includes(name));
			if (on && (type === 'checkbox' || body[name] === undefined || /\schecked\b/.test(tag))) body[name] = attr(tag, 'value') ?? 'on';
		} else if (type !== 'password' && type !== 'submit') body[name] = attr(tag, 'value') ?? '';
	}
	for (const m of form.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
		const name = attr(m[1], 'name');
		if (name !== undefined) body[name] = unescapeHtml(m[2].replace(/^\r?\n/, '')).replace(/\r\n|\r|\n/g, '\r\n');
	}
	for (const m of form.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
		const name = attr(m[1], 'name');
		if (name === undefined) continue;
		const selected = /<option value="([^"]*)" selected>/.exec(m[2]) ?? /<option value="([^"]*)"/.exec(m[2]);
		body[name] = selected ? unescapeHtml(selected[1]) : '';
	}
	return { ...body, ...set };
}
