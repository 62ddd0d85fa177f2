/**
 * The attacker review of the credentials (docs/api.md "Credentials"): every credential hrx issues, tried
 * at every door it was not made for, over HTTP. A vendor's API key, its V2 Basic credential, a
 * client org's app credentials (as Basic and in setup-config's body), an SDK token and a Connect
 * session cookie each reach only their own endpoints; elsewhere the answer is 401 (or setup-config's
 * 401 for its body credentials), and nothing is stored. A vendor-only org's own application
 * credentials configure nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let v: Awaited<ReturnType<typeof f.v2Vendor>>;
let c: Awaited<ReturnType<typeof f.client>>;
const SIM = { clientId: 'probe', clientSecret: 'probe-secret' };

beforeAll(async () => {
  // More failures than the default limit of 20 a minute: this test counts refusals, not the limit.
  app = await startTestApp({ worker: false, env: { HRX_AUTH_FAILURE_LIMIT: '1000' } });
  sim = await startSim(SIM);
  v = await f.v2Vendor(app.ctx);
  c = await f.client(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid);
  await f.employees(app.ctx, c.org.id, [{ employeeId: 'EMP00001', name: 'Meera Iyer' }]);
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const json = { 'content-type': 'application/json' };

describe('credentials beyond their use', () => {
  it('each credential is refused at every door but its own', async () => {
    const sdk = await f.sdkToken(app.ctx, v.org);
    const session = await openSession(app.url, (await f.sdkToken(app.ctx, v.org)).access_token);
    const credentials: Record<string, Record<string, string>> = {
      'vendor V2 Basic': { authorization: v.authorization },
      'client app Basic': { authorization: f.appBasic(c) },
      'SDK token (Bearer)': { authorization: `Bearer ${sdk.access_token}` },
      'SDK token (raw)': { authorization: sdk.access_token },
      'Connect session cookie': { cookie: session.cookie },
    };
    const doors = {
      'vendor connections': (h: Record<string, string>) => call(`${app.url}/api/vendor/connections/`, { headers: h }),
      'org details': (h: Record<string, string>) => call(`${app.url}/api/org_details/${c.org.uuid}/`, { headers: h }),
      'employee details': (h: Record<string, string>) =>
        call(`${app.url}/api/employee_details/EMP00001?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
          headers: { ...h, ...(h.authorization ? { username: h.authorization } : {}) },
        }),
      'sdk token': (h: Record<string, string>) =>
        call(`${app.url}/api/sdk/token/`, {
          method: 'POST',
          headers: { ...h, ...json },
          body: JSON.stringify({ email: 'hr@probe.example', org_name: 'Probe', fullname: 'P' }),
        }),
      'update webhook': (h: Record<string, string>) =>
        call(`${app.url}/api/webhook/v1/employee/update/`, {
          method: 'POST',
          headers: { ...h, ...json },
          body: JSON.stringify({ employeeId: 'EMP00001', name: 'Overwritten' }),
        }),
      V2: (h: Record<string, string>) =>
        call(`${app.url}/api/external/employee/`, {
          method: 'POST',
          headers: { ...h, ...json },
          body: JSON.stringify({ encrypted_payload: 'x' }),
        }),
      'connect view': (h: Record<string, string>) => call(`${app.url}/api/sdk/connect/`, { headers: h }),
    };
    // The one door each credential is for (all others must refuse it).
    const own: Record<string, string[]> = {
      'vendor V2 Basic': ['V2'],
      'client app Basic': ['update webhook'],
      'SDK token (Bearer)': [],
      'SDK token (raw)': [],
      'Connect session cookie': ['connect view'],
    };
    const accepted: string[] = [];
    for (const [cred, headers] of Object.entries(credentials)) {
      for (const [door, knock] of Object.entries(doors)) {
        const res = await knock(headers);
        if (own[cred]!.includes(door)) continue;
        if (res.status !== 401) accepted.push(`${cred} @ ${door}: ${res.status}`);
      }
    }
    expect(accepted).toEqual([]);
    const { rows } = await dbQuery(app, `select employee_id from employees where org_id = $1`, [c.org.id]);
    expect(rows).toHaveLength(1);
    // The update webhook was reached only with the client's own credential, which wrote its own employee.
  });

  it("client org B's app credentials at the update webhook reach B's employees only, never A's of the same employeeId", async () => {
    const b = await f.client(app.ctx, 'Other Employer');
    const before = (await dbQuery(app, `select * from employees where org_id = $1`, [c.org.id])).rows;
    const res = await call(`${app.url}/api/webhook/v1/employee/update/`, {
      method: 'POST',
      headers: { authorization: f.appBasic(b), ...json },
      body: JSON.stringify({ employeeId: 'EMP00001', name: 'Overwritten' }),
    });
    expect(res.status).toBe(200);
    expect((await dbQuery(app, `select * from employees where org_id = $1`, [c.org.id])).rows).toEqual(before);
    const { rows } = await dbQuery(app, `select org_id, id from employees where employee_id = 'EMP00001' order by org_id`);
    expect(rows.map((r: { org_id: number }) => r.org_id).sort()).toEqual([c.org.id, b.org.id].sort());
    expect(res.body.data.id).toBe(rows.find((r: { org_id: number }) => r.org_id === b.org.id).id);
    // And vendor v (connected to A only) cannot read B's.
    const read = await call(`${app.url}/api/employee_details/EMP00001?org=${b.org.uuid}&vendor_org=${v.org.uuid}`, {
      headers: { username: await app.ctx.services.orgs.createApiKey(v.org.uuid) },
    });
    expect(read.status).toBe(404);
    expect(JSON.stringify(read.body)).not.toContain('Overwritten');
  });

  it("setup-config with a vendor-only org's own application credentials: 401, nothing stored", async () => {
    const vendorOnly = await app.ctx.services.orgs.create({ name: 'Vendor Only', vendor: true, client: false, domain: 'vendor-only.example' });
    const res = await call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(f.setupBody(vendorOnly, sim, SIM)),
    });
    expect(res.status).toBe(401);
    expect((await dbQuery(app, `select 1 from hrms_configs where org_id = $1`, [vendorOnly.org.id])).rows).toHaveLength(0);
    expect(sim.control.stats().tokenRequests).toBe(0);
  });
});
