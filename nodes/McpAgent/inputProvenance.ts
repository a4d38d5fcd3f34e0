import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import type { InputProvenance } from '../../lib/approvals/resumeContext';
import { nodeOf } from '../shared/nodeOf';
import { approvalNodeType, inputFromApprovalNode, inputSourceParent } from '../shared/approvalWiring';

/**
 * Where this execution's input came from, read from n8n's graph and run data: the resume routes
 * trust an answer by it (lib/approvals/resumeContext.ts, InputProvenance). Every probe fails
 * closed: a lookup that throws or is missing trusts nothing, and counts a sign-in as required.
 */
export interface ResumeProvenance extends Required<InputProvenance> {
	/** The "Needs Approval" item an input item is paired with, when n8n knows it. */
	pairedIndex(item: INodeExecutionData): number | undefined;
}

/**
 * The provenance of this execution's input. With no paused run nothing can be resumed, so n8n is
 * not asked and nothing is trusted.
 */
export function inputProvenance(context: IExecuteFunctions, runsWaiting: boolean): ResumeProvenance {
	if (!runsWaiting) return { pairedStraight: false, fromSendAndWait: false, legacyOrder: false, fromApprovalNode: false, approvalSignIn: false, pairedIndex };
	return {
		pairedStraight: inputStraightFromHere(context),
		fromSendAndWait: inputFromSendAndWait(context),
		legacyOrder: runsInLegacyOrder(context),
		fromApprovalNode: inputFromApprovalNode(context),
		approvalSignIn: approvalRequiresSignIn(context),
		pairedIndex,
	};
}

function pairedIndex(item: INodeExecutionData): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	if (typeof paired === 'number') return paired;
	return paired && typeof paired === 'object' ? paired.item : undefined;
}

/**
 * Whether this run's input comes from a node whose only parent is this node (a send-and-wait node
 * straight on "Needs Approval"): then an answer's paired position is the position of the approval
 * it answers. A Filter, IF or Sort in between changes positions, so a position is not trusted then
 * (pickApproval.ts: it counts only when one approval is pending).
 */
function inputStraightFromHere(context: IExecuteFunctions): boolean {
	try {
		const source = context.getInputSourceData(0)?.previousNode;
		if (!source || typeof context.getParentNodes !== 'function') return false;
		const parents = context.getParentNodes(source, { connectionType: NodeConnectionTypes.Main, depth: 1 });
		return parents.length === 1 && parents[0].name === nodeOf(context).name;
	} catch {
		// No source (the workflow's first node) or an n8n without the lookup: nothing is trusted.
		return false;
	}
}

/** The operation of every n8n send-and-wait node (n8n-workflow's SEND_AND_WAIT_OPERATION, not exported by older 1.x). */
const SEND_AND_WAIT_OPERATION = 'sendAndWait';

/**
 * Whether this run's input comes straight from a send-and-wait node (Slack, Gmail, Telegram…, any
 * channel) that follows this Agent (a send-and-wait node asking something else is no answer here).
 */
function inputFromSendAndWait(context: IExecuteFunctions): boolean {
	try {
		const source = inputSourceParent(context, true);
		if (source?.parameters?.operation !== SEND_AND_WAIT_OPERATION) return false;
		const self = nodeOf(context).name;
		return context.getParentNodes(source.name, { connectionType: NodeConnectionTypes.Main, depth: -1 }).some((node) => node.name === self);
	} catch {
		return false;
	}
}

/**
 * Whether an MCP Approval node after this Agent requires reviewers to sign in to n8n (a value that
 * is not plainly false, an expression included, counts as required: fail closed, as does a failed
 * lookup). Then a review secret alone decides nothing (channelAnswerRoute.ts).
 */
function approvalRequiresSignIn(context: IExecuteFunctions): boolean {
	try {
		const type = approvalNodeType(context);
		if (!type) return false;
		// Every n8n this package supports has the lookup; without it nothing says a sign-in is not needed.
		if (typeof context.getChildNodes !== 'function') return true;
		const children = context.getChildNodes(nodeOf(context).name, { includeNodeParameters: true });
		// Disabled ones count too: n8n may mark the node that waited as disabled when it resumes.
		return children.some((node) => node.type === type && node.parameters?.requireLogin !== undefined && node.parameters.requireLogin !== false);
	} catch {
		return true;
	}
}

/** n8n's legacy execution order (v0): workflows that predate v1 have no setting and run in it. */
function runsInLegacyOrder(context: IExecuteFunctions): boolean {
	try {
		return typeof context.getWorkflowSettings !== 'function' || context.getWorkflowSettings()?.executionOrder !== 'v1';
	} catch {
		return true;
	}
}
