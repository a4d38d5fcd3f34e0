/**
 * Nothing outlives the host: a process holding pooled stdio servers (test/fixtures/pool-host.js)
 * leaves none behind when it exits (n8n calls process.exit after its shutdown hooks), when it is
 * sent SIGTERM with nobody else listening (the default action still ends it), and when its own
 * SIGTERM handler ends it later (as n8n's does).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { STDIO_ENABLE_VARIABLE } from '../../lib/mcp/stdioPolicy';
import { FIXTURES_DIR, isRunning, readPidFile, waitForGone } from '../support/servers';

let workDir: string;
beforeAll(() => {
	workDir = mkdtempSync(path.join(tmpdir(), 'mcp-pool-host-'));
});
afterAll(() => {
	rmSync(workDir, { recursive: true, force: true });
});

async function startHost(end: 'exit' | 'exit-while-starting' | 'signal' | 'hooked' | 'hooked-first', pidFile: string) {
	const child = spawn(process.execPath, [path.join(FIXTURES_DIR, 'pool-host.js')], {
		env: { ...process.env, [STDIO_ENABLE_VARIABLE]: 'true', POOL_PID_FILE: pidFile, POOL_HOST_END: end },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stderr = '';
	child.stderr.on('data', (chunk) => (stderr += chunk));
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	const serverPid = await new Promise<number>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (chunk) => {
			out += chunk;
			const match = /ready (\d+)/.exec(out);
			if (match) resolve(Number(match[1]));
		});
		void exited.then(() => reject(new Error(`host exited before it was ready: ${stderr}`)));
	});
	return { child, serverPid, exited };
}

describe('pooled servers and the host process', () => {
	it('process.exit kills the pooled server', async () => {
		const pidFile = path.join(workDir, 'exit.txt');
		const { serverPid, exited } = await startHost('exit', pidFile);
		expect(await exited).toEqual({ code: 0, signal: null });
		expect(await waitForGone([serverPid], 3000)).toEqual([]);
		expect(readPidFile(pidFile)).toEqual([serverPid]);
	});

	it('process.exit while a server is still starting (in no pool yet) kills it too', async () => {
		const pidFile = path.join(workDir, 'exit-while-starting.txt');
		const { serverPid, exited } = await startHost('exit-while-starting', pidFile);
		expect(await exited).toEqual({ code: 0, signal: null });
		expect(await waitForGone([serverPid], 3000)).toEqual([]);
	});

	it('SIGTERM with nobody else listening still ends the host, and the server with it', async () => {
		const pidFile = path.join(workDir, 'signal.txt');
		const { child, serverPid, exited } = await startHost('signal', pidFile);
		expect(isRunning(serverPid)).toBe(true);
		child.kill('SIGTERM');
		expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
		expect(await waitForGone([serverPid], 3000)).toEqual([]);
	});

	it('SIGTERM handled by the host (as n8n does): the host decides when to exit, the server is gone after', async () => {
		for (const end of ['hooked', 'hooked-first'] as const) {
			// 'hooked-first': the host's listener was registered before the pool's, as n8n registers its own at start.
			const pidFile = path.join(workDir, `${end}.txt`);
			const { child, serverPid, exited } = await startHost(end, pidFile);
			child.kill('SIGTERM');
			expect({ end, ...(await exited) }).toEqual({ end, code: 0, signal: null });
			expect(await waitForGone([serverPid], 3000)).toEqual([]);
		}
	});
});
