// The pure part of the task-wait benchmark (bench/lib/taskWaitStats.js, bench/lib/taskWaitReport.js):
// /proc stat parsing, CPU of a process tree, the task server's log, n8n's time stamps, windows and latency.
const stats = require('../../bench/lib/taskWaitStats');
const { analyseTaskWait, renderTaskWait } = require('../../bench/lib/taskWaitReport');

/** A /proc/<pid>/stat line with the given command and CPU ticks (fields as in proc(5)). */
function statLine(pid: number, comm: string, ppid: number, utime: number, stime: number, cutime = 0, cstime = 0): string {
	const rest = ['S', ppid, pid, pid, 0, -1, 4194560, 100, 0, 0, 0, utime, stime, cutime, cstime, 20, 0, 11, 0, 12345, 1000000, 500];
	return `${pid} (${comm}) ${rest.join(' ')}\n`;
}

describe('task-wait benchmark statistics', () => {
	it('parses a /proc stat line, also with spaces and parentheses in the command', () => {
		expect(stats.parseProcStat(statLine(42, 'node', 1, 150, 30, 7, 3))).toEqual({ pid: 42, comm: 'node', state: 'S', ppid: 1, utime: 150, stime: 30, cutime: 7, cstime: 3 });
		const odd = stats.parseProcStat(statLine(43, 'n8n (task) runner', 42, 5, 6));
		expect([odd.comm, odd.ppid, odd.utime, odd.stime]).toEqual(['n8n (task) runner', 42, 5, 6]);
		expect(() => stats.parseProcStat('garbage')).toThrow(/not a \/proc stat line/);
	});

	it("sums the CPU of a process, its descendants and what they reaped, not other processes'", () => {
		const all = [statLine(10, 'n8n', 1, 100, 50, 20, 10), statLine(11, 'runner', 10, 30, 10), statLine(12, 'grandchild', 11, 1, 1, 2, 0), statLine(20, 'other', 1, 999, 999)].map(stats.parseProcStat);
		expect([...stats.treePids(all, 10)].sort()).toEqual([10, 11, 12]);
		// (100+50+20+10) + (30+10) + (1+1+2) ticks at 100 per second
		expect(stats.treeCpuMs(all, 10, 100)).toBe(2240);
		expect(stats.treeCpuMs(all, 99, 100)).toBe(0);
	});

	it('reads VmRSS in bytes', () => {
		expect(stats.parseVmRss('Name:\tnode\nVmRSS:\t  204800 kB\nVmHWM:\t1 kB\n')).toBe(204800 * 1024);
		expect(stats.parseVmRss('Name:\tkthread\n')).toBeNaN();
	});

	it("reads the task server's completion and delivery lines, keeping the other lines alone", () => {
		const log = ['listening on http://127.0.0.1:1/mcp', 'polled task-1 1764680000100', 'polled task-10 1764680000110', 'completed task-1 1764680000123', 'polled task-1 1764680000200', 'delivered task-1 timed_task', 'completed task-2 1764680005000', 'completed task-1 1764689999999', 'delivered task-10 timed_task'].join('\n');
		const completions = stats.parseCompletions(log);
		expect(completions.get('task-1')).toBe(1764680000123);
		expect(completions.get('task-2')).toBe(1764680005000);
		expect(completions.size).toBe(2);
		expect(stats.countDeliveries(log, 'task-1')).toBe(1);
		expect(stats.countDeliveries(log, 'task-3')).toBe(0);
		expect(stats.pollTimes(log, 'task-1')).toEqual([1764680000100, 1764680000200]);
	});

	it("reads n8n's SQLite time stamps as UTC", () => {
		expect(stats.parseDbTime('2026-12-02 15:00:01.250')).toBe(Date.UTC(2026, 11, 2, 15, 0, 1, 250));
		expect(stats.parseDbTime('2026-12-02T15:00:01.250Z')).toBe(Date.UTC(2026, 11, 2, 15, 0, 1, 250));
		expect(stats.parseDbTime('2026-12-02T16:00:01.250+01:00')).toBe(Date.UTC(2026, 11, 2, 15, 0, 1, 250));
		expect(stats.parseDbTime(null)).toBeNaN();
		expect(stats.addedLatencyMs(1000, 1750)).toBe(750);
		expect(stats.addedLatencyMs(undefined, 1750)).toBeNaN();
	});

	it('takes a window of samples: CPU per minute over its span, median RSS, intervals without CPU', () => {
		const samples = [0, 1, 2, 3, 4, 5].map((i) => ({ t: 1000 * i, cpuMs: [0, 0, 10, 10, 10, 40][i], rss: [5, 100, 300, 200, 400, 9][i] }));
		const w = stats.windowStats(samples, 1000, 4000);
		expect([w.samples, w.spanMs, w.cpuMs, w.rssMedian]).toEqual([4, 3000, 10, 250]);
		expect(w.cpuMsPerMinute).toBeCloseTo(200);
		expect(w.intervalCpuMs).toEqual([10, 0, 0]);
		expect(w.idleIntervalShare).toBeCloseTo(2 / 3);
		expect(stats.windowStats(samples, 10_000, 20_000).cpuMsPerMinute).toBeNaN();
	});

	it('derives the report from the samples and time stamps alone', () => {
		const MiB = 1024 * 1024;
		// One sample a second: 0-9 s idle, 10-29 s the Wait node waits, 30-39 s idle, 40-59 s the task waits.
		// RSS drifts up by 10 MiB between the phases; each execution adds 1 and 1.5 MiB over the idle before it.
		const rssAt = (i: number) => (i < 10 ? 200 : i < 30 ? 201 : i < 40 ? 210 : 211.5) * MiB;
		const rows = Array.from({ length: 60 }, (_, i) => ({ t: i * 1000, cpuMs: i < 40 ? i * 2 : 80 + (i - 40) * 3, rss: rssAt(i) }));
		// As the results keep them: one array per column.
		const samples = { t: rows.map((r) => r.t), cpuMs: rows.map((r) => r.cpuMs), rss: rows.map((r) => r.rss), pids: rows.map(() => 2) };
		expect(stats.sampleRows(samples)).toEqual(rows);
		expect(stats.sampleRows(rows)).toBe(rows);
		const raw = {
			taskSeconds: 90,
			taskPauseAfterSeconds: 10,
			fixturePollIntervalMs: 1000,
			sampleIntervalMs: 1000,
			taskWatchInBuild: true,
			order: ['idleBeforeWaitNode', 'waitNode', 'idleBeforeTask', 'task'],
			samples,
			phases: {
				warmUp: { task: { endedAt: 1000, finishedAt: 1600 }, waitNode: {} },
				idleBeforeWaitNode: { fromMs: 0, toMs: 9000 },
				waitNode: { window: { fromMs: 10_000, toMs: 29_000 }, endedAt: 29_000, finishedAt: 29_040, stoppedAt: 29_060 },
				idleBeforeTask: { fromMs: 30_000, toMs: 39_000 },
				task: { window: { fromMs: 40_000, toMs: 59_000 }, inPlaceWindow: { fromMs: 38_000, toMs: 40_000 }, endedAt: 50_000, finishedAt: 51_200, stoppedAt: 51_300, nodeRuns: { 'MCP Agent': 3, Approval: 2 }, deliveries: 1, polls: [39_500, 41_000, 45_000, 50_000, 58_000, 60_000] },
			},
		};
		const d = analyseTaskWait(raw);
		expect(d.cpuMsPerMinute.waitNode).toBeCloseTo(120);
		expect(d.cpuMsPerMinute.task).toBeCloseTo(180);
		expect(d.cpuMsPerMinute.taskMinusWaitNode).toBeCloseTo(60);
		expect(d.rss.rawTaskMinusWaitNode).toBe(10.5 * MiB);
		expect([d.rss.waitNodeOverIdle, d.rss.taskOverIdle, d.rss.taskMinusWaitNode]).toEqual([1 * MiB, 1.5 * MiB, 0.5 * MiB]);
		expect(d.rss.met).toBe(true);
		expect(d.latency.task).toMatchObject({ toSinkMs: 1200, toStoppedAtMs: 1300, targetMs: 1000, met: false });
		expect(d.latency.waitNode.toSinkMs).toBe(40);
		expect(d.latency.warmUpTask).toBe(600);
		expect(d.taskChecksAfterWake).toBe(2);
		expect(d.samples).toBe(60);
		// 4 polls inside 40-59 s; (180 - 120) ms per minute over 19 s = 19 ms above the Wait node.
		expect(d.pollsInWindow).toBe(4);
		expect(d.extraCpuMsPerPoll).toBeCloseTo(19 / 4);
		const markdown = renderTaskWait({ taskWait: raw });
		expect(markdown).toContain('shortened with BENCH_TASK_SECONDS');
		expect(markdown).toContain("| 1200 ms (to n8n's stoppedAt: 1300 ms) | missed |");
		expect(markdown).toContain('| 1.50 − 1.00 = 0.50 MiB (medians without the idle baselines: 10.50 MiB) | met |');
		expect(renderTaskWait({})).toBe('');
	});

	it('the memory target is a cost: a wait lighter than the Wait node is met, one more than 1 MiB heavier is missed', () => {
		const MiB = 1024 * 1024;
		const withTaskRss = (taskMiB: number) => {
			const rssAt = (i: number) => (i < 10 ? 200 : i < 30 ? 206 : i < 40 ? 200 : taskMiB) * MiB;
			const rows = Array.from({ length: 60 }, (_, i) => ({ t: i * 1000, cpuMs: i, rss: rssAt(i) }));
			return analyseTaskWait({
				taskSeconds: 600, taskPauseAfterSeconds: 60, fixturePollIntervalMs: 1000, sampleIntervalMs: 1000, taskWatchInBuild: true, order: [], samples: rows,
				phases: {
					idleBeforeWaitNode: { fromMs: 0, toMs: 9000 },
					waitNode: { window: { fromMs: 10_000, toMs: 29_000 }, endedAt: 29_000, finishedAt: 29_040 },
					idleBeforeTask: { fromMs: 30_000, toMs: 39_000 },
					task: { window: { fromMs: 40_000, toMs: 59_000 }, inPlaceWindow: { fromMs: 38_000, toMs: 40_000 }, endedAt: 50_000, finishedAt: 50_500, polls: [] },
				},
			}).rss;
		};
		// The Wait node adds 6 MiB over its idle phase; a task that adds nothing is 6 MiB lighter.
		expect(withTaskRss(200)).toMatchObject({ taskMinusWaitNode: -6 * MiB, met: true });
		expect(withTaskRss(207)).toMatchObject({ taskMinusWaitNode: 1 * MiB, met: true });
		expect(withTaskRss(208)).toMatchObject({ taskMinusWaitNode: 2 * MiB, met: false });
	});
});
