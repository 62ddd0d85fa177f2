import { mkdirSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { scanLogDir } from './log-scan';
import { describeServices, startTestServices, type TestServices } from './services';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL and Redis of this run (test/support/services.ts); the harness reads it. */
    testServices: TestServices;
  }
}

/**
 * Runs once before the suite: checks the Node version, picks the PostgreSQL and Redis of the run
 * (DATABASE_URL/REDIS_URL, else Testcontainers when an engine is reachable, else the machine's
 * 127.0.0.1 services; test/support/services.ts), says which, and hands them to the tests. The
 * returned teardown removes the containers it started and, with `HRX_TEST_LOG_DIR` set, scans
 * every app log line the suite wrote (test/support/log-scan.ts), failing the run on a hit.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`hrx needs Node.js 22+, running ${process.versions.node}`);
  const { services, stop } = await startTestServices();
  process.stdout.write(`${describeServices(services)}\n`);
  project.provide('testServices', services);
  const dir = process.env.HRX_TEST_LOG_DIR;
  if (dir) mkdirSync(dir, { recursive: true });
  return async () => {
    await stop();
    if (!dir) return;
    const hits = scanLogDir(dir);
    if (hits.length > 0) throw new Error(`log scan: ${hits.length} line(s) hold what must never be logged:\n${hits.slice(0, 50).join('\n')}`);
    process.stdout.write(`log scan: no PII, key or SQL pattern in the app logs of ${dir}\n`);
  };
}
