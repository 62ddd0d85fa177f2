/** `GET /vct/employment-income/v1` (docs/credentials.md "Keys and metadata"): the type metadata the credential's `vct` names. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
}, 90_000);
afterAll(async () => {
  await app?.stop();
});

describe('GET /vct/employment-income/v1', () => {
  it('serves the type metadata: vct, name and the six claims, each always selectively disclosable', async () => {
    const res = await call(`${app.url}/vct/employment-income/v1`);
    expect(res.status).toBe(200);
    expect(res.body.vct).toBe('http://localhost/vct/employment-income/v1');
    expect((res.body.claims as { path: string[]; sd: string }[]).map((c) => [c.path[0], c.sd])).toEqual([
      ['employer', 'always'],
      ['employee', 'always'],
      ['employment', 'always'],
      ['pay', 'always'],
      ['as_of', 'always'],
      ['source', 'always'],
    ]);
  });

  it('refuses another method', async () => {
    expectError(await call(`${app.url}/vct/employment-income/v1`, { method: 'DELETE' }), 405, { message: 'Method "DELETE" not allowed.', data: null });
  });
});
