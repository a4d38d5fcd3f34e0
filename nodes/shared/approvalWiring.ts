import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { nodeOf } from './nodeOf';

/**
 * How an MCP Agent or MCP Call Tool is wired to this package's MCP Approval node, read from n8n's
 * graph and run data (which no item can choose). Every probe fails closed.
 */

/** The nodes of this package that pause for MCP Approval, by their own type's last part. */
const PAUSING_NODE = /(^|\.)(mcpAgent|mcpCallTool)$/;

/** The type of this package's MCP Approval node, beside this node's own (`<package>.mcpAgent`). */
export function approvalNodeType(context: IExecuteFunctions): string | undefined {
	const own = nodeOf(context).type;
	return PAUSING_NODE.test(own) ? own.replace(PAUSING_NODE, '$1mcpApproval') : undefined;
}

/**
 * The node this run's input came from, among this node's direct parents (n8n records the source;
 * no item can choose it); undefined without a source or on an n8n without the lookup. Throws
 * where n8n's lookup does: the probes that call it fail closed.
 */
export function inputSourceParent(context: IExecuteFunctions, includeNodeParameters = false) {
	const source = context.getInputSourceData(0)?.previousNode;
	if (!source || typeof context.getParentNodes !== 'function') return undefined;
	return context.getParentNodes(nodeOf(context).name, { connectionType: NodeConnectionTypes.Main, depth: 1, includeNodeParameters }).find((node) => node.name === source);
}

/**
 * Whether this run's input comes straight from an MCP Approval node of this package: n8n records
 * the node that produced it, which no item can choose. A decision item counts only then.
 */
export function inputFromApprovalNode(context: IExecuteFunctions): boolean {
	try {
		const type = approvalNodeType(context);
		return type !== undefined && inputSourceParent(context)?.type === type;
	} catch {
		return false;
	}
}

/**
 * Whether an MCP Approval node of this package follows this node (on any output, disabled ones
 * too: n8n marks the node that waited as disabled when it resumes). Only then can an execution
 * pause for an MCP task: that node holds the wait. A failed lookup says no (the node then waits in place).
 */
export function approvalNodeFollows(context: IExecuteFunctions): boolean {
	try {
		const type = approvalNodeType(context);
		if (!type || typeof context.getChildNodes !== 'function') return false;
		return context.getChildNodes(nodeOf(context).name).some((node) => node.type === type);
	} catch {
		return false;
	}
}
