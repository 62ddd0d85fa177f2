/**
 * Redis down under a mixed load (docs/operations.md "Redis or PostgreSQL down; shutdown"), on a private PostgreSQL and
 * a private redis-server (never the machine's): employee reads, V2, the update webhook, SDK
 * tokens and terminations, first with Redis killed, then with Redis paused (SIGSTOP: it accepts
 * nothing and answers nothing, the case where a command could be delivered late).
 *
 * Counted: requests that hang past 3 s (must be 0) and changes after a 503 (must be 0): every
 * termination answered 503 leaves its connection approved even 10 s after Redis is back, a V2
 * answered 503 read nothing (no audit row), and every webhook write answered 200 is stored.
 */
import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest } from '../../../src/crypto/jose/client';
import * as f from '../../support/factories';
import { call } from '../../support/harness';
import { privateEnv, startPrivateApp, type PrivateApp } from '../../support/private-app';
import { pauseRedis, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from '../../support/private-services';
import { dbQuery } from '../../support/db';

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let app: PrivateApp;
let v: Awaited<ReturnType<typeof f.vendor>>;
let v2: Awaited<ReturnType<typeof f.v2Vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let v2Conn: string;
let jwks: { keys: JWK[] };
const targets: { uuid: string; connectionId: string }[] = [];

beforeAll(async () => {
  [pgs, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  app = await startPrivateApp(privateEnv(pgs.url, redis.url));
  v = await f.vendor(app.ctx);
  v2 = await f.v2Vendor(app.ctx);
  c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  v2Conn = (await f.connection(app.ctx, v2.org.uuid, c.org.uuid)).id;
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'E1', name: 'Meera' }]);
  // One client org per termination attempt, each approved with vendor v.
  for (let i = 0; i < 16; i++) {
    const t = await f.client(app.ctx);
    targets.push({ uuid: t.org.uuid, connectionId: (await f.connection(app.ctx, v.org.uuid, t.org.uuid)).id });
  }
  jwks = (await call(`${app.url}/.well-known/jwks.json`)).body;
}, 120_000);

afterAll(async () => {
  if (redis) pauseRedis(redis, false);
  await app?.stop();
  await redis?.stop();
  await pgs?.destroy();
});

type Kind = 'read' | 'v2' | 'webhook' | 'sdk' | 'terminate';
interface Outcome {
  kind: Kind;
  status: number;
  ms: number;
  key: string;
  retryAfter: string | null;
  body: any;
}

async function timed(kind: Kind, key: string, fn: () => Promise<Awaited<ReturnType<typeof call>>>): Promise<Outcome> {
  const t = performance.now();
  let r: Awaited<ReturnType<typeof call>>;
  try {
    r = await fn();
  } catch (err) {
    // Aborted after 10 s: a hang.
    return { kind, status: 0, ms: performance.now() - t, key, retryAfter: null, body: String(err) };
  }
  return { kind, status: r.status, ms: performance.now() - t, key, retryAfter: r.headers.get('retry-after'), body: r.body };
}

const signal = () => AbortSignal.timeout(10_000);
const read = () =>
  timed('read', 'E1', () =>
    call(`${app.url}/api/employee_details/E1?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey }, signal: signal() }),
  );
async function v2Read(): Promise<Outcome> {
  const payload = await buildEncryptedRequest({
    connectionId: v2Conn,
    employeeId: 'E1',
    vendorPrivateKey: v2.privateKey,
    vendorKid: v2.kid,
    servicePublicJwk: jwks.keys.find((k) => k.use === 'enc')!,
    jti: randomUUID(),
    now: Math.floor(Date.now() / 1000),
    ttlSec: 120,
  });
  return timed('v2', '', () =>
    call(`${app.url}/api/external/employee/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: v2.authorization },
      body: JSON.stringify({ encrypted_payload: payload }),
      signal: signal(),
    }),
  );
}
let seq = 0;
function webhook(): Promise<Outcome> {
  const id = `W${++seq}`;
  return timed('webhook', id, () =>
    call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
      body: JSON.stringify({ employeeId: id, name: `Name ${id}` }),
      signal: signal(),
    }),
  );
}
function sdk(): Promise<Outcome> {
  const n = ++seq;
  return timed('sdk', String(n), () =>
    call(`${app.url}/api/sdk/token/`, {
      method: 'POST',
      headers: { authorization: v.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `hr@employer-${n}.example`, org_name: `Employer ${n}`, fullname: 'Asha Rao' }),
      signal: signal(),
    }),
  );
}
function terminate(t: { uuid: string; connectionId: string }): Promise<Outcome> {
  const form = new FormData();
  form.set('client_org', t.uuid);
  return timed('terminate', t.connectionId, () =>
    call(`${app.url}/api/terminate_connection/`, { method: 'POST', headers: { authorization: v.apiKey }, body: form, signal: signal() }),
  );
}

/** Runs reads, V2, webhooks and SDK tokens in loops for `ms`, and the given terminations midway. */
async function mixedLoad(ms: number, terms: { uuid: string; connectionId: string }[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const until = Date.now() + ms;
  const loop = async (fn: () => Promise<Outcome>) => {
    while (Date.now() < until) out.push(await fn());
  };
  const midway = (async () => {
    await new Promise((r) => setTimeout(r, ms / 3));
    out.push(...(await Promise.all(terms.map(terminate))));
  })();
  await Promise.all([loop(read), loop(read), loop(v2Read), loop(v2Read), loop(webhook), loop(webhook), loop(sdk), midway]);
  return out;
}

const statusOf = (id: string) => dbQuery(app, `select status from connections where id = $1`, [id]).then((r) => r.rows[0]?.status as string);
const summary = (o: Outcome[]) =>
  Object.fromEntries(
    (['read', 'v2', 'webhook', 'sdk', 'terminate'] as Kind[]).map((k) => {
      const mine = o.filter((x) => x.kind === k);
      return [
        k,
        Object.entries(mine.reduce<Record<string, number>>((a, x) => ({ ...a, [x.status]: (a[x.status] ?? 0) + 1 }), {}))
          .map(([s, n]) => `${s}×${n}`)
          .join(' '),
      ];
    }),
  );

describe('Redis down under a mixed load', () => {
  it('no request hangs past 3 s; what needs Redis is 503 + Retry-After; nothing answered 503 takes effect later', async () => {
    // Healthy first: the same load succeeds (so the counts below are about the fault).
    const healthy = await mixedLoad(1500, [targets[0]!]);
    expect(healthy.filter((o) => o.status !== 200).map((o) => `${o.kind} ${o.status}`)).toEqual([]);

    // 1. Redis killed.
    await redis.stop();
    const killed = await mixedLoad(4000, targets.slice(1, 8));
    // 2. Redis back (empty), then paused: commands are accepted by the kernel and never answered.
    await redis.start();
    await new Promise((r) => setTimeout(r, 1500));
    pauseRedis(redis, true);
    const paused = await mixedLoad(5000, targets.slice(8, 16));
    pauseRedis(redis, false);
    const during = [...killed, ...paused];
    // Redis is back and has processed whatever reached it late; give it 10 s to do harm.
    await new Promise((r) => setTimeout(r, 10_000));

    const hung = during.filter((o) => o.ms > 3000 || o.status === 0);
    const refused = during.filter((o) => o.status === 503);
    const terminated503 = refused.filter((o) => o.kind === 'terminate');
    const halfDone: string[] = [];
    // Every termination not answered 200 (503, or given up by the client) left its connection approved.
    for (const o of during.filter((x) => x.kind === 'terminate' && x.status !== 200)) {
      if ((await statusOf(o.key)) !== 'approved') halfDone.push(`terminate ${o.status} ${o.key}`);
    }
    // A V2 answered 503 read nothing: the vendor's audit rows are the healthy phase's 200s only.
    const audited = await dbQuery(app, `select count(*)::int as n from audit_log where actor_org_id = $1 and action = 'employee.read'`, [v2.org.id]);
    const v2Served = [...healthy, ...during].filter((o) => o.kind === 'v2' && o.status === 200).length;
    if (audited.rows[0].n !== v2Served) halfDone.push(`v2 audited ${audited.rows[0].n} served ${v2Served}`);
    // Every webhook write answered 200 is stored.
    const acked = [...healthy, ...during].filter((o) => o.kind === 'webhook' && o.status === 200).map((o) => o.key);
    const stored = await dbQuery(app, `select employee_id from employees where org_id = $1 and employee_id = any($2::text[])`, [c.org.id, acked]);
    const lost = acked.filter((id) => !stored.rows.some((r) => r.employee_id === id));
    console.log(
      `[faults-redis] killed: ${JSON.stringify(summary(killed))} paused: ${JSON.stringify(summary(paused))}` +
        ` hung(>3s)=${hung.length} half-done=${halfDone.length} webhook acked=${acked.length} lost=${lost.length}` +
        ` max ms=${Math.round(Math.max(...during.map((o) => o.ms)))}`,
    );

    expect(hung.map((o) => `${o.kind} ${o.status} ${Math.round(o.ms)} ms`)).toEqual([]);
    expect(halfDone).toEqual([]);
    expect(lost).toEqual([]);
    // What can finish without Redis did; what cannot was refused with the contract's 503.
    for (const o of during.filter((x) => x.kind === 'read' || x.kind === 'webhook' || x.kind === 'sdk')) expect(`${o.kind} ${o.status}`).toBe(`${o.kind} 200`);
    for (const o of during.filter((x) => x.kind === 'v2' || x.kind === 'terminate')) expect(`${o.kind} ${o.status}`).toBe(`${o.kind} 503`);
    expect(terminated503.length).toBe(15);
    for (const o of refused) {
      expect(o.retryAfter).toBe('5');
      expect(Object.keys(o.body)).toEqual(['requestId', 'error', 'message', 'data']);
      expect(o.body).toMatchObject({ message: 'Service temporarily unavailable', data: null });
    }
    // And with Redis back, both work again.
    const after = await mixedLoad(1000, [targets[1]!]);
    expect(after.filter((o) => o.status !== 200).map((o) => `${o.kind} ${o.status}`)).toEqual([]);
    expect(await statusOf(targets[1]!.connectionId)).toBe('terminated');
  }, 90_000);
});
