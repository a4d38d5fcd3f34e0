import type { ApprovalDecisionItem, ApprovalRequest } from './approvalRequest';
import { callCode } from './approvalRequest';
import { renderArgumentsView } from './argumentsView';
import { showName, showText } from './html';
import { page } from './reviewPage';
import { visibleJson } from './summaryFormat';
import { isJsonObject } from '../util/jsonObject';

/**
 * The page after a decision: exactly what was recorded, call by call (approved, denied with the
 * reason, approved with edited arguments and each change against the model's original, input
 * answers), who decided and when. Built from the decision items that resume the run, so the page
 * cannot say something other than what the Agent receives.
 */
export interface ArgumentChange {
	path: string;
	before?: unknown;
	after?: unknown;
}

/** Each value that differs between the model's arguments and the edited ones, by path. */
export function argumentChanges(before: unknown, after: unknown, path = ''): ArgumentChange[] {
	if (isJsonObject(before) && isJsonObject(after)) {
		const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
		return keys.flatMap((key) => argumentChanges(Object.hasOwn(before, key) ? before[key] : undefined, Object.hasOwn(after, key) ? after[key] : undefined, path ? `${path}.${key}` : key));
	}
	if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
		return before.flatMap((item, index) => argumentChanges(item, after[index], `${path}[${index}]`));
	}
	if (JSON.stringify(before) === JSON.stringify(after)) return [];
	return [{ path: path || '(all arguments)', ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

const shown = (value: unknown) => (value === undefined ? '<span class="meta">(not set)</span>' : `<code>${showText(visibleJson(value))}</code>`);

function renderChanges(changes: ArgumentChange[]): string {
	if (!changes.length) return '<p class="meta">The edited arguments are the same as the model\'s.</p>';
	return `<table class="changes"><thead><tr><th scope="col">Field</th><th scope="col">Model's value</th><th scope="col">Your value</th></tr></thead><tbody>${changes
		.map((c) => `<tr><th scope="row"><code>${showName(c.path)}</code></th><td>${shown(c.before)}</td><td>${shown(c.after)}</td></tr>`)
		.join('')}</tbody></table>`;
}

const VERDICT = { approve: 'Approved', deny: 'Denied', edit: 'Approved with your edits' } as const;

export function renderDecisionPage(requests: ApprovalRequest[], decisions: ApprovalDecisionItem[], notes: Array<{ ok: boolean; text: string }> = []): string {
	const rows: string[] = [];
	let count = 0;
	for (const item of decisions) {
		const request = requests.find((r) => r.approvalId === item.approvalId);
		for (const decision of item.decisions) {
			count += 1;
			const call = request?.calls.find((c) => c.callId === decision.callId);
			const verdict = decision.decision ? VERDICT[decision.decision] : 'Input answered';
			const answers = decision.inputResponses
				? Object.values(decision.inputResponses).map((answer) => `<p>Your answer to the server's request: <strong>${showText(answer.action)}</strong>${answer.content ? renderArgumentsView(answer.content) : ''}</p>`).join('')
				: '';
			rows.push(`<li><p><span class="verdict ${decision.decision ?? 'approve'}">${verdict}</span>: <strong>${showName(call?.title ?? call?.tool ?? decision.callId)}</strong> <span class="meta">tool ${showName(call?.tool ?? '')} on ${showName(call?.server ?? '')} · code ${showText(callCode(decision.argsHash))}</span></p>
${decision.reason ? `<p>Reason: ${showText(decision.reason)}</p>` : ''}${decision.decision === 'edit' ? renderChanges(argumentChanges(call?.arguments, decision.arguments)) : ''}${answers}</li>`);
		}
	}
	const who = decisions[0]?.reviewer ? ` by ${showName(decisions[0].reviewer)}` : '';
	const when = decisions[0]?.decidedAt ? ` at ${showText(decisions[0].decidedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}` : '';
	return page(
		'Decision recorded',
		`<div class="card"><div class="status-icon" aria-hidden="true">✓</div><h1>Decision recorded</h1>
<p>${count} decision${count === 1 ? '' : 's'} recorded${who}${when}. The workflow continues; you can close this page.</p>
<ul class="summary-list">${rows.join('\n')}</ul>${notes.map((note) => `<p class="${note.ok ? 'grant-made' : 'error'}">${showText(note.text)}</p>`).join('\n')}</div>`,
	);
}
