import type { ISupplyDataFunctions } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { ToolCallLog } from '../../lib/agent/callLog';

type LoggingContext = Pick<ISupplyDataFunctions, 'addInputData' | 'addOutputData' | 'getNode'>;

/**
 * A ToolCallLog that records each call as a run of the sub-node in the execution view, the way
 * n8n's own tools do (`logWrapper`): the call's tool and arguments as input, its result (or its
 * error, which marks that run red) as output. n8n measures the duration between the two. For the
 * MCP Server sub-node: `callLog: subNodeCallLog(this)` in supplyData.
 */
export function subNodeCallLog(context: LoggingContext): ToolCallLog {
	return {
		start(call) {
			const { index } = context.addInputData(NodeConnectionTypes.AiTool, [[{ json: { tool: call.tool, arguments: call.arguments as never } }]]);
			return (end) => {
				if (end.isError) {
					context.addOutputData(NodeConnectionTypes.AiTool, index, new NodeOperationError(context.getNode(), end.text, { description: `Tool "${call.tool}", after ${end.durationMs} ms` }));
					return;
				}
				const response = end.waitingForTask
					? 'The call runs as an MCP task on the server; the run waits for it and continues when it ends.'
					: end.waitingForInput
						? 'The server asked a person for input; the call waits for it on the review page.'
						: end.text;
				const json = { tool: call.tool, response, durationMs: end.durationMs };
				context.addOutputData(NodeConnectionTypes.AiTool, index, [[{ json }]]);
			};
		},
	};
}
