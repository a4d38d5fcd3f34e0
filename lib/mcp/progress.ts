import { invisibleCharacters } from '../tools/invisibleCharacters';

/**
 * `notifications/progress` of a tool call, as the package keeps and shows it: the numbers the
 * server sent and its message, cleaned (invisible and control characters removed, whitespace
 * collapsed, at most MAX_PROGRESS_MESSAGE_CHARS). The server's text is untrusted: it goes into the
 * Agent's output and n8n's log, never into the model's context.
 */
export interface ToolProgress {
	progress: number;
	total?: number;
	message?: string;
}

/** Longest progress message kept (characters, after cleaning). */
export const MAX_PROGRESS_MESSAGE_CHARS = 200;

/**
 * How often one call's progress reaches n8n's log at most (plus its last notification, logged when
 * the call ends): a server flooding notifications gets a few lines per call, not one per notice.
 */
export const PROGRESS_LOG_INTERVAL_MS = 5_000;

/** With Reset Timeout On Progress, a call still lasts at most this many times its timeout. */
export const MAX_TOTAL_TIMEOUT_FACTOR = 10;

const CONTROL = /[\p{Cc}]/gu;
const INVISIBLE = invisibleCharacters();

/** The progress of a notification's params, cleaned; undefined when it carries no finite number. */
export function readProgress(params: unknown): ToolProgress | undefined {
	if (typeof params !== 'object' || params === null) return undefined;
	const { progress, total, message } = params as { progress?: unknown; total?: unknown; message?: unknown };
	if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
	const read: ToolProgress = { progress };
	if (typeof total === 'number' && Number.isFinite(total)) read.total = total;
	if (typeof message === 'string') {
		const cleaned = cleanMessage(message);
		if (cleaned) read.message = cleaned;
	}
	return read;
}

/** A server's message made fit for the output and the log (also a task's statusMessage, lib/mcp/toolTask.ts). */
export function cleanMessage(message: string): string {
	// Only a bounded prefix is looked at: a megabyte of message costs no more than a short one.
	const head = message.slice(0, MAX_PROGRESS_MESSAGE_CHARS * 4);
	const text = head.replace(INVISIBLE, '').replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
	return text.length > MAX_PROGRESS_MESSAGE_CHARS ? `${text.slice(0, MAX_PROGRESS_MESSAGE_CHARS)}…` : text;
}

/** "3/5 (Fetching sources)" */
export function progressText(progress: ToolProgress): string {
	const numbers = progress.total !== undefined ? `${progress.progress}/${progress.total}` : String(progress.progress);
	return progress.message ? `${numbers} (${progress.message})` : numbers;
}

/**
 * One call's progress for n8n's log, throttled: the first notification at once, then at most one
 * per `intervalMs`; `flush` (at the call's end) logs the last one if it was held back. No timers:
 * nothing is left behind by a call that never ends its stream.
 */
export interface ProgressThrottle {
	push(progress: ToolProgress): void;
	flush(): void;
}

export function throttleProgress(emit: (progress: ToolProgress) => void, options: { intervalMs?: number; now?: () => number } = {}): ProgressThrottle {
	const interval = options.intervalMs ?? PROGRESS_LOG_INTERVAL_MS;
	const now = options.now ?? Date.now;
	let lastAt: number | undefined;
	let pending: ToolProgress | undefined;
	const send = (progress: ToolProgress): void => {
		try {
			emit(progress);
		} catch {
			// Logging is for people; the call goes on without it.
		}
	};
	return {
		push(progress) {
			const at = now();
			if (lastAt === undefined || at - lastAt >= interval) {
				lastAt = at;
				pending = undefined;
				send(progress);
			} else pending = progress;
		},
		flush() {
			if (!pending) return;
			const last = pending;
			pending = undefined;
			lastAt = now();
			send(last);
		},
	};
}
