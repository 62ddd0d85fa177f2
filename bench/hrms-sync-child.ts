/**
 * Child of `bench/hrms-sync.ts`: lists every employee of one HRMS (or those changed since an
 * instant) through its connector, as a sync worker would, and prints one JSON line with the
 * figures. Run as `node --import tsx bench/hrms-sync-child.ts <json args>`; its own VmHWM is the
 * connector side's peak RSS (the simulator runs in the parent).
 */
import { readFileSync } from 'node:fs';
import { connectorFor } from '../src/hrms/registry';
import type { HrmsApiConfig, HrmsCredentials } from '../src/hrms/connector';

interface Args {
  hrmsId: string;
  credentials: HrmsCredentials;
  apiConfigs: HrmsApiConfig[];
  pageSize: number;
  sinceMs?: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const definition = connectorFor(args.hrmsId);
if (!definition) throw new Error(`unknown hrms_id ${args.hrmsId}`);
const connector = definition.create(
  { credentials: args.credentials, apiConfigs: args.apiConfigs },
  { pageSize: args.pageSize, retries: 8, minRetryDelayMs: 50 },
);
const hwm = (): number => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
/** Live heap after a full collection, MiB (the child runs with --expose-gc): what the listing keeps, unlike RSS, which also holds garbage not yet collected. */
const liveHeap = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const idle = hwm();
const heap0 = liveHeap();
let heapMax = 0;
const t0 = performance.now();
let employees = 0,
  pages = 0;
for await (const page of connector.listEmployees(args.sinceMs !== undefined ? { since: new Date(args.sinceMs) } : {})) {
  pages += 1;
  employees += page.employees.length;
  // Sampled every tenth page: a full collection per page would dominate the wall time.
  if (pages % 10 === 0) heapMax = Math.max(heapMax, liveHeap() - heap0);
}
process.stdout.write(
  `${JSON.stringify({ employees, pages, wallMs: Math.round(performance.now() - t0), idleHwmMiB: Math.round(idle * 10) / 10, peakRssMiB: Math.round(hwm() * 10) / 10, retainedHeapMiB: Math.round(heapMax * 10) / 10 })}\n`,
);
