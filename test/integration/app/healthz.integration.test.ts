/** `GET /healthz` (src/app.ts): the liveness answer, no credential. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError } from '../../support/expect-error';

let app: TestApp;
beforeAll(async () => { app = await startTestApp({ worker: false }); });
afterAll(async () => { await app?.stop(); });

describe('GET /healthz', () => {
  it('answers ok without a credential', async () => {
    const res = await call(`${app.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'success', data: { status: 'ok' } });
  });

  it('refuses another method', async () => {
    expectError(await call(`${app.url}/healthz`, { method: 'POST' }), 405, { message: 'Method "POST" not allowed.', data: null });
  });
});
