import { mkdirSync } from 'node:fs';
import { scanLogDir } from './log-scan';

/**
 * Runs once before the suite: checks the Node version. With `HRX_TEST_LOG_DIR` set, the returned
 * teardown scans every app log line the suite wrote (test/support/log-scan.ts) and fails the run
 * on a hit.
 */
export default function setup(): (() => void) | undefined {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`hrx needs Node.js 22+, running ${process.versions.node}`);
  const dir = process.env.HRX_TEST_LOG_DIR;
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  return () => {
    const hits = scanLogDir(dir);
    if (hits.length > 0) throw new Error(`log scan: ${hits.length} line(s) hold what must never be logged:\n${hits.slice(0, 50).join('\n')}`);
    process.stdout.write(`log scan: no PII, key or SQL pattern in the app logs of ${dir}\n`);
  };
}
