/**
 * The per-process connection cache is cleared in every API process when a connection changes:
 * a termination answered by one process stops reads served by another at once, although the
 * cache's time-to-live is set far longer than the test (so only the pub/sub message can do it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { openContext, type Context } from '../../../src/context';
import { createLogger } from '../../../src/logger';
import { listen, type RunningServer } from '../../../src/server';
import { client, connection, employees, vendor } from '../../support/factories';
import { call, startTestApp, waitFor, type TestApp } from '../../support/harness';

describe('connection cache across API processes', () => {
  let a: TestApp;
  let bCtx: Context;
  let b: RunningServer;

  beforeAll(async () => {
    a = await startTestApp({ worker: false, env: { HRX_CONNECTION_CACHE_TTL_MS: '60000' } });
    const config = loadConfig(a.env);
    bCtx = await openContext(config, createLogger('silent'), { poolMax: 2 });
    b = await listen(buildApp(bCtx), '127.0.0.1', 0, '', createLogger('silent'));
  });
  afterAll(async () => {
    await b?.stop();
    await bCtx?.close();
    await a?.stop();
  });

  it('a termination in process A stops reads in process B at once', async () => {
    const v = await vendor(a.ctx);
    const c = await client(a.ctx);
    await connection(a.ctx, v.org.uuid, c.org.uuid);
    await employees(a.ctx, c.org.id, [{ employeeId: 'E1', name: 'Asha' }]);
    const readB = () => call(`${b.url}/api/employee_details/E1?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    expect((await readB()).status).toBe(200); // B now caches the approved connection
    const form = new FormData();
    form.set('client_org', c.org.uuid);
    const t = await call(`${a.url}/api/terminate_connection/`, { method: 'POST', headers: { authorization: v.apiKey }, body: form });
    expect(t.status).toBe(200);
    const started = Date.now();
    const refused = await waitFor(
      async () => {
        const r = await readB();
        return r.status === 404 ? r : null;
      },
      5000,
      10,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refused.body.message).toBe('Invalid Organisation ID');
  });
});
