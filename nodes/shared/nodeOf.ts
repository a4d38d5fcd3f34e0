import type { INode } from 'n8n-workflow';

/** Any n8n function context (execute, supply data, load options): each has getNode. */
type WithNode = { getNode(): INode };

const nodes = new WeakMap<WithNode, INode>();

/**
 * The node of a context, copied once per node run. n8n's getNode() deep-copies the node with all
 * its parameters on every call (about 20 µs for an MCP node), and a warm one-item execution read it
 * six times. The copy is read-only for callers: names, credential ids and raw parameters. Errors
 * still take getNode() (n8n keeps the node it is given in the error).
 */
export function nodeOf(context: WithNode): INode {
	let node = nodes.get(context);
	if (!node) {
		node = context.getNode();
		nodes.set(context, node);
	}
	return node;
}
