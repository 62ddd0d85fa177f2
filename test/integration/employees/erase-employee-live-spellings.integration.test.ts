/**
 * An erased employee under another spelling of its id, read live (docs/api.md "Live reads serve
 * the employee asked for"): the employer erases `7`; a vendor with live reads and no consent
 * required then asks for `007`, `0007` and ` 7` on BambooHR and Personio (and `EMP000007`,
 * `EMP0000007` and ` EMP00007` on the reference HRMS, its lookup made to read the number in a
 * code as some HRMS lookups do: `lenientCodes`), plain and V2. Each answer is the unknown employee's, nothing is audited, and on the
 * products whose ids are decimal numbers the HRMS is not even called (docs/hrms/connectors.md
 * "Employee ids in live reads").
 */
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest } from '../../../src/crypto/jose/client';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { expectError, plain, withoutRequestId } from '../../support/expect-error';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const NOT_FOUND = plain('Employee not found');

let app: TestApp;
let jwks: JSONWebKeySet;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

const post = (path: string, body: unknown, authorization: string) =>
  call(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });

/** What the suite needs of an HRMS: its setup-config pieces, the ids it serves, how many calls it received. */
interface Hrms {
  setup: () => Record<string, unknown>;
  employeeIds: () => string[];
  requests: () => number;
  resetStats: () => void;
  close: () => Promise<void>;
}

/** The reference HRMS whose lookup reads `EMP000007` as `EMP00007`. */
async function lenientReference(): Promise<Hrms> {
  const creds = { clientId: 'lenient-client', clientSecret: 'lenient-hrms-secret-Q8' };
  const sim = await startSim({ employees: 12, seed: 'live-spellings-reference', lenientCodes: true, ...creds });
  const setup = {
    hrms_id: 'reference',
    access_credentials: { client_id: creds.clientId, client_secret: creds.clientSecret, api_key: '', grant_type: 'client_credentials', hrms_host: sim.url },
    api_configs: [],
  };
  return {
    setup: () => setup,
    employeeIds: () => ['EMP00007'],
    requests: () => sim.control.stats().employeeRequests,
    resetStats: () => sim.control.resetStats(),
    close: () => sim.close(),
  };
}

/** A product's dialect simulator (its own id rules, `src/hrms/<hrms_id>/sim/`). */
async function dialect(hrmsId: string): Promise<Hrms> {
  const sim = await DIALECT_SIMS.get(hrmsId)!({ employees: 12, seed: `live-spellings-${hrmsId}` });
  return {
    setup: () => sim.setup(),
    employeeIds: () => sim.employeeIds(),
    requests: () => sim.stats().requests,
    resetStats: () => sim.resetStats(),
    close: () => sim.close(),
  };
}

/** Other spellings of `id` that a lenient HRMS lookup may read as `id`: leading zeros, a space. */
function spellingsOf(id: string): string[] {
  const m = /^(\D*)(\d+)$/.exec(id)!;
  return [`${m[1]}00${m[2]}`, `${m[1]}000${m[2]}`, ` ${id}`];
}

describe.each([
  { hrmsId: 'reference', callsHrms: true, start: lenientReference },
  { hrmsId: 'bamboohr', callsHrms: false, start: () => dialect('bamboohr') },
  { hrmsId: 'personio', callsHrms: false, start: () => dialect('personio') },
])('$hrmsId: an erased employee read live under another spelling', ({ hrmsId, callsHrms, start }) => {
  let sim: Hrms;
  let c: Awaited<ReturnType<typeof f.client>>;
  let lv: Awaited<ReturnType<typeof f.v2Vendor>>;
  let connId: string;
  let id: string;

  const read = (employeeId: string) =>
    call(`${app.url}/api/employee_details/${encodeURIComponent(employeeId)}?org=${c.org.uuid}&vendor_org=${lv.org.uuid}&source=hrms`, {
      headers: { username: lv.apiKey },
    });
  const readV2 = async (employeeId: string) =>
    post(
      '/api/external/employee/',
      {
        encrypted_payload: await buildEncryptedRequest({
          connectionId: connId,
          employeeId,
          source: 'hrms',
          vendorPrivateKey: lv.privateKey,
          vendorKid: lv.kid,
          servicePublicJwk: jwks.keys.find((k) => k.use === 'enc')!,
        }),
      },
      lv.authorization,
    );
  const audited = async () => (await dbQuery(app, `select count(*)::int as n from audit_log where client_org_id = $1`, [c.org.id])).rows[0].n as number;

  beforeAll(async () => {
    sim = await start();
    c = await f.client(app.ctx);
    lv = await f.v2Vendor(app.ctx);
    connId = (await f.connection(app.ctx, lv.org.uuid, c.org.uuid, { consentRequired: false, liveSource: true })).id;
    expect((await post('/api/webhook/v1/setup-config/', { client_id: c.org.appKey, client_secret: c.appSecret, ...sim.setup() }, '')).status).toBe(200);
    expect(await app.ctx.services.sync.run(c.org.id, 'test', `live-spellings-${hrmsId}`)).toMatchObject({ status: 'succeeded', employees: 12 });
    const ids = sim.employeeIds();
    id = ids.includes('7') ? '7' : ids.find((e) => /\d$/.test(e))!;
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
  });

  it('before erasure the id itself is served live, plain and V2 (so the refusals below can fail)', async () => {
    const res = await read(id);
    expect({ status: res.status, employeeId: res.body.data?.employeeId }).toStrictEqual({ status: 200, employeeId: id });
    expect((await readV2(id)).status).toBe(200);
  });

  it('after erasure every spelling is the unknown employee, plain and V2, audited nowhere', async () => {
    const erased = await post('/api/webhook/v1/employee/erase/', { employee_id: id }, f.appBasic(c));
    expect({ status: erased.status, employee_id: erased.body.data?.employee_id }).toStrictEqual({ status: 200, employee_id: id });
    const unknownV2 = await readV2('990000001');
    expect(unknownV2.status).toBe(404);
    const before = await audited();
    sim.resetStats();
    for (const spelling of [...spellingsOf(id), id]) {
      expectError(await read(spelling), 404, NOT_FOUND);
      const v2 = await readV2(spelling);
      expect({ spelling, status: v2.status, body: withoutRequestId(v2.body) }).toStrictEqual({
        spelling,
        status: unknownV2.status,
        body: withoutRequestId(unknownV2.body),
      });
    }
    expect(await audited()).toBe(before);
    // The reference HRMS answered `EMP00007` for `EMP000007`: hrx refused what it was given.
    // BambooHR and Personio ids are numbers written without leading zeros: such a spelling names
    // no employee and never reaches the HRMS; the trimmed ` 7` is `7`, stopped by its tombstone.
    if (!callsHrms) expect(sim.requests()).toBe(0);
    else expect(sim.requests()).toBeGreaterThan(0);
  });
});
