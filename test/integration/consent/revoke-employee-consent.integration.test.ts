/**
 * `POST /api/webhook/v1/employee/consent/revoke/` (docs/consent.md "How consent works"): the employer withdraws an
 * employee's consent on the employee's behalf; without `vendor_org` every vendor's consent goes,
 * and the very next read of each vendor is refused in a second API process too. Attacks: another
 * employer's credentials (its own employee with the same id is another person), a vendor's key,
 * a vendor org's own app credentials, a wrong secret, bad ids.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { appBasic, client, connection, employees, vendor } from '../../support/factories';
import { call } from '../../support/harness';
import { consentBody, postConsent, postRevoke, useAppPair } from '../../support/setups';
import { expectError, invalid, plain } from '../../support/expect-error';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Vendor = Awaited<ReturnType<typeof vendor>>;
type Client = Awaited<ReturnType<typeof client>>;

const pair = useAppPair();
let v: Vendor;
let w: Vendor;
let c: Client;
let d: Client;

beforeAll(async () => {
  v = await vendor(pair.app.ctx);
  w = await vendor(pair.app.ctx);
  c = await client(pair.app.ctx);
  d = await client(pair.app.ctx);
  for (const who of [v, w]) {
    for (const employer of [c, d]) await connection(pair.app.ctx, who.org.uuid, employer.org.uuid, { consentRequired: true });
  }
  // Both employers have an employee `E1`: two different people.
  await employees(pair.app.ctx, c.org.id, [{ employeeId: 'E1' }, { employeeId: 'E2' }, { employeeId: 'E3' }, { employeeId: 'E4' }]);
  await employees(pair.app.ctx, d.org.id, [{ employeeId: 'E1' }]);
}, 90_000);

const read = (base: string, who: Vendor, employer: Client, id: string) =>
  call(`${base}/api/employee_details/${id}?org=${employer.org.uuid}&vendor_org=${who.org.uuid}`, { headers: { username: who.apiKey } });
const consent = async (who: Vendor, employer: Client, employeeId: string) => {
  const res = await postConsent(pair.app.url, who.apiKey, consentBody(employer.org.uuid, { employeeId }));
  expect(res.status).toBe(200);
};
const revoke = (authorization: string | undefined, body: unknown) => postRevoke(`${pair.app.url}/api/webhook/v1/employee/consent/revoke/`, authorization, body);
const CONSENT_MISSING = plain('Consent not found or expired');

describe('consent withdrawal by the employer', () => {
  it('without vendor_org stops every vendor at once, in every API process', async () => {
    await consent(v, c, 'E1');
    await consent(w, c, 'E1');
    expect((await read(pair.second.url, v, c, 'E1')).status).toBe(200);
    expect((await read(pair.second.url, w, c, 'E1')).status).toBe(200);

    const res = await revoke(appBasic(c), { employee_id: 'E1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      requestId: res.headers.get('x-request-id'),
      message: 'success',
      data: {
        employee_id: 'E1',
        revoked: [
          { vendor_org: v.org.uuid, revoked_at: expect.stringMatching(ISO_MS) },
          { vendor_org: w.org.uuid, revoked_at: expect.stringMatching(ISO_MS) },
        ],
      },
    });
    for (const who of [v, w]) {
      expectError(await read(pair.second.url, who, c, 'E1'), 403, CONSENT_MISSING);
      expectError(await read(pair.app.url, who, c, 'E1'), 403, CONSENT_MISSING);
    }
    // Nothing left in force: the same request again revokes nothing.
    const again = await revoke(appBasic(c), { employee_id: 'E1' });
    expect(again.body.data).toEqual({ employee_id: 'E1', revoked: [] });
    // A new consent serves that vendor again.
    await consent(v, c, 'E1');
    expect((await read(pair.second.url, v, c, 'E1')).status).toBe(200);
    expectError(await read(pair.second.url, w, c, 'E1'), 403, CONSENT_MISSING);
  });

  it('with vendor_org stops that vendor only', async () => {
    await consent(v, c, 'E2');
    await consent(w, c, 'E2');
    const res = await revoke(appBasic(c), { employee_id: 'E2', vendor_org: w.org.uuid.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ employee_id: 'E2', revoked: [{ vendor_org: w.org.uuid, revoked_at: expect.stringMatching(ISO_MS) }] });
    expectError(await read(pair.second.url, w, c, 'E2'), 403, CONSENT_MISSING);
    expect((await read(pair.second.url, v, c, 'E2')).status).toBe(200);
    // An org that holds no consent (unknown, or the employer itself) revokes nothing.
    for (const vendorOrg of ['0b7f9a52-61c4-4d1e-8f3a-2c5d6e7f8a9b', c.org.uuid]) {
      expect((await revoke(appBasic(c), { employee_id: 'E2', vendor_org: vendorOrg })).body.data).toEqual({ employee_id: 'E2', revoked: [] });
    }
    expect((await read(pair.second.url, v, c, 'E2')).status).toBe(200);
  });

  it("revokes each vendor's consent in force only: older records stay superseded and out of force", async () => {
    for (const who of [v, w]) {
      await consent(who, c, 'E4');
      await consent(who, c, 'E4');
    }
    const res = await revoke(appBasic(c), { employee_id: 'E4' });
    expect(res.body.data.revoked).toHaveLength(2);
    for (const who of [v, w]) {
      const history = await call(`${pair.app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=E4`, { headers: { authorization: who.apiKey } });
      expect(history.body.data.map((k: { status: string; revoked_at: string | null }) => [k.status, k.revoked_at === null])).toEqual([
        ['revoked', false],
        ['superseded', true],
      ]);
      expectError(await read(pair.app.url, who, c, 'E4'), 403, CONSENT_MISSING);
    }
    expect((await revoke(appBasic(c), { employee_id: 'E4' })).body.data).toEqual({ employee_id: 'E4', revoked: [] });
  });
});

describe('consent withdrawal by the employer: attacks and bad input', () => {
  it('another employer reaches only its own employee of the same id', async () => {
    await consent(v, c, 'E3');
    await consent(v, d, 'E1');
    expect((await read(pair.second.url, v, c, 'E1')).status).toBe(200);
    // d withdraws its E1's consent: c's E1 (another person) and c's E3 keep theirs.
    const res = await revoke(appBasic(d), { employee_id: 'E1' });
    expect(res.body.data).toEqual({ employee_id: 'E1', revoked: [{ vendor_org: v.org.uuid, revoked_at: expect.stringMatching(ISO_MS) }] });
    expectError(await read(pair.second.url, v, d, 'E1'), 403, CONSENT_MISSING);
    expect((await read(pair.second.url, v, c, 'E1')).status).toBe(200);
    // d naming c's employee id that only c has: nothing of c's is touched, and nothing is told.
    expect((await revoke(appBasic(d), { employee_id: 'E3' })).body.data).toEqual({ employee_id: 'E3', revoked: [] });
    expect((await read(pair.second.url, v, c, 'E3')).status).toBe(200);
  });

  it("refuses vendors' credentials, a wrong secret and a missing credential", async () => {
    const body = { employee_id: 'E3' };
    expectError(await revoke(v.apiKey, body), 401, plain('Invalid token.'));
    // A vendor org has app credentials too; they are not an employer's.
    expectError(await revoke(appBasic(v), body), 401, plain('Invalid token.'));
    expectError(await revoke(appBasic({ org: c.org, appSecret: `${c.appSecret}x` }), body), 401, plain('Invalid token.'));
    expectError(await revoke(undefined, body), 401, plain('Authentication credentials were not provided.'));
    expect((await read(pair.second.url, v, c, 'E3')).status).toBe(200);
  });

  it('answers bad ids and bodies with a 400 naming the field', async () => {
    const cases: [unknown, ReturnType<typeof invalid>][] = [
      [{ employee_id: 'E3', vendor_org: '' }, invalid('vendor_org', 'required')],
      [{ employee_id: '' }, invalid('employee_id', 'required')],
      [{ employee_id: 'E3', org: c.org.uuid }, invalid('org', 'unknown field')],
    ];
    for (const [body, expected] of cases) expectError(await revoke(appBasic(c), body), 400, expected);
    // A vendor_org that is not a UUID is an unknown vendor (docs/api.md "Conventions"): nothing revoked.
    const malformed = await revoke(appBasic(c), { employee_id: 'E3', vendor_org: 'lender' });
    expect({ status: malformed.status, revoked: malformed.body.data.revoked }).toEqual({ status: 200, revoked: [] });
    expect((await revoke(appBasic(c), {})).body.data.errors[0].field).toBe('employee_id');
    expect((await read(pair.second.url, v, c, 'E3')).status).toBe(200);
  });
});
