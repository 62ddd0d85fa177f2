/**
 * `POST /api/v1/employee/consent-data/revoke/` (docs/consent.md "How consent works"):
 * the vendor withdraws its consent in force; the very next read is refused in every API process
 * (a second `hrx serve` whose connection cache outlives the test, so only a read that asks the
 * database at once passes); a new consent serves reads again. Attacks: another vendor's consent,
 * an org the vendor has nothing with, a revoked key, another kind of credential, bad ids.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DOTS_MESSAGE } from '../../../src/employees/employee-id';
import { appBasic, client, connection, employees, vendor } from '../../support/factories';
import { call } from '../../support/harness';
import { consentBody, postConsent, postRevoke, useAppPair } from '../../support/setups';
import { dbQuery } from '../../support/db';
import { expectError, invalid, plain } from '../../support/expect-error';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_UUID = '0b7f9a52-61c4-4d1e-8f3a-2c5d6e7f8a9b';

const pair = useAppPair();
let v: Awaited<ReturnType<typeof vendor>>;
let w: Awaited<ReturnType<typeof vendor>>;
let c: Awaited<ReturnType<typeof client>>;

beforeAll(async () => {
  v = await vendor(pair.app.ctx);
  w = await vendor(pair.app.ctx);
  c = await client(pair.app.ctx);
  await connection(pair.app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
  await connection(pair.app.ctx, w.org.uuid, c.org.uuid, { consentRequired: true });
  await employees(pair.app.ctx, c.org.id, [{ employeeId: 'E1', name: 'Asha Rao' }, { employeeId: 'E2' }, { employeeId: 'E3' }]);
}, 90_000);

const read = (base: string, who: { org: { uuid: string }; apiKey: string }, id: string) =>
  call(`${base}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${who.org.uuid}`, { headers: { username: who.apiKey } });
const consent = (who: { apiKey: string }, employeeId: string, expiresInMs = 86_400_000) =>
  postConsent(
    pair.app.url,
    who.apiKey,
    consentBody(c.org.uuid, { employeeId, language: 'I agree to share my data with the lender.', expiry: new Date(Date.now() + expiresInMs) }),
  );
const revoke = (authorization: string | undefined, body: unknown, base = pair.app.url) =>
  postRevoke(`${base}/api/v1/employee/consent-data/revoke/`, authorization, body);
const CONSENT_MISSING = plain('Consent not found or expired');

describe('consent withdrawal by the vendor', () => {
  it('a read allowed before is refused right after in a second API process, and allowed again after a new consent', async () => {
    expect((await consent(v, 'E1')).status).toBe(200);
    expect((await consent(w, 'E1')).status).toBe(200);
    const before = await read(pair.second.url, v, 'E1');
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ employeeId: 'E1', name: 'Asha Rao' });

    const started = Date.now();
    const res = await revoke(v.apiKey, { org: c.org.uuid.toUpperCase(), employee_id: 'E1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      data: { org: c.org.uuid, employee_id: 'E1', revoked_at: expect.stringMatching(ISO_MS) },
    });
    expect(Math.abs(Date.parse(res.body.data.revoked_at) - started)).toBeLessThan(5000);

    // The very next read, in the other process (its connection cache warm), and in this one.
    expectError(await read(pair.second.url, v, 'E1'), 403, CONSENT_MISSING);
    expectError(await read(pair.app.url, v, 'E1'), 403, CONSENT_MISSING);
    // Only the vendor's own consent went: the other vendor still reads.
    expect((await read(pair.second.url, w, 'E1')).status).toBe(200);
    const rows = await dbQuery(pair.app, `select vendor_org_id, revoked_at from consents where employee_id = 'E1' order by vendor_org_id`);
    expect(rows.rows.map((r) => [r.vendor_org_id, r.revoked_at?.toISOString() ?? null])).toEqual([
      [v.org.id, res.body.data.revoked_at],
      [w.org.id, null],
    ]);

    // Nothing is in force any more: a second withdrawal finds nothing.
    expectError(await revoke(v.apiKey, { org: c.org.uuid, employee_id: 'E1' }), 404, CONSENT_MISSING);

    // A new consent serves reads again, in both processes.
    expect((await consent(v, 'E1')).status).toBe(200);
    expect((await read(pair.second.url, v, 'E1')).status).toBe(200);
    expect((await read(pair.app.url, v, 'E1')).status).toBe(200);
  });

  it('revokes only the consent in force: an older, longer-lasting record stays superseded and never serves reads again', async () => {
    expect((await consent(v, 'E2', 7 * 86_400_000)).status).toBe(200);
    expect((await consent(v, 'E2', 86_400_000)).status).toBe(200);
    expect((await read(pair.second.url, v, 'E2')).status).toBe(200);
    const res = await revoke(v.apiKey, { org: c.org.uuid, employee_id: 'E2' }, pair.second.url);
    expect(res.status).toBe(200);
    expectError(await read(pair.second.url, v, 'E2'), 403, CONSENT_MISSING);
    expectError(await read(pair.app.url, v, 'E2'), 403, CONSENT_MISSING);
    // The newer record (in force) is revoked; the older one keeps its status, unrevoked.
    const rows = await dbQuery(pair.app, `select revoked_at from consents where employee_id = 'E2' order by created_at desc, id desc`);
    expect(rows.rows.map((r) => r.revoked_at?.toISOString() ?? null)).toEqual([res.body.data.revoked_at, null]);
    const history = await call(`${pair.app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=E2`, { headers: { authorization: v.apiKey } });
    expect(history.body.data.map((k: { status: string }) => k.status)).toEqual(['revoked', 'superseded']);
    // Nothing came back into force: a second withdrawal finds nothing, reads stay refused.
    expectError(await revoke(v.apiKey, { org: c.org.uuid, employee_id: 'E2' }), 404, CONSENT_MISSING);
    expectError(await read(pair.app.url, v, 'E2'), 403, CONSENT_MISSING);
  });

  it('is audited as a withdrawal, not as a read', async () => {
    expect((await consent(v, 'E3')).status).toBe(200);
    const res = await revoke(v.apiKey, { org: c.org.uuid, employee_id: 'E3' });
    expect(res.status).toBe(200);
    const audit = await dbQuery(pair.app, `select actor_org_id, action, client_org_id, employee_id, data_points from audit_log where request_id = $1`, [
      res.headers.get('x-request-id'),
    ]);
    expect(audit.rows).toEqual([{ actor_org_id: v.org.id, action: 'consent.revoke', client_org_id: c.org.id, employee_id: 'E3', data_points: [] }]);
  });
});

describe('consent withdrawal by the vendor: attacks and bad input', () => {
  it("never reaches another vendor's consent, nor an org the vendor has nothing with", async () => {
    expect((await consent(v, 'E3')).status).toBe(200);
    // w has no consent of its own for E3: v's is not its to withdraw, and the answer says nothing of it.
    expectError(await revoke(w.apiKey, { org: c.org.uuid, employee_id: 'E3' }), 404, CONSENT_MISSING);
    expectError(await revoke(v.apiKey, { org: UNKNOWN_UUID, employee_id: 'E3' }), 404, CONSENT_MISSING);
    expectError(await revoke(v.apiKey, { org: c.org.uuid, employee_id: 'NOBODY' }), 404, CONSENT_MISSING);
    expect((await read(pair.second.url, v, 'E3')).status).toBe(200);
  });

  it("refuses a revoked key, a missing one and an employer's credential", async () => {
    const key = await pair.app.ctx.services.orgs.createApiKey(v.org.uuid);
    const [listed] = await pair.app.ctx.services.orgs.listApiKeys(v.org.uuid);
    expect(listed!.prefix).toBe(key.slice(0, 8));
    await pair.app.ctx.services.orgs.revokeApiKey(listed!.id);
    const body = { org: c.org.uuid, employee_id: 'E3' };
    expectError(await revoke(key, body), 401, plain('Invalid token.'));
    expectError(await revoke(key, body, pair.second.url), 401, plain('Invalid token.'));
    expectError(await revoke(undefined, body), 401, plain('Authentication credentials were not provided.'));
    expectError(await revoke(appBasic(c), body), 401, plain('Invalid token.'));
    expect((await read(pair.second.url, v, 'E3')).status).toBe(200);
  });

  it('answers bad ids and bodies with a 400 naming the field', async () => {
    const cases: [unknown, ReturnType<typeof invalid>][] = [
      [{ org: c.org.uuid, employee_id: '..' }, invalid('employee_id', DOTS_MESSAGE)],
      [{ org: c.org.uuid, employee_id: '  ' }, invalid('employee_id', 'required')],
      [{ org: c.org.uuid, employee_id: 'E3', extra: 1 }, invalid('extra', 'unknown field')],
    ];
    for (const [body, expected] of cases) expectError(await revoke(v.apiKey, body), 400, expected);
    // An org that is not a UUID is an unknown org (docs/api.md "Conventions"): the 404 of no consent in force.
    for (const org of ['not-a-uuid', `${c.org.uuid}0`])
      expectError(await revoke(v.apiKey, { org, employee_id: 'E3' }), 404, plain('Consent not found or expired'));
    const missing = await revoke(v.apiKey, { org: c.org.uuid });
    expect(missing.status).toBe(400);
    expect(missing.body.data.errors[0].field).toBe('employee_id');
    expect((await read(pair.second.url, v, 'E3')).status).toBe(200);
  });
});
