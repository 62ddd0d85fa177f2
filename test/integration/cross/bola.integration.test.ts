/**
 * Object-level authorization (docs/api.md "Credentials"): a vendor's key never reaches another vendor's
 * connections or employees, and every such attempt is answered exactly as if the object did not
 * exist. Vendor B's key is tried against vendor A's connection on every endpoint; a client org's
 * own API key gets none of the vendors' data either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, plain, withoutRequestId } from '../../support/expect-error';
import { dbQuery, storesOf } from '../../support/db';

const UNKNOWN_UUID = '0b7f9a52-61c4-4d1e-8f3a-2c5d6e7f8a9b';

let app: TestApp;
let a: Awaited<ReturnType<typeof f.vendor>>;
let b: Awaited<ReturnType<typeof f.vendor>>;
let client: Awaited<ReturnType<typeof f.client>>;
let clientKey: string;
let connectionId: string;
let empStoreId: string;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  const { ctx } = app;
  a = await f.vendor(ctx, 'Lender A');
  b = await f.vendor(ctx, 'Lender B');
  client = await f.client(ctx, 'Employer of A');
  clientKey = await ctx.services.orgs.createApiKey(client.org.uuid);
  connectionId = (await f.connection(ctx, a.org.uuid, client.org.uuid)).id;
  const [emp] = await f.employees(ctx, client.org.id, [{ employeeId: 'EMP00001', name: 'Meera Iyer' }, { employeeId: 'EMP00002' }]);
  empStoreId = emp!.id;
});
afterAll(async () => {
  await app?.stop();
});

const u = (path: string) => `${app.url}${path}`;
const details = (id: string, key: string, query: Record<string, string>) =>
  call(u(`/api/employee_details/${id}?${new URLSearchParams(query).toString()}`), { headers: { username: key } });
const orgDetails = (org: string, key: string) => call(u(`/api/org_details/${org}/`), { headers: { authorization: key } });
const connections = (key: string, qs = '') => call(u(`/api/vendor/connections/${qs}`), { headers: { authorization: key } });
const terminate = (clientOrg: string, key: string) => {
  const fd = new FormData();
  fd.append('client_org', clientOrg);
  return call(u('/api/terminate_connection/'), { method: 'POST', headers: { authorization: key }, body: fd });
};

/** A's own read of EMP00001 works: the control of every refusal below. */
async function expectAStillReads(): Promise<void> {
  const res = await details('EMP00001', a.apiKey, { org: client.org.uuid, vendor_org: a.org.uuid });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ id: empStoreId, employeeId: 'EMP00001', name: 'Meera Iyer' });
}

describe("BOLA: one vendor against another vendor's connection", () => {
  it("control: vendor A reads its client, its client's org record and its connection", async () => {
    await expectAStillReads();
    expect((await orgDetails(client.org.uuid, a.apiKey)).status).toBe(200);
    const list = await connections(a.apiKey);
    expect(list.body.pageInfo.totalItems).toBe(1);
    expect(list.body.data[0]).toMatchObject({ org_id: client.org.uuid, org_name: 'Employer of A', application_connection_status: 'Active' });
  });

  it('employee details: B gets 404 Invalid Organisation ID, the same body as for an unknown org', async () => {
    const unknown = await details('EMP00001', b.apiKey, { org: UNKNOWN_UUID, vendor_org: b.org.uuid });
    expectError(unknown, 404, plain('Invalid Organisation ID'));
    for (const id of ['EMP00001', 'EMP00002', empStoreId, 'EMP99999']) {
      for (const source of ['db', 'hrms']) {
        const res = await details(id, b.apiKey, { org: client.org.uuid, vendor_org: b.org.uuid, source });
        expectError(res, 404, plain('Invalid Organisation ID'));
        expect(withoutRequestId(res.body)).toStrictEqual(withoutRequestId(unknown.body));
        expect(Object.keys(res.body)).toStrictEqual(Object.keys(unknown.body));
      }
    }
    // Naming A as vendor_org with B's key is a wrong credential, not a way in.
    expectError(await details('EMP00001', b.apiKey, { org: client.org.uuid, vendor_org: a.org.uuid }), 401, plain('Invalid token.'));
    // Nothing of these was served, so nothing was audited against A's connection for B.
    const audited = await dbQuery(app, `select count(*)::int as n from audit_log where actor_org_id = $1`, [b.org.id]);
    expect(audited.rows[0].n).toBe(0);
  });

  it("org details: B gets 404 Not found. for A's client and for A itself", async () => {
    for (const org of [client.org.uuid, client.org.uuid.toUpperCase(), a.org.uuid]) {
      expectError(await orgDetails(org, b.apiKey), 404, plain('Not found.'));
    }
  });

  it("vendor connections: B sees none of A's, under every filter and page size", async () => {
    for (const qs of ['', '?status=approved', '?status=pending', '?status=rejected', '?page_size=100']) {
      const res = await connections(b.apiKey, qs);
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        requestId: res.headers.get('x-request-id'),
        message: 'success',
        pageInfo: { totalPages: 0, totalItems: 0, items: 0, next: false, previous: false },
        data: [],
      });
    }
  });

  it("terminate: B gets 404 No organisation found with the given client_org, and A's connection lives on", async () => {
    const notFound = { code: 404, message: 'No organisation found with the given client_org', data: null };
    for (let i = 0; i < 2; i++) expectError(await terminate(client.org.uuid, b.apiKey), 404, notFound);
    expectError(await terminate(UNKNOWN_UUID, b.apiKey), 404, notFound);
    const row = await storesOf(app).connections.findById(connectionId);
    expect(row?.status).toBe('approved');
    await expectAStillReads();
    const list = await connections(a.apiKey, '?status=approved');
    expect(list.body.data.map((e: { org_id: string }) => e.org_id)).toStrictEqual([client.org.uuid]);
  });

  it("B's own connection with the same client is its own: own sharing, own termination", async () => {
    const own = await f.connection(app.ctx, b.org.uuid, client.org.uuid, { shared: ['name'] });
    const res = await details('EMP00001', b.apiKey, { org: client.org.uuid, vendor_org: b.org.uuid });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ employeeId: 'EMP00001', name: 'Meera Iyer', email: 'NOT AVAILABLE' });
    const list = await connections(b.apiKey);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ org_id: client.org.uuid, shared_data_points: ['name'] });
    const ended = await terminate(client.org.uuid, b.apiKey);
    expect(ended.status).toBe(200);
    expect(ended.body.data).toStrictEqual({ connection_id: own.id, org_id: client.org.uuid, application_connection_status: 'Terminated' });
    // A's connection with the same client is untouched.
    expect((await storesOf(app).connections.findById(connectionId))?.status).toBe('approved');
    await expectAStillReads();
    // B's own connection ended: B is told so (docs/api.md "Employee details"); A's still reads.
    expectError(await details('EMP00001', b.apiKey, { org: client.org.uuid, vendor_org: b.org.uuid }), 404, {
      error: 'connection_terminated',
      ...plain('Invalid Organisation ID'),
    });
  });
});

describe("BOLA: a client org's own API key against the vendor endpoints", () => {
  it('reads no employee, even its own, through the vendor endpoint: not a vendor key, 401', async () => {
    for (const source of ['db', 'hrms']) {
      expectError(await details('EMP00001', clientKey, { org: client.org.uuid, vendor_org: client.org.uuid, source }), 401, plain('Invalid token.'));
    }
    // Posing as its vendor is a wrong credential too.
    expectError(await details('EMP00001', clientKey, { org: client.org.uuid, vendor_org: a.org.uuid }), 401, plain('Invalid token.'));
  });

  it('lists no vendor connections and terminates none: not a vendor key, 401', async () => {
    expectError(await connections(clientKey), 401, plain('Invalid token.'));
    expectError(await terminate(client.org.uuid, clientKey), 401, plain('Invalid token.'));
    expect((await storesOf(app).connections.findById(connectionId))?.status).toBe('approved');
    await expectAStillReads();
  });

  it('records no consent and gets no SDK token: not a vendor key, 401 before its body is even read', async () => {
    // The route's role is part of its credential (src/http/router.ts): a malformed body, which a
    // vendor's key would get 400 for, is not looked at.
    for (const path of ['/api/v1/employee/consent-data/', '/api/sdk/token/']) {
      expectError(
        await call(u(path), { method: 'POST', headers: { authorization: clientKey, 'content-type': 'application/json' }, body: '{"not json' }),
        401,
        plain('Invalid token.'),
      );
      expect(
        (await call(u(path), { method: 'POST', headers: { authorization: a.apiKey, 'content-type': 'application/json' }, body: '{"not json' })).status,
      ).toBe(400);
    }
    const { rows } = await dbQuery(app, 'select count(*)::int as n from consents where vendor_org_id = $1', [client.org.id]);
    expect(rows[0].n).toBe(0);
  });

  it('sees the org record of its connected vendor only', async () => {
    expect((await orgDetails(a.org.uuid, clientKey)).body.uuid).toBe(a.org.uuid);
    expectError(await orgDetails(b.org.uuid, clientKey), 404, plain('Not found.'));
  });
});
