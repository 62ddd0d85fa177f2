/**
 * The worker's CPU per employee in a full sync, stage by stage, without the database or the
 * network (docs/benchmarks.md "full_sync"): N employees of the reference simulator as one JSON
 * page, then parse, map (the reference connector), normalize, count coverage and encode (both
 * envelopes), each timed with `process.cpuUsage` over three rounds (the last is warm).
 * Run: `npx tsx bench/sync-stages.ts [N]` (default 10,000).
 */
import { randomUUID } from 'node:crypto';
import { createFieldCipher } from '../src/crypto/field-cipher';
import { createCoverageCounter } from '../src/domain/coverage';
import { normalizeRecord, type EmployeeRecord, type PartialEmployeeRecord } from '../src/domain/record';
import { encodeEmployee } from '../src/employees/codec';
import { mapEmployee } from '../src/hrms/reference/mapping';
import { generateEmployee } from '../src/hrms/sim/data';

const n = Number(process.argv[2] ?? 10_000);
const cipher = createFieldCipher(Buffer.alloc(32, 7));
const body = JSON.stringify({ employees: Array.from({ length: n }, (_, i) => generateEmployee('hrx-bench', i + 1)) });

/** Runs `f` once and prints its CPU (user + system) per employee, µs. */
function timed<T>(name: string, f: () => T): T {
  const c0 = process.cpuUsage();
  const out = f();
  const c = process.cpuUsage(c0);
  console.log(`  ${name.padEnd(10)} ${((c.user + c.system) / n).toFixed(1).padStart(7)} µs/employee`);
  return out;
}

for (let round = 1; round <= 3; round++) {
  console.log(`round ${round} (${n} employees, ${Math.round(body.length / n)} bytes each as JSON):`);
  const page = timed('parse', () => JSON.parse(body) as { employees: unknown[] });
  const partials: PartialEmployeeRecord[] = timed('map', () => page.employees.map((e) => mapEmployee(e)));
  const records: EmployeeRecord[] = timed('normalize', () => partials.map((p) => normalizeRecord(p, randomUUID())));
  timed('coverage', () => createCoverageCounter().add(records));
  timed('encode', () => records.map((r) => encodeEmployee(r, 1, cipher)));
}
