import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkNoNul, ConfigFormatError } from './commandLine';

/**
 * The client's roots (MCP `roots/list`): the directories a credential gives its server. Servers such
 * as server-filesystem and server-pdf take them as their allowed directories, in place of the ones
 * on their command line, so the capability is declared only when a credential names roots: an empty
 * list would take a server's directories away.
 */
export interface McpRoot {
	/** A `file://` URI, as the protocol requires. */
	uri: string;
	name?: string;
}

/** Between a root and its optional name on one line: `/data/pdfs | PDFs`. */
const NAME_SEPARATOR = ' | ';

/**
 * One root per line: an absolute path or a `file://` URI, optionally followed by ` | ` and a name.
 * Paths become `file://` URIs (percent-encoded); a URI is checked and kept in its normalized form.
 * Empty lines are skipped; nothing else is guessed (a relative path or `~` is refused, since the
 * server's working directory is not the user's). Errors name the field and line, never the value,
 * as every credential parsing error does.
 */
export function parseRoots(text: string, field = 'Roots'): McpRoot[] {
	const roots: McpRoot[] = [];
	text.split(/\r?\n/).forEach((rawLine, index) => {
		const line = rawLine.trim();
		if (line === '') return;
		const where = `${field}, line ${index + 1}`;
		checkNoNul(line, where);
		const cut = line.indexOf(NAME_SEPARATOR);
		const location = (cut === -1 ? line : line.slice(0, cut)).trim();
		const name = cut === -1 ? '' : line.slice(cut + NAME_SEPARATOR.length).trim();
		roots.push({ uri: rootUri(location, where), ...(name ? { name } : {}) });
	});
	return roots;
}

function rootUri(location: string, where: string): string {
	if (/^file:/i.test(location)) {
		let url: URL;
		try {
			url = new URL(location);
			// Refuses a host other than localhost and encoded slashes, as servers would.
			fileURLToPath(url);
		} catch {
			throw new ConfigFormatError(`${where}: not a valid file:// URI (write file:///absolute/path, or the path itself)`);
		}
		return url.href;
	}
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
		throw new ConfigFormatError(`${where}: not a file:// URI; roots are directories, given as an absolute path or a file:// URI`);
	}
	if (!path.isAbsolute(location)) {
		throw new ConfigFormatError(`${where}: not an absolute path; give the full path (such as /data/pdfs) or a file:// URI`);
	}
	return pathToFileURL(location).href;
}

/** The answer to `roots/list`: copies, so that nothing a server's handling does reaches the config. */
export function rootsListResult(roots: readonly McpRoot[]): { roots: McpRoot[] } {
	return { roots: roots.map((root) => ({ ...root })) };
}

/** Whether a config gives its server any roots (and so declares the capability). */
export function hasRoots(config: { roots?: readonly McpRoot[] }): config is { roots: McpRoot[] } {
	return Array.isArray(config.roots) && config.roots.length > 0;
}
