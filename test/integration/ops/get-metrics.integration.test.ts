/**
 * `GET /metrics` (src/ops, docs/operations.md "Metrics: `GET /metrics`"), the part counted in the API process: the admin token,
 * the Prometheus text format, requests by route pattern (never the raw path) and status with the
 * latency histogram, rate-limit refusals, and one registry per app (two apps in this process
 * count their own requests). The scrape-time sources are in get-metrics-sources.integration.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError, plain } from '../../support/expect-error';
import { parseExposition, sampleValue, type Sample } from '../../support/prom';

let app: TestApp;
let other: TestApp;
let v: Awaited<ReturnType<typeof f.vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;

beforeAll(async () => {
  // A rate limit of 3 per window to reach a refusal; behind a proxy, so the failed
  // authentications of one source address (X-Forwarded-For) do not throttle the scrapes.
  const env = { HRX_RATE_LIMIT_PER_MINUTE: '3', HRX_TRUST_PROXY: '1', HRX_AUTH_FAILURE_LIMIT: '2' };
  [app, other] = await Promise.all([startTestApp({ worker: false, env }), startTestApp({ worker: false })]);
  v = await f.vendor(app.ctx);
  c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'E-42', name: 'Asha' }]);
});
afterAll(async () => {
  await Promise.all([app?.stop(), other?.stop()]);
});

const admin = (a: TestApp) => ({ authorization: `Bearer ${a.env.HRX_ADMIN_TOKEN}`, 'x-forwarded-for': '10.0.0.1' });
async function scrape(a: TestApp): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(`${a.url}/metrics`, { headers: admin(a) });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, samples: parseExposition(text) };
}

describe('GET /metrics: the admin token', () => {
  it('refuses a request without a credential (401, the envelope)', async () => {
    expectError(await call(`${app.url}/metrics`), 401, plain('Authentication credentials were not provided.'));
  });

  it('refuses a wrong token and a vendor API key (401)', async () => {
    expectError(
      await call(`${app.url}/metrics`, { headers: { authorization: `Bearer ${'x'.repeat(32)}`, 'x-forwarded-for': '10.0.0.2' } }),
      401,
      plain('Invalid token.'),
    );
    expectError(await call(`${app.url}/metrics`, { headers: { authorization: v.apiKey, 'x-forwarded-for': '10.0.0.3' } }), 401, plain('Invalid token.'));
  });

  it('takes the admin token as Bearer, bare, or as the password of HTTP Basic (as the dashboard does)', async () => {
    const token = app.env.HRX_ADMIN_TOKEN!;
    for (const authorization of [`Bearer ${token}`, token, `Basic ${Buffer.from(`prometheus:${token}`).toString('base64')}`]) {
      expect((await call(`${app.url}/metrics`, { headers: { authorization, 'x-forwarded-for': '10.0.0.7' } })).status).toBe(200);
    }
    expectError(
      await call(`${app.url}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`${token}:x`).toString('base64')}`, 'x-forwarded-for': '10.0.0.8' } }),
      401,
      plain('Invalid token.'),
    );
  });

  it('answers the Prometheus text format with the admin token', async () => {
    const res = await fetch(`${app.url}/metrics`, { headers: admin(app) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(text).toMatch(/^# HELP hrx_http_requests_total /m);
    expect(text).toMatch(/^# TYPE hrx_http_request_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE process_cpu_user_seconds_total counter$/m);
    expect(() => parseExposition(text)).not.toThrow();
  });
});

describe('GET /metrics: requests by route pattern and status', () => {
  it('counts each request under its route pattern, never its path with ids', async () => {
    const read = (id: string) =>
      call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
        headers: { username: v.apiKey, 'x-forwarded-for': '10.0.0.4' },
      });
    const missing = `NOPE-${randomUUID()}`;
    expect((await read('E-42')).status).toBe(200);
    expect((await read(missing)).status).toBe(404);
    const stray = `/api/stray-${randomUUID()}`;
    expect((await call(`${app.url}${stray}`)).status).toBe(404);
    expect((await call(`${app.url}/healthz`, { method: 'DELETE' })).status).toBe(405);

    const { text, samples } = await scrape(app);
    const route = '/api/employee_details/:id';
    expect(sampleValue(samples, 'hrx_http_requests_total', { method: 'GET', route, status: '200' })).toBe(1);
    expect(sampleValue(samples, 'hrx_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(sampleValue(samples, 'hrx_http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' })).toBe(1);
    expect(sampleValue(samples, 'hrx_http_requests_total', { method: 'DELETE', route: '/healthz', status: '405' })).toBe(1);
    // The latency histogram of the same requests: +Inf bucket = count, a positive sum.
    expect(sampleValue(samples, 'hrx_http_request_duration_seconds_bucket', { method: 'GET', route, status: '200', le: '+Inf' })).toBe(1);
    expect(sampleValue(samples, 'hrx_http_request_duration_seconds_count', { method: 'GET', route, status: '200' })).toBe(1);
    expect(sampleValue(samples, 'hrx_http_request_duration_seconds_sum', { method: 'GET', route, status: '200' })).toBeGreaterThan(0);
    // No raw path, id or query reached a label.
    for (const s of ['E-42', missing, stray, c.org.uuid, v.apiKey]) expect(text).not.toContain(s);
  });

  it('keeps one registry per app: another app in this process counts only its own requests', async () => {
    for (let i = 0; i < 3; i++) expect((await call(`${other.url}/healthz`)).status).toBe(200);
    const mine = sampleValue((await scrape(app)).samples, 'hrx_http_requests_total', { method: 'GET', route: '/healthz', status: '200' });
    const theirs = (await scrape(other)).samples;
    expect(sampleValue(theirs, 'hrx_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(3);
    expect(mine).toBeUndefined();
    expect(sampleValue(theirs, 'hrx_http_requests_total', { method: 'GET', route: '/api/employee_details/:id', status: '200' })).toBeUndefined();
  });
});

describe('GET /metrics: rate-limit refusals', () => {
  it('counts refusals of the per-credential limit and of the failed-authentication limit', async () => {
    const list = (headers: Record<string, string>) => call(`${app.url}/api/vendor/connections/`, { headers });
    const statuses: number[] = [];
    // The key has 3 requests per window; the employee reads above used 2 of them.
    for (let i = 0; i < 3; i++) statuses.push((await list({ authorization: v.apiKey, 'x-forwarded-for': '10.0.0.5' })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    // Wrong keys from one address: past HRX_AUTH_FAILURE_LIMIT=2 that address is throttled.
    for (let i = 0; i < 4; i++) await list({ authorization: `wrong-${i}`, 'x-forwarded-for': '10.0.0.6' });
    const samples = (await scrape(app)).samples;
    const route = '/api/vendor/connections/';
    expect(sampleValue(samples, 'hrx_rate_limit_refusals_total', { limit: 'requests', route })).toBe(statuses.filter((s) => s === 429).length);
    expect(sampleValue(samples, 'hrx_rate_limit_refusals_total', { limit: 'auth_failures', route })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'hrx_http_requests_total', { method: 'GET', route, status: '429' })).toBe(
      sampleValue(samples, 'hrx_rate_limit_refusals_total', { limit: 'requests', route })! +
        sampleValue(samples, 'hrx_rate_limit_refusals_total', { limit: 'auth_failures', route })!,
    );
  });
});
