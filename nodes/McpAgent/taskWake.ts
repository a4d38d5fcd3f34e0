import type { IExecuteFunctions } from 'n8n-workflow';
import { executionIdOf, followPausedTasks } from '../shared/pausedExecution';
import { AGENT_DEFAULTS } from '../../lib/agent/defaults';
import type { ServerHandle } from '../../lib/agent/serverHandle';
import type { HandedOut } from './pauseForReview';

/**
 * The tasks of runs that paused for them are followed on in this process (lib/agent/taskWatch.ts),
 * and the execution woken as soon as one ends; the wait timer and the check stand in when this
 * process is gone or cannot reach the resume URL.
 */
export function watchPausedTasks(context: IExecuteFunctions, handedOut: HandedOut[], handles: ServerHandle[], options: { toolTimeout?: number }): void {
	const executionId = executionIdOf(context);
	if (!executionId) return;
	const configs = new Map(handles.map((handle) => [handle.name, handle.config]));
	for (const { taskWake } of handedOut) {
		if (!taskWake) continue;
		const tasks = taskWake.calls.flatMap((call) => {
			const config = call.tool && configs.get(call.tool.serverId);
			return config && call.task && call.tool ? [{ server: call.tool.serverId, config, tool: call.tool.mcpName, task: call.task }] : [];
		});
		followPausedTasks(executionId, taskWake, tasks, options.toolTimeout ?? AGENT_DEFAULTS.toolTimeoutMs);
	}
}

