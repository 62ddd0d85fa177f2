/**
 * `POST /api/webhook/v1/setup-config/` when the HRMS's credential check fails (docs/behaviour.md
 * "Setup config"): an HRMS that answered is named by what it answered (status and the standard
 * phrase, never its own text), and "could not be reached" is kept for no answer at all (a
 * refused connection, a timeout). A tenant budget with no room in time is 503 with `Retry-After`,
 * the HRMS not asked (docs/behaviour.md "Live reads and the HRMS budget"). Nothing is stored or
 * queued in any case. The HRMS here is a real HTTP server in the test answering what each case needs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorFor } from '../../../src/hrms/registry';
import { createHrmsBudgets } from '../../../src/ratelimit/hrms-budget';
import { call, REDIS_URL, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';

let app: TestApp;
let hrms: Server;
let hrmsUrl: string;
const sockets = new Set<Socket>();
/** Requests the HRMS received. */
let asked = 0;
/** What the HRMS answers its token request with, per path prefix (`/<case>/oauth/token`). */
const ANSWERS: Record<string, { status: number; body: string; headers?: Record<string, string> }> = {
  '405': { status: 405, body: '<html>Method Not Allowed: secret-looking text</html>', headers: { allow: 'GET' } },
  '503': { status: 503, body: 'down for maintenance' },
  '200-html': { status: 200, body: '<html>login page</html>', headers: { 'content-type': 'text/html' } },
  '418': { status: 418, body: '' },
};

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  hrms = createServer((req, res) => {
    asked += 1;
    const kind = (req.url ?? '/').split('/')[1] ?? '';
    if (kind === 'silent') return; // accepts the request and never answers
    const a = ANSWERS[kind] ?? { status: 404, body: '' };
    res.writeHead(a.status, a.headers ?? {});
    res.end(a.body);
  });
  hrms.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => hrms.listen(0, '127.0.0.1', r));
  hrmsUrl = `http://127.0.0.1:${(hrms.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => hrms?.close(r));
  await app?.stop();
});

const post = (body: unknown) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const creds = { clientId: 'setup-err-client', clientSecret: 'setup-err-secret-81f' };

/** Posts setup-config for a new client org against `host`; checks the 400 and that nothing was stored or queued. */
async function rejected(host: string, reason: string) {
  const c = await f.client(app.ctx);
  const res = await post(f.setupBody(c, { url: host }, creds));
  expectError(res, 400, { code: 400, message: `HRMS credentials rejected: ${reason}`, data: null });
  expect(res.body.message).not.toContain(creds.clientSecret);
  await nothingStored(c.org.id);
}

/** The org has no stored configuration and no queued sync. */
async function nothingStored(orgId: number) {
  const stored = await dbQuery(app, `select count(*)::int as n from hrms_configs where org_id = $1`, [orgId]);
  expect(stored.rows[0].n).toBe(0);
  const queued = (await app.ctx.syncQueue.queue.getJobs(['waiting', 'delayed', 'active'])).filter((j) => j.data.orgId === orgId);
  expect(queued).toEqual([]);
}

describe('POST /api/webhook/v1/setup-config/: what the HRMS said', () => {
  it('names the status an answering HRMS gave, with its standard phrase, never its body', async () => {
    await rejected(`${hrmsUrl}/405`, 'the HRMS answered 405 Method Not Allowed');
    await rejected(`${hrmsUrl}/503`, 'the HRMS answered 503 Service Unavailable');
    await rejected(`${hrmsUrl}/418`, "the HRMS answered 418 I'm a Teapot");
    await rejected(`${hrmsUrl}/nothing-here`, 'the HRMS answered 404 Not Found');
  });

  it('says a 200 it could not read is a 200 with an unreadable body, not an unreachable HRMS', async () => {
    await rejected(`${hrmsUrl}/200-html`, 'the HRMS answered 200 OK with a body hrx could not read');
  });

  it('says "could not be reached" only when no answer came: a refused connection, a timeout', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await rejected(`http://127.0.0.1:${port}`, 'the HRMS could not be reached');
    const started = Date.now();
    await rejected(`${hrmsUrl}/silent`, 'the HRMS could not be reached');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000); // the 10 s check timeout
  }, 30_000);
});

describe('POST /api/webhook/v1/setup-config/: the tenant budget', () => {
  it("with no room in the tenant's budget within a live read's wait: 503 with Retry-After, the HRMS not asked, nothing stored", async () => {
    const definition = connectorFor('reference')!;
    const published = definition.budget;
    const redis = new Redis(REDIS_URL);
    try {
      // One call a minute, spent (a sync's, taken under a limit with room: one log whatever the
      // limit): the check would wait about a minute for room.
      const host = `${hrmsUrl}/budget`;
      const budgets = createHrmsBudgets({ redis, prefix: app.config.HRX_REDIS_PREFIX });
      const tenant = definition.tenantOf({ credentials: { hrms_host: host, grant_type: 'client_credentials' }, apiConfigs: [] });
      const done = await budgets.budgetFor('reference', tenant, published).take();
      await done?.();
      definition.budget = { requests: 1, windowMs: 60_000 };
      const before = asked;
      const c = await f.client(app.ctx);
      const started = Date.now();
      const res = await post(f.setupBody(c, { url: host }, creds));
      expectError(res, 503, plain('Service temporarily unavailable'));
      // Answered at once with the time until the budget has room, not after waiting it out.
      expect(Date.now() - started).toBeLessThan(app.config.HRX_HRMS_LIVE_WAIT_MS);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(50);
      expect(asked).toBe(before);
      await nothingStored(c.org.id);
    } finally {
      definition.budget = published;
      redis.disconnect();
    }
  });
});
