import type { ToolLogEntry } from './types';

/** A tool log entry of the node's output, with the call's full result when Full Tool Results in Output is on. */
export type ToolLogEntryWithResult = ToolLogEntry & { result?: string; resultNotKept?: string };

/** Why an entry of a call that ran has no full result: its text was never stored. */
export const RESULT_NOT_KEPT = 'the call ran before the run paused, and a paused run stores only what the model got (see resultSummary and resultTrimmed)';

/**
 * Full Tool Results in Output: the tools' texts before they were trimmed for the model, kept by the
 * driver for the one execution that produces the output item. They never enter the run's state, so
 * neither the model's transcript nor a paused run's stored state grows with them; a call that ran in
 * an earlier execution (before a pause) says so instead.
 */
export class FullResults {
	private readonly texts = new Map<string, string>();

	/** The full texts of one turn's calls (ToolRunResult.fullResults), by call id. */
	keep(iteration: number, results: Record<string, string> | undefined): void {
		if (!results) return;
		for (const id of Object.keys(results)) this.texts.set(entryKey(iteration, id), results[id]);
	}

	/** The tool log with `result` on each entry whose full text this execution kept. */
	attachTo(log: ToolLogEntry[]): ToolLogEntryWithResult[] {
		return log.map((entry) => {
			const text = this.texts.get(entryKey(entry.iteration, entry.id));
			if (text !== undefined) return { ...entry, result: text };
			// A call that never reached its tool (rejected, refused, denied) has its reason in resultSummary.
			return entry.allowedBy ? { ...entry, resultNotKept: RESULT_NOT_KEPT } : entry;
		});
	}
}

/** Call ids are unique within a turn (step.ts rejects shared ones), not across turns. */
function entryKey(iteration: number, id: string): string {
	return `${iteration}\u0000${id}`;
}
