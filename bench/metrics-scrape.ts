/**
 * How long does a `/metrics` scrape take on a deployment of `--orgs` client orgs (default 1,000;
 * docs/operations.md)? Seeds a fresh schema and Redis prefix: one vendor and `--orgs` client orgs
 * (the first through the real service, the others copies of its row), each with an approved
 * connection and its daily sync scheduler in BullMQ (one delayed job each), `--runs` sync runs per org (a month of daily syncs: one in ten
 * failed) and `--deliveries` event deliveries per org (in SQL, as the workers would leave them).
 * Then starts `hrx serve` as a child process and scrapes `/metrics` `--scrapes` times in a row,
 * printing the wall time per scrape (p50, p95, max), the size of the answer and its samples.
 * The scrape reads the pending deliveries (one count in PostgreSQL), the workers' counters (one
 * Redis hash) and the four queues' counts (sync, events, housekeeping, retention), so its cost
 * grows with the jobs and pending deliveries kept, not with the requests served.
 *
 *   npx tsx bench/metrics-scrape.ts [--orgs 1000] [--runs 30] [--deliveries 20] [--scrapes 30]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { bucketIndex } from '../src/ops/counters';
import { dbQuery } from '../test/support/db';
import { benchEnv, freePort, openBenchContext, round, runCleanups, seedClientOrgs, spawnNode, waitForHttp } from './lib';

const { values } = parseArgs({
  options: {
    orgs: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '30' },
    deliveries: { type: 'string', default: '20' },
    scrapes: { type: 'string', default: '30' },
  },
});
const orgs = Number(values.orgs);
const runsPerOrg = Number(values.runs);
const deliveriesPerOrg = Number(values.deliveries);
const scrapes = Number(values.scrapes);
const log = (s: string) => process.stdout.write(s + '\n');
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function main(): Promise<void> {
  const env = { ...benchEnv(), HRX_ADMIN_TOKEN: randomBytes(24).toString('base64url') };
  const ctx = await openBenchContext(env);
  const t0 = performance.now();
  const vendor = await ctx.services.orgs.create({ name: 'Bench Vendor', vendor: true, client: false });
  const clientIds = await seedClientOrgs(ctx, orgs, 'Bench Client');
  await dbQuery(
    ctx,
    `
    insert into connections (id, vendor_org_id, client_org_id, status, consent_required)
    select gen_random_uuid(), v.id, o, 'approved', false from orgs v, unnest($2::int[]) o where v.uuid = $1`,
    [vendor.org.uuid, clientIds],
  );
  for (const id of clientIds) await ctx.syncQueue.setSchedule(id, 86_400_000);
  log(`seeded ${orgs} client orgs with approved connections and daily sync schedulers in ${round((performance.now() - t0) / 1000)} s`);

  // A month of daily runs per org, one in ten failed, durations 2 s to ~10 min.
  await dbQuery(
    ctx,
    `
    insert into sync_runs (id, org_id, trigger, status, started_at, finished_at, pages, employees_seen, employees_removed, error)
    select gen_random_uuid(), o, 'schedule', case when d % 10 = 0 then 'failed' else 'succeeded' end,
           now() - make_interval(days => d), now() - make_interval(days => d) + make_interval(secs => 2 + (o * 7 + d * 13) % 600),
           1 + (o % 5), 100 + (o % 400), d % 3, case when d % 10 = 0 then 'unavailable: the HRMS did not answer' end
      from unnest($1::int[]) o, generate_series(1, $2::int) d`,
    [clientIds, runsPerOrg],
  );
  const { id: vendorId } = (await dbQuery<{ id: number }>(ctx, `select id from orgs where uuid = $1`, [vendor.org.uuid])).rows[0]!;
  const { id: endpoint } = (
    await dbQuery<{ id: string }>(
      ctx,
      `
    insert into event_endpoints (id, org_id, url, event_types, secret_enc) values (gen_random_uuid(), $1, 'https://hooks.example.com/hrx', '{}', 'x')
    returning id`,
      [vendorId],
    )
  ).rows[0]!;
  await dbQuery(
    ctx,
    `
    insert into events (id, type, vendor_org_id, client_org_id, payload)
    select 'evt_' || o || '_' || d, 'sync.completed', $1, o, '{}' from unnest($2::int[]) o, generate_series(1, $3::int) d`,
    [vendorId, clientIds, deliveriesPerOrg],
  );
  await dbQuery(
    ctx,
    `
    insert into event_deliveries (id, event_id, endpoint_id, status, attempts, finished_at)
    select gen_random_uuid(), e.id, $1, case when random() < 0.97 then 'delivered' when random() < 0.66 then 'failed' else 'pending' end, 1, now()
      from events e`,
    [endpoint],
  );
  await dbQuery(ctx, 'analyze');
  // What the workers would have counted for these rows, written in one pipeline (grouped by
  // whole-second duration: the seeded durations are whole seconds).
  const key = `${ctx.config.HRX_REDIS_PREFIX}:metrics:work`;
  const pipe = ctx.requestRedis.pipeline();
  const grouped = (
    await dbQuery<{ status: string; d: number; n: number; seen: number; removed: number | null }>(
      ctx,
      `
    select status, extract(epoch from finished_at - started_at)::float8 as d, count(*)::int as n,
           sum(employees_seen)::float8 as seen, sum(employees_removed) filter (where status = 'succeeded')::float8 as removed
      from sync_runs group by 1, 2`,
    )
  ).rows;
  for (const g of grouped) {
    pipe
      .hincrby(key, `sync:${g.status}:runs`, g.n)
      .hincrbyfloat(key, `sync:${g.status}:seconds`, g.d * g.n)
      .hincrby(key, `sync:${g.status}:bucket:${bucketIndex(g.d)}`, g.n)
      .hincrby(key, 'sync:employees', g.seen)
      .hincrby(key, 'sync:removed', g.removed ?? 0);
  }
  for (const r of (
    await dbQuery<{ status: string; n: number }>(ctx, `select status, count(*)::int as n from event_deliveries where status <> 'pending' group by status`)
  ).rows) {
    pipe.hincrby(key, `deliveries:${r.status}`, r.n);
  }
  await pipe.exec();
  const counts = (
    await dbQuery<{ runs: number; deliveries: number }>(
      ctx,
      `select (select count(*)::int from sync_runs) as runs, (select count(*)::int from event_deliveries) as deliveries`,
    )
  ).rows[0]!;
  log(`seeded ${counts.runs} sync runs and ${counts.deliveries} event deliveries`);

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawnNode('hrx', ['bin/hrx.js', 'serve'], { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' });
  await waitForHttp(`${origin}/healthz`, child, 90_000);
  const headers = { authorization: `Bearer ${env.HRX_ADMIN_TOKEN}` };
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < scrapes + 1; i++) {
    const t = performance.now();
    const res = await fetch(`${origin}/metrics`, { headers });
    body = await res.text();
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${body.slice(0, 300)}`);
    // The first scrape warms the pool and the plans up; it is not counted.
    if (i > 0) times.push(performance.now() - t);
  }
  await child.stop();
  times.sort((a, b) => a - b);
  // The two scrape-time sources on their own, from this process (the same queries and counts).
  const part = async (fn: () => Promise<unknown>): Promise<number> => {
    const ms: number[] = [];
    for (let i = 0; i < 11; i++) {
      const t = performance.now();
      await fn();
      if (i > 0) ms.push(performance.now() - t);
    }
    return round(ms.sort((a, b) => a - b)[5]!);
  };
  const pendingMs = await part(() => ctx.ops.store.pendingDeliveries());
  const countersMs = await part(() => ctx.ops.counters.read());
  const queuesMs = await part(() => Promise.all(ctx.ops.queues.map((q) => q.getJobCounts())));
  const samples = body.split('\n').filter((l) => l && !l.startsWith('#'));
  const line = (name: string) => samples.filter((l) => l.startsWith(name)).join('  ');
  log(`\n/metrics at ${orgs} orgs (${counts.runs} sync runs, ${counts.deliveries} deliveries, ${orgs} delayed sync jobs), ${scrapes} scrapes in a row:`);
  log(
    `  p50 ${round(pct(times, 0.5))} ms   p95 ${round(pct(times, 0.95))} ms   max ${round(times.at(-1)!)} ms   ${Buffer.byteLength(body)} B, ${samples.length} samples`,
  );
  log(
    `  the sources on their own (medians): workers' counters ${countersMs} ms, BullMQ counts of the ${ctx.ops.queues.length} queues (${ctx.ops.queues.map((q) => q.name).join(', ')}) ${queuesMs} ms, pending deliveries ${pendingMs} ms`,
  );
  log(`  ${line('hrx_sync_runs_total')}`);
  log(`  ${line('hrx_queue_jobs{queue="sync",state="delayed"}')}   ${line('hrx_metrics_source_up')}`);
}

main().then(
  () => runCleanups(),
  async (err: unknown) => {
    process.stderr.write(`metrics-scrape failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    await runCleanups();
    process.exitCode = 1;
  },
);
