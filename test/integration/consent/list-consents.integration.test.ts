/**
 * `GET /api/v1/employee/consent-data/?org=&employee_id=` (docs/consent.md "How consent works", docs/api.md "Vendor connections"): the calling vendor's
 * consent records for one employee, newest first, each with its status (`active`, `expired`,
 * `revoked`, `superseded`), paged; never another vendor's records, nor a hint of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBasic, client, connection, employees, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError, invalid, plain } from '../../support/expect-error';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNKNOWN_UUID = '0b7f9a52-61c4-4d1e-8f3a-2c5d6e7f8a9b';

let app: TestApp;
let v: Awaited<ReturnType<typeof vendor>>;
let w: Awaited<ReturnType<typeof vendor>>;
let c: Awaited<ReturnType<typeof client>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  v = await vendor(app.ctx);
  w = await vendor(app.ctx);
  c = await client(app.ctx);
  await connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
  await connection(app.ctx, w.org.uuid, c.org.uuid, { consentRequired: true });
  await employees(app.ctx, c.org.id, [{ employeeId: 'H1' }, { employeeId: 'H2' }]);
});
afterAll(async () => app?.stop());

/** Gives a consent; returns the submitted timestamp and expiry (ISO). */
async function consent(who: typeof v, employeeId: string, language: string, expiresInMs: number) {
  const consentTimestamp = new Date().toISOString();
  const consentExpiry = new Date(Date.now() + expiresInMs).toISOString();
  const res = await call(`${app.url}/api/v1/employee/consent-data/`, {
    method: 'POST',
    headers: { authorization: who.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      org: c.org.uuid,
      employee_id: employeeId,
      consent_language: language,
      consent_timestamp: consentTimestamp,
      consent_expiry: consentExpiry,
    }),
  });
  expect(res.status).toBe(200);
  return { consent_language: language, consent_timestamp: consentTimestamp, consent_expiry: consentExpiry };
}
const history = (authorization: string, query: Record<string, string>) =>
  call(`${app.url}/api/v1/employee/consent-data/?${new URLSearchParams(query).toString()}`, { headers: { authorization } });
const statuses = (res: Awaited<ReturnType<typeof history>>) => res.body.data.map((e: any) => [e.consent_language, e.status, e.revoked_at === null]);

describe('consent history', () => {
  it("lists the vendor's records newest first with active, superseded, expired and revoked", async () => {
    const k1 = await consent(v, 'H1', 'k1', 1200);
    await sleep(1400);
    const k2 = await consent(v, 'H1', 'k2', 86_400_000);
    const k3 = await consent(v, 'H1', 'k3', 2 * 86_400_000);
    const res = await history(v.apiKey, { org: c.org.uuid, employee_id: 'H1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      pageInfo: { totalPages: 1, totalItems: 3, items: 3, next: false, previous: false },
      data: [
        { ...k3, created_at: expect.any(String), revoked_at: null, status: 'active' },
        { ...k2, created_at: expect.any(String), revoked_at: null, status: 'superseded' },
        { ...k1, created_at: expect.any(String), revoked_at: null, status: 'expired' },
      ],
    });
    const created = res.body.data.map((e: any) => Date.parse(e.created_at));
    expect(created).toEqual([...created].sort((a: number, b: number) => b - a)); // newest first
    expect(created[2]).toBeLessThan(created[1]); // k1 was given before the pause

    const revoked = await call(`${app.url}/api/v1/employee/consent-data/revoke/`, {
      method: 'POST',
      headers: { authorization: v.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ org: c.org.uuid, employee_id: 'H1' }),
    });
    const after = await history(v.apiKey, { org: c.org.uuid, employee_id: 'H1' });
    // Only the record in force is revoked; the superseded one stays superseded (and out of force).
    expect(statuses(after)).toEqual([
      ['k3', 'revoked', false],
      ['k2', 'superseded', true],
      ['k1', 'expired', true],
    ]);
    expect(after.body.data[0].revoked_at).toBe(revoked.body.data.revoked_at);

    await consent(v, 'H1', 'k4', 3 * 86_400_000);
    expect(statuses(await history(v.apiKey, { org: c.org.uuid, employee_id: 'H1' }))).toEqual([
      ['k4', 'active', true],
      ['k3', 'revoked', false],
      ['k2', 'superseded', true],
      ['k1', 'expired', true],
    ]);
  });

  it('an older consent is active again once a later one expires before it', async () => {
    await consent(v, 'H2', 'long', 86_400_000);
    await consent(v, 'H2', 'short', 1000);
    expect(statuses(await history(v.apiKey, { org: c.org.uuid, employee_id: 'H2' }))).toEqual([
      ['short', 'active', true],
      ['long', 'superseded', true],
    ]);
    await sleep(1200);
    expect(statuses(await history(v.apiKey, { org: c.org.uuid, employee_id: 'H2' }))).toEqual([
      ['short', 'expired', true],
      ['long', 'active', true],
    ]);
  });

  it('pages as docs/api.md "Vendor connections" says', async () => {
    const page = (n: number) => history(v.apiKey, { org: c.org.uuid, employee_id: 'H1', page: String(n), page_size: '3' });
    const p1 = await page(1);
    expect(p1.body.pageInfo).toEqual({ totalPages: 2, totalItems: 4, items: 3, next: true, previous: false });
    expect(p1.body.data.map((e: any) => e.consent_language)).toEqual(['k4', 'k3', 'k2']);
    const p2 = await page(2);
    expect(p2.body.pageInfo).toEqual({ totalPages: 2, totalItems: 4, items: 1, next: false, previous: true });
    expect(p2.body.data.map((e: any) => e.consent_language)).toEqual(['k1']);
    expectError(await page(3), 404, plain('Invalid page.'));
    const big = await history(v.apiKey, { org: c.org.uuid, employee_id: 'H1', page_size: '101' });
    expect(big.status).toBe(400);
    expect(big.body.data.errors[0].field).toBe('page_size');
  });
});

describe("consent history: only the caller's own records", () => {
  it("another vendor sees its own records only, and nothing of v's", async () => {
    await consent(w, 'H1', 'w1', 86_400_000);
    const mine = await history(w.apiKey, { org: c.org.uuid, employee_id: 'H1' });
    expect(statuses(mine)).toEqual([['w1', 'active', true]]);
    expect(mine.body.pageInfo.totalItems).toBe(1);
    // v's list is unchanged by w's consent.
    expect((await history(v.apiKey, { org: c.org.uuid, employee_id: 'H1' })).body.pageInfo.totalItems).toBe(4);
    // w never gave one for H2 (v did): the same empty page as for an unknown org or employee.
    const empty = { totalPages: 0, totalItems: 0, items: 0, next: false, previous: false };
    for (const q of [
      { org: c.org.uuid, employee_id: 'H2' },
      { org: UNKNOWN_UUID, employee_id: 'H1' },
      { org: c.org.uuid, employee_id: 'NOBODY' },
    ]) {
      const res = await history(w.apiKey, q);
      expect({ status: res.status, pageInfo: res.body.pageInfo, data: res.body.data }).toEqual({ status: 200, pageInfo: empty, data: [] });
    }
  });

  it("refuses bad ids, a missing or revoked key and an employer's credential", async () => {
    // An org that is not a UUID is an unknown org (docs/api.md "Conventions"): the empty page 1.
    const malformed = await history(v.apiKey, { org: 'acme', employee_id: 'H1' });
    expect({ status: malformed.status, data: malformed.body.data }).toEqual({ status: 200, data: [] });
    expectError(await history(v.apiKey, { org: c.org.uuid, employee_id: '..' }), 400, invalid('employee_id', 'must not be made only of dots'));
    expect((await history(v.apiKey, { org: c.org.uuid })).body.data.errors[0].field).toBe('employee_id');
    expectError(await history(v.apiKey, { org: c.org.uuid, employee_id: 'H1', page: '0' }), 400, invalid('page', 'must be at least 1'));
    const key = await app.ctx.services.orgs.createApiKey(v.org.uuid);
    const [listed] = await app.ctx.services.orgs.listApiKeys(v.org.uuid);
    await app.ctx.services.orgs.revokeApiKey(listed!.id);
    expectError(await history(key, { org: c.org.uuid, employee_id: 'H1' }), 401, plain('Invalid token.'));
    expectError(await history(appBasic(c), { org: c.org.uuid, employee_id: 'H1' }), 401, plain('Invalid token.'));
    const none = await call(`${app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=H1`);
    expectError(none, 401, plain('Authentication credentials were not provided.'));
  });
});
