/**
 * hrx on a Redis Cluster (docs/operations.md "Redis Cluster"): a private cluster of three masters
 * (test/support/redis-cluster.ts), hrx's API, sync worker and events worker on it with
 * `HRX_REDIS_CLUSTER=1`, and everything that uses Redis done once through it: a sync queued by
 * setup-config and run by the worker (the sync queue, the per-org lock, the HRMS budget), its
 * `sync.completed` delivered to the vendor's endpoint (the events queue), plain and V2 reads
 * (the V2 replay mark), the employee update webhook, the per-credential rate limit of several
 * credentials at once (one script call per bucket) and the failed-authentication limit.
 *
 * The limiters fall back to counting per process when a Redis call fails, so an answer alone
 * would not show a script refused for keys of several slots (CROSSSLOT): hrx's warnings are
 * collected and must hold no fallback and no Redis error. Skipped, saying why, where
 * `redis-server` is not installed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildEncryptedRequest, openEncryptedResponse } from '../../../src/crypto/jose/client';
import { createRateLimiter, rateLimitKey } from '../../../src/ratelimit/limiter';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, waitFor, type TestApp } from '../../support/harness';
import { startReceiver, verifySignature, type Receiver } from '../../support/receiver';
import { clusterUnavailable, startRedisCluster, type PrivateCluster } from '../../support/redis-cluster';

const why = clusterUnavailable();
const EMPLOYEES = 30;
const LIMIT = 40;
const SIM = { clientId: 'cluster-client', clientSecret: `cluster-secret-${randomBytes(8).toString('hex')}` };

let cluster: PrivateCluster;
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let rx: Receiver;
let v: Awaited<ReturnType<typeof f.v2Vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
let connId: string;
let endpointSecret: string;
/** hrx's log lines at warn and above. */
const warnings: string[] = [];

beforeAll(async () => {
  if (why) return;
  cluster = await startRedisCluster();
  app = await startTestApp({
    env: {
      REDIS_URL: cluster.url,
      HRX_REDIS_CLUSTER: '1',
      HRX_TRUST_PROXY: '1',
      HRX_EVENTS_ALLOW_HTTP_LOOPBACK: '1',
      HRX_RATE_LIMIT_PER_MINUTE: String(LIMIT),
      // An hour's window: no request comes back within the test, however slow the machine.
      HRX_RATE_LIMIT_WINDOW_MS: '3600000',
      LOG_LEVEL: 'warn',
    },
    logStream: { write: (line: string) => void warnings.push(line) },
  });
  await app.startEventsWorker();
  [sim, rx] = await Promise.all([startSim({ employees: EMPLOYEES, seed: 'cluster', ...SIM }), startReceiver()]);
  v = await f.v2Vendor(app.ctx);
  c = await f.client(app.ctx);
  connId = (await f.connection(app.ctx, v.org.uuid, c.org.uuid)).id;
  endpointSecret = (await app.ctx.services.endpoints.add({ orgUuid: v.org.uuid, url: rx.url('/hooks'), events: ['sync.completed'] })).secret;
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await rx?.close();
  await app?.stop();
  await cluster?.stop();
});

const read = (id: string, apiKey = v.apiKey) =>
  call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: apiKey } });

describe.skipIf(why)(`hrx on a three-master Redis Cluster${why ? ` (skipped: ${why})` : ''}: sync, events, reads, webhook`, () => {
  it('runs on the cluster: a Cluster client, and its keys on more than one master', async () => {
    expect(app.ctx.requestRedis.isCluster).toBe(true);
    expect(app.ctx.redis.isCluster).toBe(true);
    expect(await app.ctx.requestRedis.ping()).toBe('PONG');
  });

  it('setup-config queues a sync that the worker runs: every employee is stored', async () => {
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f.setupBody(c, sim, SIM)),
    });
    expect(res.status).toBe(200);
    const stored = async () => Number((await dbQuery(app, `select count(*) from employees where org_id = $1`, [c.org.id])).rows[0].count);
    const runs = async () => (await dbQuery(app, `select status, employees_seen from sync_runs where org_id = $1`, [c.org.id])).rows;
    await waitFor(async () => ['succeeded', 'failed'].includes((await runs())[0]?.status), 60_000, 200);
    expect(await runs()).toEqual([{ status: 'succeeded', employees_seen: EMPLOYEES }]);
    expect(await stored()).toBe(EMPLOYEES);
  });

  it("the sync's sync.completed reaches the vendor's endpoint, signed", async () => {
    const [got] = await rx.waitForCount('/hooks', 1, 'sync.completed', 30_000);
    expect(got!.json.type).toBe('sync.completed');
    expect(got!.json.data).toMatchObject({ employees_seen: EMPLOYEES });
    expect(verifySignature(endpointSecret, got!)).toBe(true);
  });

  it('a plain read answers the stored employee', async () => {
    const res = await read('EMP00001');
    expect(res.status).toBe(200);
    expect(res.body.data.employeeId).toBe('EMP00001');
  });

  it('a V2 read answers once; its replay is refused (the jti mark)', async () => {
    const jwks = (await call(`${app.url}/.well-known/jwks.json`)).body;
    const payload = await buildEncryptedRequest({
      connectionId: connId,
      employeeId: 'EMP00002',
      vendorPrivateKey: v.privateKey,
      vendorKid: v.kid,
      servicePublicJwk: jwks.keys.find((k: JWK) => k.use === 'enc'),
      jti: randomUUID(),
      now: Math.floor(Date.now() / 1000),
      ttlSec: 120,
    });
    const send = () =>
      call(`${app.url}/api/external/employee/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: v.authorization },
        body: JSON.stringify({ encrypted_payload: payload }),
      });
    const first = await send();
    expect(first.status).toBe(200);
    const opened = await openEncryptedResponse({ data: first.body.data, vendorPrivateKey: v.privateKey, serviceSigningJwks: jwks });
    expect(opened).toMatchObject({ employee: { employeeId: 'EMP00002' } });
    expectError(await send(), 400, plain('Invalid encrypted payload'));
  });

  it('the employee update webhook stores an employee the plain read then serves', async () => {
    const res = await call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: f.appBasic(c), 'content-type': 'application/json' },
      body: JSON.stringify({ employeeId: 'NEW1', name: 'Asha Rao' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.employeeId).toBe('NEW1');
    const back = await read('NEW1');
    expect(back.status).toBe(200);
    expect(back.body.data.name).toBe('Asha Rao');
  });
});

describe.skipIf(why)(`hrx on a three-master Redis Cluster${why ? ` (skipped: ${why})` : ''}: limits`, () => {
  it(`the rate limit: ${LIMIT + 1} concurrent reads of each of four API keys are ${LIMIT} answers and one 429 each`, async () => {
    const keys = await Promise.all(Array.from({ length: 4 }, () => app.ctx.services.orgs.createApiKey(v.org.uuid)));
    const results = await Promise.all(keys.map((k) => Promise.all(Array.from({ length: LIMIT + 1 }, () => read('EMP00003', k)))));
    for (const r of results) {
      expect([r.filter((x) => x.status === 200).length, r.filter((x) => x.status === 429).length]).toEqual([LIMIT, 1]);
    }
  });

  it('one turn of 64 credentials: one script call per bucket, every decision shared (counted in the cluster)', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
    const prefix = app.config.HRX_REDIS_PREFIX;
    const limiter = createRateLimiter({ redis: app.ctx.requestRedis, prefix: `${prefix}:turn`, limit: 5, windowMs: 3_600_000, log });
    const ids = Array.from({ length: 64 }, () => randomUUID());
    const decisions = await Promise.all(ids.map((id) => limiter.take(id)));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(lines).toEqual([]);
    const counted = await Promise.all(ids.map((id) => app.ctx.requestRedis.exists(rateLimitKey(`${prefix}:turn`, id))));
    expect(counted).toEqual(ids.map(() => 1));
  });

  it('the failed-authentication limit: 20 wrong passwords are 401, then the right one is 429', async () => {
    const source = '198.51.100.7';
    const v2 = (authorization: string) =>
      call(`${app.url}/api/external/employee/`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'x-forwarded-for': source },
        body: JSON.stringify({ encrypted_payload: 'x' }),
      });
    const wrong = `Basic ${Buffer.from(`${v.username}:${randomBytes(24).toString('base64url')}`).toString('base64')}`;
    for (let i = 0; i < 20; i++) expect((await v2(wrong)).status).toBe(401);
    const refused = await v2(v.authorization);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('spread hrx over the masters, with no Redis error and no limiter counting per process', async () => {
    const perNode = await cluster.keysPerNode();
    expect(perNode.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    const bad = warnings.filter((l) => /CROSSSLOT|Redis unavailable|redis unavailable|ClusterAllFailedError|MOVED|ASK /i.test(l));
    expect(bad).toEqual([]);
  });
});
