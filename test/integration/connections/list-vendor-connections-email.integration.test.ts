/**
 * `GET /api/vendor/connections/`: each entry's `email` is an e-mail address or `NOT AVAILABLE`
 * (docs/api.md "Vendor connections" types it "string (e-mail)"), never `""`, for every way
 * a connection comes to be: the operator's (approved), an SDK token's request (pending), a
 * rejected one. The harness validates every response against the route's schema too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /api/vendor/connections/ email', () => {
  it('is an e-mail or NOT AVAILABLE in every entry, never empty', async () => {
    const v = await f.vendor(app.ctx);
    await f.connection(app.ctx, v.org.uuid, (await f.client(app.ctx)).org.uuid);
    await f.sdkToken(app.ctx, v.org);
    const rejected = await f.connection(app.ctx, v.org.uuid, (await f.client(app.ctx)).org.uuid, { status: 'pending' });
    await app.ctx.services.connections.decide(rejected.id, 'rejected');
    const res = await call(`${app.url}/api/vendor/connections/?page=1&page_size=20`, { headers: { authorization: v.apiKey } });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data.map((e: { application_connection_status: string }) => e.application_connection_status).sort()).toEqual([
      'Active',
      'Inactive',
      'Inactive',
    ]);
    for (const e of res.body.data) {
      expect(e.email).not.toBe('');
      expect(e.email === 'NOT AVAILABLE' || /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(e.email)).toBe(true);
    }
  });
});
