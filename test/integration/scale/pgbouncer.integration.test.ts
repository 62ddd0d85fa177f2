/**
 * hrx behind PgBouncer in transaction pooling (docs/operations.md "Scaling out"): a PgBouncer of
 * the test's own (pool_mode = transaction, 4 server connections) in front of the run's PostgreSQL;
 * hrx's API, sync worker and events worker use it as DATABASE_URL with
 * `HRX_DB_POOL_MODE=transaction`, on a schema of their own, and `migrate` runs through it too. Driven 16 requests at a time: plain reads, V2 reads, webhook
 * updates, syncs and their event deliveries, and a rate limit; every answer is what it is without
 * PgBouncer (no 500, no 503), and the settings hrx needs (`search_path`, `statement_timeout`) hold
 * inside every transaction although no server connection keeps them.
 */
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { execute } from '../../../src/db/tx';
import * as f from '../../support/factories';
import { call, DATABASE_URL, startSim, startTestApp, type TestApp } from '../../support/harness';
import { havePgBouncer, startPgBouncer, type PgBouncer } from '../../support/pgbouncer';
import { startReceiver, type Receiver } from '../../support/receiver';

const PARALLEL = 16;
const READS = 300;
const V2_READS = 12;
const UPDATES = 30;
const SYNCS = 12;
const LIMIT = 320;
const SHARED = ['name', 'pan', 'ctc_basic'];

let bouncer: PgBouncer | undefined;
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let rx: Receiver;
let client: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;
let v2: Awaited<ReturnType<typeof f.v2Vendor>>;
let v2Connection: string;
let syncOrgs: Awaited<ReturnType<typeof f.client>>[];
const simCreds = { clientId: 'pgb-client', clientSecret: 'pgb-secret-value' };

/** Runs `tasks` with at most `n` at a time; resolves with their results in order. */
async function inParallel<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: n }, lane));
  return out;
}

/** `{status: count}` of `statuses`, for assertions whose failure shows every answer at once. */
const tally = (statuses: (number | string)[]) => statuses.reduce<Record<string, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

const employeeId = (i: number) => `EMP${String((i % 50) + 1).padStart(5, '0')}`;
const read = (who: { apiKey: string; org: { uuid: string } }, i: number) =>
  call(`${app.url}/api/employee_details/${employeeId(i)}?org=${client.org.uuid}&vendor_org=${who.org.uuid}`, { headers: { username: who.apiKey } });

describe.skipIf(!havePgBouncer)('hrx behind PgBouncer in transaction pooling', () => {
  beforeAll(async () => {
    bouncer = await startPgBouncer(DATABASE_URL, { poolSize: 4 });
    sim = await startSim({ employees: 40, seed: 'pgbouncer', ...simCreds });
    rx = await startReceiver();
    app = await startTestApp({
      env: {
        DATABASE_URL: bouncer.url,
        HRX_DB_POOL_MODE: 'transaction',
        HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1',
        HRX_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        HRX_RATE_LIMIT_WINDOW_MS: '86400000', // one more request every 270 s: none while the test runs
      },
    });
    await app.startEventsWorker();
    client = await f.client(app.ctx);
    v = await f.vendor(app.ctx);
    await f.connection(app.ctx, v.org.uuid, client.org.uuid);
    await f.employees(
      app.ctx,
      client.org.id,
      Array.from({ length: 50 }, (_, i) => ({ employeeId: employeeId(i), name: `Person ${i + 1}` })),
    );
    v2 = await f.v2Vendor(app.ctx);
    v2Connection = (await f.connection(app.ctx, v2.org.uuid, client.org.uuid, { shared: SHARED })).id;
    await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/events'), events: ['sync.completed'] });
    syncOrgs = [];
    for (let i = 0; i < SYNCS; i++) {
      const c = await f.client(app.ctx);
      await f.hrmsAt(app.ctx, c.org.id, sim, simCreds);
      await f.connection(app.ctx, v.org.uuid, c.org.uuid);
      syncOrgs.push(c);
    }
    // Each first approval queued a sync, which the sync worker ran: its sync.completed came through the events worker.
    await rx.waitForCount('/events', SYNCS, 'sync.completed', 60_000);
  });
  afterAll(async () => {
    await app?.stop();
    await rx?.close();
    await sim?.close();
    await bouncer?.stop();
  });

  it('migrations ran through it, and each transaction sees the test schema and the request timeout', async () => {
    const settings = await app.ctx.db.orm.em
      .fork()
      .transactional((em) =>
        execute<{ schema: string; timeout: string }>(
          app.ctx.db.orm,
          `select current_schema() as schema, current_setting('statement_timeout') as timeout`,
          [],
          em,
        ),
      );
    expect(settings).toEqual([{ schema: app.config.HRX_DB_SCHEMA, timeout: '1500ms' }]);
    // A statement outside a transaction too, on whatever server connection PgBouncer picks.
    const outside = await Promise.all(Array.from({ length: 8 }, () => execute<{ schema: string }>(app.ctx.db.orm, `select current_schema() as schema`)));
    expect(outside.flat()).toEqual(Array(8).fill({ schema: app.config.HRX_DB_SCHEMA }));
  });

  it(`plain reads, V2 reads, webhook updates, syncs and a rate limit, ${PARALLEL} at a time: all answer as without PgBouncer`, async () => {
    const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
    const enc = jwks.keys.find((k) => k.use === 'enc')!;
    const limited = await f.vendor(app.ctx);
    await f.connection(app.ctx, limited.org.uuid, client.org.uuid);
    const reads = Array.from({ length: READS }, (_, i) => async () => {
      const res = await read(v, i);
      return res.status === 200 && res.body.data.employeeId !== employeeId(i) ? 'wrong employee' : res.status;
    });
    const v2Reads = Array.from({ length: V2_READS }, (_, i) => async () => {
      const payload = await buildEncryptedRequest({
        connectionId: v2Connection,
        employeeId: employeeId(i),
        vendorPrivateKey: v2.privateKey,
        vendorKid: v2.kid,
        servicePublicJwk: enc,
      });
      const res = await call(`${app.url}/api/external/employee/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: v2.authorization },
        body: JSON.stringify({ encrypted_payload: payload }),
      });
      if (res.status !== 200) return res.status;
      const opened = await openEncryptedResponse({ data: res.body.data, vendorPrivateKey: v2.privateKey, serviceSigningJwks: jwks });
      return (opened.employee as { name: string }).name === `Person ${(i % 50) + 1}` ? 200 : 'wrong employee';
    });
    const updates = Array.from({ length: UPDATES }, (_, i) => async () => {
      const res = await call(`${app.url}/api/webhook/v1/employee/update/`, {
        method: 'POST',
        headers: { authorization: f.appBasic(client), 'content-type': 'application/json' },
        body: JSON.stringify({ employeeId: `NEW${i}`, name: `Newcomer ${i}` }),
      });
      return res.status;
    });
    const syncs = syncOrgs.map((c, i) => async () => {
      const run = await app.ctx.services.sync.run(c.org.id, 'test', `pgbouncer-${i}`);
      return run.status === 'succeeded' && run.employees === 40 ? 200 : JSON.stringify(run);
    });
    const limitedReads = Array.from({ length: LIMIT + 10 }, (_, i) => async () => (await read(limited, i)).status);
    // Interleaved, so every kind of work meets every other at PgBouncer's 4 server connections.
    const all = [...reads, ...v2Reads, ...updates, ...syncs, ...limitedReads].map((task, i) => ({ task, key: (i * 7919) % 1000003 }));
    const kinds = new Map<() => Promise<number | string>, string>();
    for (const [name, list] of [
      ['read', reads],
      ['v2', v2Reads],
      ['update', updates],
      ['sync', syncs],
      ['limited', limitedReads],
    ] as const)
      for (const t of list) kinds.set(t, name);
    all.sort((a, b) => a.key - b.key);
    const results = await inParallel(
      PARALLEL,
      all.map(({ task }) => async () => ({ kind: kinds.get(task)!, status: await task().catch((err: unknown) => `threw ${String(err)}`) })),
    );
    const of = (kind: string) => tally(results.filter((r) => r.kind === kind).map((r) => r.status));
    expect({ read: of('read'), v2: of('v2'), update: of('update'), sync: of('sync'), limited: of('limited') }).toEqual({
      read: { 200: READS },
      v2: { 200: V2_READS },
      update: { 200: UPDATES },
      sync: { 200: SYNCS },
      limited: { 200: LIMIT, 429: 10 },
    });
    // These syncs' sync.completed too, after the worker's first ones.
    const delivered = await rx.waitForCount('/events', 2 * SYNCS, 'sync.completed', 30_000);
    expect(new Set(delivered.map((r) => r.json.data.sync_run_id)).size).toBe(2 * SYNCS);
    expect(new Set(delivered.map((r) => r.json.data.client_org_id))).toEqual(new Set(syncOrgs.map((c) => c.org.uuid)));
    expect(bouncer!.log()).not.toMatch(/unsupported startup parameter|prepared statement .* (does not exist|already exists)/);
  });
});
