/**
 * SDK token issuance (docs/api.md "SDK token and the Connect flow"; docs/connect.md "E-mail verification before an organisation is set up"): org resolution by
 * remote_org_id, private e-mail domain and org_name; the pending connection and its requested data
 * points (validation: create-sdk-token-validation.integration.test.ts). Real HTTP, PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_DATA_POINTS } from '../../../src/domain/data-points';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid } from '../../support/expect-error';
import { dbQuery } from '../../support/db';
import { storedUsers } from '../../support/stored';

let app: TestApp;
let a: Awaited<ReturnType<typeof f.vendor>>;
const sql = async <T = Record<string, unknown>>(q: string, params: unknown[] = []) => (await dbQuery(app, q, params)).rows as T[];

beforeAll(async () => {
  // outlook.com is left out of the common list on purpose: the list is configuration.
  app = await startTestApp({ worker: false, env: { HRX_COMMON_EMAIL_DOMAINS: 'gmail.com, Yahoo.com,corp-mail.example' } });
  a = await f.vendor(app.ctx, 'Lender A');
});
afterAll(async () => {
  await app?.stop();
});

const token = (body: unknown, key = a.apiKey, headers: Record<string, string> = {}) =>
  call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const orgOf = async (uuid: string) => (await sql(`select * from orgs where uuid = $1`, [uuid]))[0]!;
const activeConnection = async (clientUuid: string, vendorOrgId = a.org.id) =>
  (
    await sql(`select c.* from connections c join orgs o on o.id = c.client_org_id where o.uuid = $1 and c.vendor_org_id = $2 and c.status <> 'terminated'`, [
      clientUuid,
      vendorOrgId,
    ])
  )[0]!;

describe('SDK token: org resolution', () => {
  it('answers the SDK token result in the envelope', async () => {
    const res = await token(
      { email: 'hr@acme-corp.example', org_name: 'Acme Corp', fullname: 'Asha Rao', corporate_reference_data: { unique_id: 'U-1', branch: { city: 'Pune' } } },
      `Bearer ${a.apiKey}`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['requestId', 'message', 'data']);
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    expect(res.body.message).toBe('success');
    expect(Object.keys(res.body.data)).toEqual(['org_id', 'access_token', 'exp', 'corporate_reference_data']);
    expect(res.body.data.exp).toBe(3600);
    expect(res.body.data.access_token.split('.')).toHaveLength(3);
    expect(res.body.data.corporate_reference_data).toStrictEqual({ unique_id: 'U-1', branch: { city: 'Pune' } });
    const without = await token({ email: 'ops@acme-corp.example', org_name: 'Acme Corp', fullname: 'Ravi K' });
    expect(without.body.data.corporate_reference_data).toStrictEqual({});
  });

  it('private domain: one client org per domain, created pending, whatever org_name says', async () => {
    const first = await token({ email: 'Priya@Initech.example', org_name: 'Initech', fullname: 'Priya N' });
    const second = await token({ email: 'cfo@initech.example', org_name: 'Some Other Name', fullname: 'Dev S' });
    expect(second.body.data.org_id).toBe(first.body.data.org_id);
    const org = await orgOf(first.body.data.org_id);
    expect(org).toMatchObject({
      org_name: 'Initech',
      email_domain: 'initech.example',
      is_client: true,
      is_vendor: false,
      invite_status: 'pending',
      remote_org_id: null,
    });
    const users = (await storedUsers(app, org.id as number)).map((u) => ({ email: u.email, full_name: u.fullName }));
    expect(users).toStrictEqual([
      { email: 'cfo@initech.example', full_name: 'Dev S' },
      { email: 'priya@initech.example', full_name: 'Priya N' },
    ]);
    // The same e-mail again is the same user; its first name is kept.
    await token({ email: 'priya@initech.example', org_name: 'Initech', fullname: 'Someone Else' });
    expect((await storedUsers(app, org.id as number)).filter((u) => u.email === 'priya@initech.example').map((u) => u.fullName)).toStrictEqual(['Priya N']);
    // A domain outside the configured common list is private, even a well-known one.
    const outlook = await token({ email: 'x@outlook.com', org_name: 'Outlook Person Co', fullname: 'X' });
    expect((await orgOf(outlook.body.data.org_id)).email_domain).toBe('outlook.com');
  });

  it('private domain: an org the operator created with that domain is returned as it is', async () => {
    const { org } = await app.ctx.services.orgs.create({ name: 'Globex', vendor: false, client: true, domain: 'globex.example' });
    const res = await token({ email: 'hr@globex.example', org_name: 'Globex Corporation', fullname: 'Hank S' });
    expect(res.body.data.org_id).toBe(org.uuid);
    expect(await orgOf(org.uuid)).toMatchObject({ org_name: 'Globex', invite_status: 'accepted' });
  });

  it('common domain: org_name decides, matched case-insensitively after trimming', async () => {
    const first = await token({ email: 'founder@gmail.com', org_name: '  Zeta Labs ', fullname: 'Z One' });
    const same = await token({ email: 'other@yahoo.com', org_name: 'ZETA LABS', fullname: 'Z Two' });
    const custom = await token({ email: 'hr@corp-mail.example', org_name: 'zeta labs', fullname: 'Z Three' });
    const other = await token({ email: 'founder@gmail.com', org_name: 'Zeta Labs Two', fullname: 'Z One' });
    expect(same.body.data.org_id).toBe(first.body.data.org_id);
    expect(custom.body.data.org_id).toBe(first.body.data.org_id);
    expect(other.body.data.org_id).not.toBe(first.body.data.org_id);
    expect(await orgOf(first.body.data.org_id)).toMatchObject({
      org_name: 'Zeta Labs',
      org_name_key: 'zeta labs',
      email_domain: null,
      invite_status: 'pending',
    });
  });

  it('remote_org_id: the org holding it, created with it on first use, no domain or name validation', async () => {
    const first = await token({ email: 'a@gmail.com', org_name: 'Acme Corp', fullname: 'A', remote_org_id: 'crm-42' });
    const acme = await token({ email: 'hr@acme-corp.example', org_name: 'Acme Corp', fullname: 'Asha Rao' });
    expect(first.body.data.org_id).not.toBe(acme.body.data.org_id);
    const again = await token({ email: 'b@acme-corp.example', org_name: 'Entirely Different', fullname: 'B', remote_org_id: 'crm-42' });
    expect(again.body.data.org_id).toBe(first.body.data.org_id);
    expect(await orgOf(first.body.data.org_id)).toMatchObject({
      remote_org_id: 'crm-42',
      remote_org_vendor_id: a.org.id,
      created_via: 'remote_org_id',
      org_name: 'Acme Corp',
      email_domain: null,
      is_client: true,
    });
    // Another vendor's same remote id names another org (docs/connect.md "Org resolution").
    const c = await f.vendor(app.ctx, 'Lender C');
    const theirs = await token({ email: 'a@gmail.com', org_name: 'Acme Corp', fullname: 'A', remote_org_id: 'crm-42' }, c.apiKey);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.org_id).not.toBe(first.body.data.org_id);
    expect(await orgOf(theirs.body.data.org_id)).toMatchObject({ remote_org_id: 'crm-42', remote_org_vendor_id: c.org.id });
    // A remote id held by a vendor org does not make that vendor a client.
    const b = await f.vendor(app.ctx, 'Lender B');
    await sql(`update orgs set remote_org_id = 'vendor-b', remote_org_vendor_id = $2 where id = $1`, [b.org.id, a.org.id]);
    expectError(
      await token({ email: 'a@gmail.com', org_name: 'X', fullname: 'A', remote_org_id: 'vendor-b' }),
      400,
      invalid('remote_org_id', 'does not resolve to a client organisation'),
    );
  });
});

describe('SDK token: the pending connection and the key', () => {
  it('creates one pending connection holding the flags; absent flags request every data point as optional', async () => {
    const flags = {
      detail_info_fields: { name: -1, gender: 1, dob: 0 },
      ctc_details_fields: { ctc_basic: 1, monthly_deductions_tds: -1 },
      dependent_details_fields: {},
    };
    const res = await token({ email: 'hr@flags.example', org_name: 'Flags Inc', fullname: 'F', data_model_flags: flags });
    const c = await activeConnection(res.body.data.org_id);
    expect(c).toMatchObject({ status: 'pending', data_model_flags: flags, consent_required: true });
    const list = await call(`${app.url}/api/vendor/connections/?status=pending&page_size=100`, { headers: { authorization: a.apiKey } });
    const entry = list.body.data.find((e: { org_id: string }) => e.org_id === res.body.data.org_id);
    expect(entry).toMatchObject({
      shared_data_points: [],
      not_shared_data_points: ['name', 'gender', 'ctc_basic', 'monthly_deductions_tds'],
      application_connection_status: 'Inactive',
    });
    expect(entry.not_requested_data_points).toHaveLength(ALL_DATA_POINTS.length - 4);
    expect(entry.not_requested_data_points).toContain('dob');

    const all = await token({ email: 'hr@noflags.example', org_name: 'No Flags', fullname: 'N' });
    const allEntry = (await call(`${app.url}/api/vendor/connections/?status=pending&page_size=100`, { headers: { authorization: a.apiKey } })).body.data.find(
      (e: { org_id: string }) => e.org_id === all.body.data.org_id,
    );
    expect(allEntry.not_shared_data_points).toStrictEqual([...ALL_DATA_POINTS]);
    expect(allEntry.not_requested_data_points).toStrictEqual([]);
    // Asking again updates the pending request instead of adding a connection.
    const again = await token({ email: 'hr@flags.example', org_name: 'Flags Inc', fullname: 'F', data_model_flags: { detail_info_fields: { pan: 1 } } });
    const after = await sql(`select c.id, c.data_model_flags from connections c join orgs o on o.id = c.client_org_id where o.uuid = $1`, [
      again.body.data.org_id,
    ]);
    expect(after).toStrictEqual([{ id: c.id, data_model_flags: { detail_info_fields: { pan: 1 } } }]);
  });

  it('leaves an approved connection as it is and asks a rejected one again', async () => {
    // Orgs the operator made are found by their domain, never by their name (docs/connect.md "Org resolution").
    const client = await app.ctx.services.orgs.create({ name: 'Approved Co', vendor: false, client: true, domain: 'approved-co.example' });
    const approved = await f.connection(app.ctx, a.org.uuid, client.org.uuid, { shared: ['name', 'pan'] });
    await app.ctx.services.sdk.issueToken(
      { orgId: a.org.id, orgUuid: a.org.uuid, isVendor: true, isClient: false, credentialId: 't' },
      {
        email: 'x@approved-co.example',
        org_name: 'approved co',
        fullname: 'X',
        data_model_flags: { detail_info_fields: { dob: -1 } },
      },
    );
    expect(await activeConnection(client.org.uuid)).toMatchObject({
      id: approved.id,
      status: 'approved',
      shared_data_points: ['name', 'pan'],
      data_model_flags: null,
    });

    const rejectedClient = await app.ctx.services.orgs.create({ name: 'Rejected Co', vendor: false, client: true, domain: 'rejected-co.example' });
    const rejected = await f.connection(app.ctx, a.org.uuid, rejectedClient.org.uuid, { status: 'rejected' });
    await token({ email: 'y@rejected-co.example', org_name: 'Rejected Co', fullname: 'Y', data_model_flags: { detail_info_fields: { dob: 1 } } });
    expect(await activeConnection(rejectedClient.org.uuid)).toMatchObject({
      id: rejected.id,
      status: 'pending',
      data_model_flags: { detail_info_fields: { dob: 1 } },
    });
  });

  it("refuses a key that is not a vendor's, and a missing key", async () => {
    const client = await f.client(app.ctx, 'Keyed Client');
    const clientKey = await app.ctx.services.orgs.createApiKey(client.org.uuid);
    const body = { email: 'hr@keyed.example', org_name: 'K', fullname: 'K' };
    expectError(await token(body, clientKey), 401, { message: 'Invalid token.', data: null });
    expectError(await token(body, 'hrx_not-a-key'), 401, { message: 'Invalid token.', data: null });
    const missing = await call(`${app.url}/api/sdk/token/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expectError(missing, 401, { message: 'Authentication credentials were not provided.', data: null });
    expect(await sql(`select 1 from orgs where email_domain = 'keyed.example'`)).toHaveLength(0);
  });
});
