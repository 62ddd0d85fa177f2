/** `GET /healthz` (src/ops/routes.ts, docs/operations.md "Liveness: `GET /healthz`"): the liveness answer, no credential, no envelope. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError, UUID_V4 } from '../../support/expect-error';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /healthz', () => {
  it('answers {status, checks} without a credential and without the envelope', async () => {
    const res = await call(`${app.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toMatch(UUID_V4);
    expect(res.body).toStrictEqual({ status: 'ok', checks: { process: 'ok' } });
  });

  it('refuses another method', async () => {
    expectError(await call(`${app.url}/healthz`, { method: 'POST' }), 405, { message: 'Method "POST" not allowed.', data: null });
  });
});
