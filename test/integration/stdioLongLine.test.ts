/**
 * A local server that writes a stdout line longer than any message we read (lib/mcp/
 * processStdioTransport.ts): it is stopped with an error that says so, and the line is not held
 * in memory. The limit is lowered for the test; in n8n it is 128 MB.
 */
import { ProcessStdioTransport } from '../../lib/mcp/processStdioTransport';
import { isRunning, waitForGone } from '../support/servers';

it('a line over the limit stops the server, saying why, without waiting for the line to end', async () => {
	// 4 MB without a newline, then it stays up (a server that would otherwise never be stopped).
	const script = "process.stdout.write('x'.repeat(4 * 1024 * 1024)); setInterval(() => undefined, 60000);";
	const transport = new ProcessStdioTransport({ command: process.execPath, args: ['-e', script], env: {}, maxLineChars: 1024 * 1024 });
	const errors: string[] = [];
	const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
	transport.onerror = (error) => errors.push(error.message);
	await transport.start();
	const pid = transport.pid as number;
	await closed;
	expect(errors[0]).toBe('the server wrote a line of more than 1 MB to stdout (a message too large to read), so it was stopped');
	expect(transport.exitDescription).toBe(errors[0]);
	expect(await waitForGone([pid], 5000)).toEqual([]);
	expect(isRunning(pid)).toBe(false);
});
