/**
 * PostgreSQL restarted under a load of update-webhook writes (docs/operations.md "Redis or PostgreSQL down; shutdown"),
 * on a private PostgreSQL and redis-server (never the machine's). Counted: acknowledged (200)
 * writes lost (must be 0), requests that hang past 3 s (must be 0); what fails is the contract's
 * 503 with Retry-After, and the service recovers once PostgreSQL is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as f from '../../support/factories';
import { call } from '../../support/harness';
import { privateEnv, startPrivateApp, type PrivateApp } from '../../support/private-app';
import { startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../../support/private-services';
import { dbQuery } from '../../support/db';
import { storedRecords } from '../../support/stored';

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let app: PrivateApp;
let c: Awaited<ReturnType<typeof f.client>>;
let v: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  [pgs, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  app = await startPrivateApp(privateEnv(pgs.url, redis.url));
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
}, 120_000);

afterAll(async () => {
  try {
    pgs?.pause(false);
  } catch {
    /* not running */
  }
  await app?.stop();
  await redis?.stop();
  await pgs?.destroy();
});

interface Outcome {
  id: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  body: any;
}

describe('PostgreSQL restarted under webhook writes', () => {
  it('loses no acknowledged write, hangs no request, answers 503 + Retry-After meanwhile, and recovers', async () => {
    const out: Outcome[] = [];
    let seq = 0;
    let stop = false;
    const writer = async (w: number) => {
      while (!stop) {
        const id = `P${w}-${++seq}`;
        const t = performance.now();
        try {
          const r = await call(`${app.url}/api/webhook/v1/employee/update/`, {
            method: 'POST',
            headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
            body: JSON.stringify({ employeeId: id, name: `Name ${id}`, pan: 'ABCPR1234K' }),
            signal: AbortSignal.timeout(10_000),
          });
          out.push({ id, status: r.status, ms: performance.now() - t, retryAfter: r.headers.get('retry-after'), body: r.body });
        } catch (err) {
          out.push({ id, status: 0, ms: performance.now() - t, retryAfter: null, body: String(err) });
        }
        // While PostgreSQL is away the 503s come at once: do not spin.
        if (out.at(-1)!.status === 503) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const writers = Array.from({ length: 6 }, (_, i) => writer(i));
    await new Promise((r) => setTimeout(r, 1500));
    await pgs.stop();
    await new Promise((r) => setTimeout(r, 2500));
    await pgs.start();
    await new Promise((r) => setTimeout(r, 4000));
    stop = true;
    await Promise.all(writers);

    const acked = out.filter((o) => o.status === 200).map((o) => o.id);
    const names = new Map([...(await storedRecords(app, c.org.id))].map(([id, s]) => [id, s.record.name]));
    const lost = acked.filter((id) => names.get(id) !== `Name ${id}`);
    const hung = out.filter((o) => o.ms > 3000 || o.status === 0);
    const byStatus = out.reduce<Record<string, number>>((a, o) => ({ ...a, [o.status]: (a[o.status] ?? 0) + 1 }), {});
    console.log(
      `[faults-postgres] statuses ${JSON.stringify(byStatus)} acked=${acked.length} lost=${lost.length} hung(>3s)=${hung.length} max ms=${Math.round(Math.max(...out.map((o) => o.ms)))}`,
    );

    expect(lost).toEqual([]);
    expect(hung.map((o) => `${o.status} ${Math.round(o.ms)} ms`)).toEqual([]);
    expect(Object.keys(byStatus).sort()).toEqual(['200', '503']);
    for (const o of out.filter((x) => x.status === 503)) {
      expect(o.retryAfter).toBe('5');
      expect(o.body).toEqual({ requestId: expect.any(String), error: 'service_unavailable', message: 'Service temporarily unavailable', data: null });
    }
    // Writes resumed after the restart (the last second is all 200s).
    expect(out.slice(-6).map((o) => o.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Reads work again too.
    const read = await call(`${app.url}/api/employee_details/${acked.at(-1)}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    expect(read.status).toBe(200);
  }, 60_000);

  it('PostgreSQL paused (accepts, answers nothing): reads and writes answer 503 within 3 s, nothing acknowledged is lost', async () => {
    const out: Outcome[] = [];
    let seq = 0;
    const one = async (kind: 'read' | 'write') => {
      const id = `Q${++seq}`;
      const t = performance.now();
      try {
        const r =
          kind === 'write'
            ? await call(`${app.url}/api/webhook/v1/employee/update/`, {
                method: 'POST',
                headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
                body: JSON.stringify({ employeeId: id, name: `Name ${id}` }),
                signal: AbortSignal.timeout(10_000),
              })
            : await call(`${app.url}/api/employee_details/P0-1?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
                headers: { username: v.apiKey },
                signal: AbortSignal.timeout(10_000),
              });
        out.push({ id: kind === 'write' ? id : '', status: r.status, ms: performance.now() - t, retryAfter: r.headers.get('retry-after'), body: r.body });
      } catch (err) {
        out.push({ id, status: 0, ms: performance.now() - t, retryAfter: null, body: String(err) });
      }
    };
    pgs.pause(true);
    try {
      await Promise.all([...Array.from({ length: 4 }, () => one('write')), ...Array.from({ length: 4 }, () => one('read'))]);
      await Promise.all([...Array.from({ length: 4 }, () => one('write')), ...Array.from({ length: 4 }, () => one('read'))]);
    } finally {
      pgs.pause(false);
    }
    await new Promise((r) => setTimeout(r, 3000));
    const acked = out.filter((o) => o.status === 200 && o.id).map((o) => o.id);
    const stored = await dbQuery(app, `select employee_id from employees where org_id = $1 and employee_id like 'Q%'`, [c.org.id]);
    const storedIds = stored.rows.map((r) => r.employee_id as string);
    const hung = out.filter((o) => o.ms > 3000 || o.status === 0);
    console.log(
      `[faults-postgres] paused: statuses ${out.map((o) => o.status).join(',')} hung(>3s)=${hung.length} max ms=${Math.round(Math.max(...out.map((o) => o.ms)))} acked=${acked.length} stored=${storedIds.length}`,
    );
    expect(hung.map((o) => `${o.status} ${Math.round(o.ms)} ms`)).toEqual([]);
    expect(acked.filter((id) => !storedIds.includes(id))).toEqual([]);
    // A write answered 503 never lands later (the server cancelled or rolled it back).
    const refusedWrites = out.filter((o) => o.status === 503 && o.id).map((o) => o.id);
    expect(storedIds.filter((id) => refusedWrites.includes(id))).toEqual([]);
    for (const o of out.filter((x) => x.status !== 200)) expect(`${o.status} ${o.retryAfter}`).toBe('503 5');
  }, 60_000);
});
