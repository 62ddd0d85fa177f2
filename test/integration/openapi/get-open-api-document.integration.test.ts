/**
 * `GET /openapi.json` (src/openapi/routes.ts): the document generated from the running app's
 * route table is the one checked in as docs/openapi.json (so the checked-in document and the
 * typed client's types describe the real table), it needs no credential, and its `servers`
 * entry follows HRX_PUBLIC_URL and HRX_BASE_PATH.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT } from '../../support/api-client';
import { expectError } from '../../support/expect-error';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
let based: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  based = await startTestApp({ worker: false, env: { HRX_BASE_PATH: '/sandbox', HRX_PUBLIC_URL: 'https://hrx.example.com/' } });
});
afterAll(async () => {
  await app?.stop();
  await based?.stop();
});

describe('GET /openapi.json', () => {
  it('serves the checked-in document, without a credential', async () => {
    const res = await call(`${app.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual(DOCUMENT);
    expect(res.body.servers).toEqual([{ url: '/' }]);
  });

  it('names the public URL and base path as its server, paths unchanged', async () => {
    const res = await call(`${based.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.servers).toEqual([{ url: 'https://hrx.example.com/sandbox' }]);
    expect({ ...res.body, servers: DOCUMENT.servers }).toEqual(DOCUMENT);
  });

  it('refuses another method', async () => {
    expectError(await call(`${app.url}/openapi.json`, { method: 'POST' }), 405, { message: 'Method "POST" not allowed.', data: null });
  });
});
