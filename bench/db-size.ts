/**
 * How much room the employees of an org take in PostgreSQL (docs/at-rest.md: every value
 * in an envelope costs more than JSONB, which PostgreSQL compresses). Seeds `--employees`
 * employees (default 10,000) from the reference HRMS simulator through a real sync (the store's
 * own write path), vacuums, and prints the size of the `employees` table (heap, TOAST, indexes)
 * and of every table of the bench schema together, in bytes and per employee.
 *
 *   npx tsx bench/db-size.ts [--employees 10000]
 */
import { parseArgs } from 'node:util';
import { dbQuery } from '../test/support/db';
import { benchEnv, openBenchContext, runCleanups, seedEmployees, seedOrgs } from './lib';

const { values } = parseArgs({ options: { employees: { type: 'string', default: '10000' } } });
const n = Number(values.employees);

async function main(): Promise<void> {
  const ctx = await openBenchContext(benchEnv());
  const { client } = await seedOrgs(ctx);
  const { seedSyncMs } = await seedEmployees(ctx, client.id, n);
  // Settled sizes: no dead row versions, the visibility map and statistics up to date.
  await dbQuery(ctx, 'vacuum (full, analyze) employees');
  const e = (
    await dbQuery<{ total: string; heap: string; toast: string; indexes: string; schema: string }>(
      ctx,
      `select pg_total_relation_size('employees')::bigint as total, pg_relation_size('employees')::bigint as heap,
      coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0)::bigint as toast, pg_indexes_size('employees')::bigint as indexes,
      (select sum(pg_total_relation_size(c.oid))::bigint from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r') as schema
    from pg_class where oid = 'employees'::regclass`,
    )
  ).rows[0]!;
  const mib = (b: string) => `${(Number(b) / 2 ** 20).toFixed(2)} MiB`;
  const per = (b: string) => `${Math.round(Number(b) / n)} B/employee`;
  const out = {
    employees: n,
    seedSyncMs,
    bytes: { employeesTotal: Number(e.total), heap: Number(e.heap), toast: Number(e.toast), indexes: Number(e.indexes), schema: Number(e.schema) },
  };
  process.stdout.write(
    `db size for ${n} employees (seeded by a sync in ${seedSyncMs} ms):\n` +
      `  employees total ${mib(e.total)} (${per(e.total)}): heap ${mib(e.heap)}, TOAST ${mib(e.toast)}, indexes ${mib(e.indexes)}\n` +
      `  every table of the schema ${mib(e.schema)} (${per(e.schema)})\n${JSON.stringify(out)}\n`,
  );
}

main().then(runCleanups, async (err: unknown) => {
  process.stderr.write(`db-size: ${(err as Error).stack ?? String(err)}\n`);
  await runCleanups();
  process.exitCode = 1;
});
