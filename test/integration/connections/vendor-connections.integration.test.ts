/** `GET /api/vendor/connections/` (interface.md "Get vendor connections"): the vendor's own connections, paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /api/vendor/connections/', () => {
  it("lists the caller's connections only, with pageInfo", async () => {
    const v = await f.vendor(app.ctx);
    const other = await f.vendor(app.ctx);
    const c = await f.client(app.ctx, 'Listed Employer');
    const mine = await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    await f.connection(app.ctx, other.org.uuid, (await f.client(app.ctx, 'Not Mine')).org.uuid);
    const res = await call(`${app.url}/api/vendor/connections/`, { headers: { authorization: v.apiKey } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { org_name: string }) => e.org_name)).toStrictEqual(['Listed Employer']);
    expect(res.body.pageInfo).toBeDefined();
    // The connection's id, added to the interface's fields: what V2's connection_id names.
    expect(res.body.data[0].connection_id).toBe(mine.id);
  });

  it('refuses a request without an API key', async () => {
    expectError(await call(`${app.url}/api/vendor/connections/`), 401, plain('Authentication credentials were not provided.'));
  });
});
