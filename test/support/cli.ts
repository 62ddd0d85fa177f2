/**
 * Runs the real `hrx` executable (bin/hrx.js on this Node) as a child process.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const HRX_BIN = path.resolve(import.meta.dirname, '../../bin/hrx.js');

/** Runs `hrx ...args --json` with `env` and returns the one JSON object it printed. */
export async function hrxJson(args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await run(process.execPath, [HRX_BIN, ...args, '--json'], {
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one JSON line, got: ${stdout}`);
  return JSON.parse(lines[0]!);
}

/** How one run of `hrx` ended: its exit code, its output and its wall time (ms). */
export interface HrxRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `hrx ...args` with `env` (added to the test's environment) and resolves however it exits. */
export function runHrx(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<HrxRun> {
  const t = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [HRX_BIN, ...args],
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, ms: Date.now() - t });
      },
    );
  });
}
