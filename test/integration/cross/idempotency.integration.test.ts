/**
 * `Idempotency-Key` (docs/api.md "Idempotency"), over HTTP on the consent routes: the same key and
 * body answer the first answer again (status, body, requestId) with one effect; another body is
 * 422; concurrent duplicates make one effect (the others 409 or the replay); another vendor's same
 * key is its own; a bad key is 400; without the header nothing changes; a retried withdrawal
 * answers its first success instead of 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbQuery } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { consentBody } from '../../support/setups';

describe('Idempotency-Key', () => {
  let app: TestApp;
  let v: Awaited<ReturnType<typeof f.vendor>>;
  let other: Awaited<ReturnType<typeof f.vendor>>;
  let c: Awaited<ReturnType<typeof f.client>>;
  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    v = await f.vendor(app.ctx);
    other = await f.vendor(app.ctx);
    c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
    await f.connection(app.ctx, other.org.uuid, c.org.uuid, { consentRequired: true });
    await f.employees(
      app.ctx,
      c.org.id,
      ['E1', 'E2', 'E3', 'E4', 'E5'].map((employeeId) => ({ employeeId })),
    );
  });
  afterAll(async () => app?.stop());

  const post = (path: string, apiKey: string, body: unknown, key?: string) =>
    call(`${app.url}${path}`, {
      method: 'POST',
      headers: { authorization: apiKey, 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify(body),
    });
  const consent = (apiKey: string, body: unknown, key?: string) => post('/api/v1/employee/consent-data/', apiKey, body, key);
  /** Consent records of `employeeId` written for the vendor `orgId`. */
  const records = async (orgId: number, employeeId: string) =>
    Number((await dbQuery(app, `select count(*) as n from consents where vendor_org_id = $1 and employee_id = $2`, [orgId, employeeId])).rows[0].n);

  it('answers the same key and body with the first answer and records one consent; another body is 422', async () => {
    const body = consentBody(c.org.uuid, { employeeId: 'E1' });
    const first = await consent(v.apiKey, body, 'retry-1');
    expect(first.status).toBe(200);
    const again = await consent(v.apiKey, body, 'retry-1');
    expect({ status: again.status, body: again.body, id: again.headers.get('x-request-id') }).toEqual({
      status: 200,
      body: first.body,
      id: first.headers.get('x-request-id'),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await records(v.org.id, 'E1')).toBe(1);
    const otherBody = await consent(v.apiKey, consentBody(c.org.uuid, { employeeId: 'E2' }), 'retry-1');
    expectError(otherBody, 422, { error: 'idempotency_key_reused', ...plain('Idempotency key reused with another request') });
    expect(await records(v.org.id, 'E2')).toBe(0);
  });

  it('makes one effect of concurrent duplicates: the others are 409 or the replay', async () => {
    const body = consentBody(c.org.uuid, { employeeId: 'E3' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => consent(v.apiKey, body, 'burst-1')));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    // Every 200 is the one first answer (the same requestId); the rest were refused as running.
    expect(new Set(ok.map((a) => a.body.requestId)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 200))
      expectError(a, 409, { error: 'idempotency_key_in_use', ...plain('A request with this idempotency key is still running') });
    expect(await records(v.org.id, 'E3')).toBe(1);
  });

  it("keeps each credential's keys apart: another vendor's same key and body is its own request", async () => {
    const body = consentBody(c.org.uuid, { employeeId: 'E4' });
    const mine = await consent(v.apiKey, body, 'shared-key');
    const theirs = await consent(other.apiKey, body, 'shared-key');
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.body.requestId).not.toBe(mine.body.requestId);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect([await records(v.org.id, 'E4'), await records(other.org.id, 'E4')]).toEqual([1, 1]);
  });

  it('refuses a key that is empty, too long or not printable, and changes nothing without one', async () => {
    const body = consentBody(c.org.uuid, { employeeId: 'E5' });
    const bad = {
      error: 'validation_failed',
      code: 400,
      message: 'Idempotency-Key: must be 1 to 255 printable ASCII characters',
      data: { errors: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }] },
    };
    expectError(await consent(v.apiKey, body, ''), 400, bad);
    expectError(await consent(v.apiKey, body, 'k'.repeat(256)), 400, bad);
    expect((await consent(v.apiKey, body, 'k'.repeat(255))).status).toBe(200);
    expect((await consent(v.apiKey, body)).status).toBe(200);
    expect((await consent(v.apiKey, body)).status).toBe(200);
    expect(await records(v.org.id, 'E5')).toBe(3);
  });

  it('answers a retried withdrawal with its first success, not 404', async () => {
    const withdraw = { org: c.org.uuid, employee_id: 'E1' };
    const first = await post('/api/v1/employee/consent-data/revoke/', v.apiKey, withdraw, 'withdraw-1');
    expect(first.status).toBe(200);
    const again = await post('/api/v1/employee/consent-data/revoke/', v.apiKey, withdraw, 'withdraw-1');
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: first.body });
    expectError(await post('/api/v1/employee/consent-data/revoke/', v.apiKey, withdraw), 404, {
      error: 'consent_not_in_force',
      ...plain('Consent not found or expired'),
    });
  });

  it('keeps the answer encrypted and the key, scope and body as keyed hashes', async () => {
    const rows = (await dbQuery(app, `select scope, idem_key, fingerprint, answer from idempotency_keys`)).rows as Record<string, string>[];
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const text = JSON.stringify(r);
      for (const clear of ['retry-1', 'withdraw-1', c.org.uuid, 'I agree']) expect(text).not.toContain(clear);
    }
  });

  it('forgets a key after 24 h: an aged key runs again, and the retention purge deletes it', async () => {
    const body = consentBody(c.org.uuid, { employeeId: 'E2' });
    const first = await consent(v.apiKey, body, 'aged-1');
    expect(first.status).toBe(200);
    await dbQuery(app, `update idempotency_keys set created_at = now() - interval '25 hours'`);
    const later = await consent(v.apiKey, body, 'aged-1');
    expect(later.status).toBe(200);
    expect(later.body.requestId).not.toBe(first.body.requestId);
    expect(await records(v.org.id, 'E2')).toBe(2);
    await dbQuery(app, `update idempotency_keys set created_at = now() - interval '25 hours'`);
    const purged = await app.ctx.services.retention.purge();
    expect(purged.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(Number((await dbQuery(app, `select count(*) as n from idempotency_keys`)).rows[0].n)).toBe(0);
  });
});
