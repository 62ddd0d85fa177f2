/**
 * Consent (docs/consent.md "How consent works"): reads of a connection that requires consent are refused until the
 * employee's consent is in force; submissions are validated and scoped to the calling vendor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../../src/domain/record';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { ormQuery, storesOf } from '../../support/db';

describe('consent', () => {
  let app: TestApp;
  let v: Awaited<ReturnType<typeof vendor>>;
  let other: Awaited<ReturnType<typeof vendor>>;
  let c: Awaited<ReturnType<typeof client>>;

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    v = await vendor(app.ctx);
    other = await vendor(app.ctx);
    c = await client(app.ctx);
    await connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
    await storesOf(app).employees.upsertBatch(
      c.org.id,
      null,
      ['E1', 'E2', 'E3'].map((id, i) =>
        normalizeRecord({ employeeId: id, name: `Person ${i}`, pan: 'ABCPD1234K', mobileNumber: '9876543210' }, crypto.randomUUID()),
      ),
    );
  });
  afterAll(async () => app?.stop());

  const read = (id: string) => call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
  const submit = (body: Record<string, unknown>, key = v.apiKey) =>
    call(`${app.url}/api/v1/employee/consent-data/`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const valid = (employee_id: string, over: Record<string, unknown> = {}) => ({
    org: c.org.uuid,
    employee_id,
    consent_language: 'I agree to share my salary details with Lender.',
    consent_timestamp: new Date().toISOString(),
    consent_expiry: new Date(Date.now() + 86_400_000).toISOString(),
    ...over,
  });

  it('refuses reads without consent, then serves them once consent is given', async () => {
    const before = await read('E1');
    expect(before.status).toBe(403);
    expect(before.body).toEqual({
      requestId: before.headers.get('x-request-id'),
      error: 'consent_not_found',
      message: 'Consent not found or expired',
      data: null,
    });
    const res = await submit(valid('E1'));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data.employeeId).toBe('E1');
    expect(res.body.data.pan).toBe('**********');
    expect(res.body.data.mobileNumber).toBe('**********');
    const after = await read('E1');
    expect(after.status).toBe(200);
    expect(after.body.data.name).toBe('Person 0');
    expect((await read('E2')).status).toBe(403);
  });

  it('stops serving once the consent expires', async () => {
    const res = await submit(valid('E3', { consent_expiry: new Date(Date.now() + 1500).toISOString() }));
    expect(res.status).toBe(200);
    expect((await read('E3')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    expect((await read('E3')).status).toBe(403);
  });

  it('validates every field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid('E2'), consent_language: undefined }, 'consent_language'],
      [{ ...valid('E2'), consent_timestamp: new Date(Date.now() + 6 * 60_000).toISOString() }, 'consent_timestamp'],
      [valid('E2', { consent_expiry: new Date(Date.now() - 60_000).toISOString() }), 'consent_expiry'],
      [valid('E2', { consent_timestamp: '2026-11-21T10:00:00' }), 'consent_timestamp'],
      [valid('E2', { consent_timestamp: 'yesterday' }), 'consent_timestamp'],
      [{ ...valid('E2'), extra: 1 }, 'extra'],
      [{ ...valid('E2'), org: undefined }, 'org'],
    ];
    for (const [body, field] of cases) {
      const res = await submit(body);
      expect(res.status, field).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.data.errors[0].field).toBe(field);
      expect(res.body.message).toContain(field);
    }
    expect((await read('E2')).status).toBe(403);
  });

  it('takes a date-time with an offset for its instant, and answers it in UTC', async () => {
    // Now, written as India's wall clock (+05:30): the same instant as the UTC text.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    const ist = new Date(now.getTime() + 330 * 60_000).toISOString().replace('.000Z', '+05:30');
    const res = await submit(valid('E1', { consent_timestamp: ist }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const history = await call(`${app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=E1`, { headers: { authorization: v.apiKey } });
    expect(history.body.data[0].consent_timestamp).toBe(now.toISOString());
  });

  it('refuses unknown employees and other vendors', async () => {
    const unknown = await submit(valid('NOPE'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Employee not found');
    const bola = await submit(valid('E2'), other.apiKey);
    expect(bola.status).toBe(404);
    expect(bola.body).toEqual({
      requestId: bola.headers.get('x-request-id'),
      error: 'invalid_organisation_id',
      message: 'Invalid Organisation ID',
      data: null,
    });
    const missing = await call(`${app.url}/api/v1/employee/consent-data/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(401);
    expect(missing.body.message).toBe('Authentication credentials were not provided.');
    const [row] = await ormQuery<{ n: number }>(app, `select count(*)::int as n from consents where employee_id = 'E2'`);
    expect(row!.n).toBe(0);
  });
});
