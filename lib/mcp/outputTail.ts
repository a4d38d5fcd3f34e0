/**
 * Keeps the last lines a server wrote (stderr, or stray non-JSON stdout) so that every error can
 * show them: "Connection closed" alone tells a user nothing.
 */
export class OutputTail {
	private lines: string[] = [];
	private partial = '';
	/** A line too long to wait for was kept in part: the rest of it, up to its newline, is dropped. */
	private droppingRest = false;

	/**
	 * `redact` runs on each whole line before it is cut to maxLineLength: a secret the server prints
	 * (its own environment, a token in a URL) must go before a cut could leave half of it.
	 */
	constructor(
		private readonly maxLines = 20,
		private readonly maxLineLength = 500,
		private readonly redact: (line: string) => string = (line) => line,
	) {}

	write(chunk: string): void {
		let text = chunk;
		if (this.droppingRest) {
			const newline = text.indexOf('\n');
			if (newline === -1) return;
			this.droppingRest = false;
			text = text.slice(newline + 1);
		}
		const parts = (this.partial + text).split(/\r?\n/);
		this.partial = parts.pop() ?? '';
		for (const line of parts) this.push(line);
		if (this.partial.length > this.maxLineLength * 4) {
			// Shown only up to maxLineLength anyway. The rest is not shown as a line of its own: a
			// secret cut in two there would be redacted in neither piece.
			this.push(this.partial);
			this.partial = '';
			this.droppingRest = true;
		}
	}

	push(rawLine: string): void {
		if (rawLine.trim() === '') return;
		const line = this.redact(rawLine);
		this.lines.push(line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line);
		if (this.lines.length > this.maxLines) this.lines.shift();
	}

	text(): string {
		const all = this.partial.trim() ? [...this.lines, this.redact(this.partial)] : this.lines;
		return all.join('\n');
	}
}
