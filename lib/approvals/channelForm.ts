import { inlineText } from './summaryFormat';

/**
 * Per-call decisions through n8n's send-and-wait nodes (Slack, Telegram, Gmail, Discord...) with the
 * response type "Custom Form", form defined "Using JSON": the Needs Approval item carries the form
 * (`channelForm`), one required dropdown per call (Approve / Deny), labelled with the call's
 * position and code, and a reason box. n8n outputs the answer as `{ data: { <label>: <option>,
 * ..., respondedAt } }` (field label as key, fields without a field name); this module reads it
 * back. The label is the binding: "#2 code 1a2b3c4d: delete_file on fs" names the second pending
 * call, and its code must be that call's, so a decision applies only to the arguments shown.
 */
export const CHANNEL_APPROVE = 'Approve';
export const CHANNEL_DENY = 'Deny';
export const CHANNEL_REASON_LABEL = 'Reason (optional, sent to the model if you deny)';

/** A field in n8n's form JSON (keys n8n accepts: fieldLabel, fieldType, fieldOptions, requiredField...). */
export interface ChannelFormField {
	fieldLabel: string;
	fieldType: 'dropdown' | 'textarea';
	fieldOptions?: { values: Array<{ option: string }> };
	requiredField?: boolean;
}

export interface ChannelCallLabel {
	tool: string;
	server: string;
	code: string;
	/** The decisions a rule limits the call to (absent: all); a channel offers Approve only when approve is among them. */
	decisions?: string[];
}

/** "#2 code 1a2b3c4d: delete_file on fs" (names made inert: one line, no markup, no link). */
export function channelFieldLabel(position: number, call: ChannelCallLabel): string {
	// n8n replaces < and > in labels with entities; inlineText already turned them into ‹ ›.
	return `#${position} code ${call.code}: ${inlineText(call.tool)} on ${inlineText(call.server)}`.slice(0, 300);
}

export function channelForm(calls: ChannelCallLabel[]): ChannelFormField[] {
	return [
		...calls.map((call, index) => ({
			fieldLabel: channelFieldLabel(index + 1, call),
			fieldType: 'dropdown' as const,
			fieldOptions: { values: [...(!call.decisions || call.decisions.includes('approve') ? [{ option: CHANNEL_APPROVE }] : []), { option: CHANNEL_DENY }] },
			requiredField: true,
		})),
		{ fieldLabel: CHANNEL_REASON_LABEL, fieldType: 'textarea' },
	];
}

export interface PerCallChoice {
	/** 1-based position among the pending calls, as in the label. */
	position: number;
	code: string;
	/** Undefined when the answer is neither Approve nor Deny (left empty, or another value). */
	choice?: 'approve' | 'deny';
}

const LABEL = /^#(\d{1,3}) code ([0-9a-f]{8})(?::|$)/i;

/** The per-call choices in a custom-form answer, or undefined when it has no such field. */
export function readPerCallChoices(source: Record<string, unknown>): PerCallChoice[] | undefined {
	const choices: PerCallChoice[] = [];
	for (const key of Object.keys(source)) {
		const match = LABEL.exec(key);
		if (!match) continue;
		const value = source[key];
		const text = typeof value === 'string' ? value.trim().toLowerCase() : Array.isArray(value) && value.length === 1 && typeof value[0] === 'string' ? value[0].trim().toLowerCase() : '';
		const choice = text === CHANNEL_APPROVE.toLowerCase() ? 'approve' : text === CHANNEL_DENY.toLowerCase() ? 'deny' : undefined;
		choices.push({ position: Number(match[1]), code: match[2].toLowerCase(), ...(choice ? { choice } : {}) });
	}
	return choices.length ? choices.sort((a, b) => a.position - b.position) : undefined;
}

/**
 * Why the choices do not fit the pending calls' codes (in their order), or undefined when each
 * pending call has exactly one choice, at its position, with its code.
 */
export function perCallProblem(choices: PerCallChoice[], pendingCodes: string[]): string | undefined {
	const named = choices.map((c) => `#${c.position} code ${c.code}`).join(', ');
	const pending = pendingCodes.map((code, i) => `#${i + 1} code ${code}`).join(', ');
	const mismatch = `The approval channel's form answered ${named}, but the pending calls are ${pending}; it was not applied. The calls are still pending.`;
	if (choices.length !== pendingCodes.length) return mismatch;
	for (const [index, code] of pendingCodes.entries()) {
		const choice = choices[index];
		if (choice.position !== index + 1 || choice.code !== code.toLowerCase()) return mismatch;
		if (!choice.choice) return `The approval channel's form has no Approve or Deny for call #${choice.position} (code ${choice.code}); nothing was applied. The calls are still pending.`;
	}
	return undefined;
}
