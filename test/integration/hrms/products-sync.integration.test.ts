/**
 * Keka and Zoho People through hrx end to end: setup-config over HTTP with each simulator's
 * setup pieces (the credential checks of docs/hrms/connectors.md naming the field, wrong credentials
 * refused after one token request), a full sync of 500 employees equal to the simulator's
 * ground truth field by field as the vendor API serves it, and a live read (`source=hrms`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord } from '../../../src/domain/record';
import { connectorFor } from '../../../src/hrms/registry';
import { DIALECT_SIMS } from '../../../src/hrms/sim/dialects';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { call, startTestApp, type TestApp } from '../../support/harness';
import * as f from '../../support/factories';
import { expectError, invalid } from '../../support/expect-error';
import { storedRecords } from '../../support/stored';
import { DEFAULT_KEKA_SIM_LABELS, hrxLabelsFor } from '../../../src/hrms/keka/sim/render';

const EMPLOYEES = 500;
/**
 * A limit the first sync of EMPLOYEES fills (a few data calls a window; hrx adds its 1 s margin),
 * on the simulator and hrx's budget alike.
 */
const TIGHT = { requests: 2, windowMs: 1500 };
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

const post = (body: unknown) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe.each([
  { hrmsId: 'keka', grant: 'kekaapi' },
  { hrmsId: 'zoho_people', grant: 'refresh_token' },
])('$hrmsId through hrx', ({ hrmsId, grant }) => {
  let sim: DialectSim;
  beforeAll(async () => {
    // No pay months: the 24-month backfill at the product's published limit has its own suites (sync/pay-backfill, the products' payroll suites).
    sim = await DIALECT_SIMS.get(hrmsId)!({ employees: EMPLOYEES, seed: `${hrmsId}-e2e`, variants: { payHistoryMonths: 0 } });
  });
  afterAll(async () => {
    await sim?.close();
  });

  const body = (c: Awaited<ReturnType<typeof f.client>>, setup = sim.setup()) => ({ client_id: c.org.appKey, client_secret: c.appSecret, ...setup });

  it('names the field of a credential the product needs, before calling it', async () => {
    const c = await f.client(app.ctx);
    const setup = sim.setup();
    sim.resetStats();
    expectError(
      await post(body(c, { ...setup, access_credentials: { ...setup.access_credentials, api_key: '' } })),
      400,
      invalid('access_credentials.api_key', `required for ${hrmsId}`),
    );
    expectError(
      await post(body(c, { ...setup, access_credentials: { ...setup.access_credentials, grant_type: 'client_credentials' } })),
      400,
      invalid('access_credentials.grant_type', `must be ${grant} for ${hrmsId}`),
    );
    expectError(
      await post(body(c, { ...setup, api_configs: [{ api_id: 'payroll', access_credentials: { hrms_host: sim.url, grant_type: grant } }] })),
      400,
      invalid('api_configs.0.api_id', `not an api_id of ${hrmsId} (one of token)`),
    );
    expect(sim.stats().requests).toBe(0);
  });

  it('refuses wrong credentials after one token request', async () => {
    const c = await f.client(app.ctx);
    sim.resetStats();
    expectError(await post(body(c, sim.wrongSetup())), 400, { code: 400, message: 'HRMS credentials rejected: the HRMS refused the credentials', data: null });
    expect(sim.stats()).toMatchObject({ tokenRequests: 1, requests: 1 });
  });

  it('syncs every employee equal to the ground truth, reading one live right after the first sync, and the plain reads', async () => {
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
    // Counted from setup on: its credential check is a call of the tenant's too.
    sim.resetStats();
    const res = await post(body(c));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ org_id: c.org.uuid, hrms_id: hrmsId, configured_apis: ['token'] });
    expect(JSON.stringify(res.body)).not.toContain(sim.setup().access_credentials.client_secret!);
    expect(await app.ctx.services.sync.run(c.org.id, 'test', `${hrmsId}-e2e-1`)).toMatchObject({ status: 'succeeded', employees: EMPLOYEES, removed: 0 });

    const read = (id: string, extra = '') =>
      call(`${app.url}/api/employee_details/${id}?org=${c.org.uuid}&vendor_org=${v.org.uuid}${extra}`, { headers: { username: v.apiKey } });
    const expected = sim.expected();
    // Right after the first sync, the live read finds room in the budget the setup and the sync
    // spent (a 503 would mean it did not within its wait).
    const live = await read(expected[41]!.employeeId, '&source=hrms');
    expect(live.status).toBe(200);
    expect(live.body.data).toEqual(maskRecord(normalizeRecord(expected[41]!, live.body.data.id)));
    expect(sim.stats()).toMatchObject({ throttled: 0, authFailures: 0 });
    expect(sim.stats().maxInWindow).toBeLessThanOrEqual(sim.stats().limit.requests);

    expect(expected).toHaveLength(EMPLOYEES);
    for (let k = 0; k < expected.length; k += 25) {
      await Promise.all(
        expected.slice(k, k + 25).map(async (e) => {
          const got = await read(e.employeeId);
          expect(got.status, e.employeeId).toBe(200);
          expect(got.body.data, e.employeeId).toEqual(maskRecord(normalizeRecord(e, got.body.data.id)));
        }),
      );
    }
  });

  it('counts the credential check in the budget the sync it queues shares: under a limit the sync fills, the HRMS never sees a window over it', async () => {
    // The same limit on both sides, so small that the first sync fills its windows: a check
    // hrx did not count would put the HRMS one call over the limit in the sync's first window.
    const tight = await DIALECT_SIMS.get(hrmsId)!({ employees: EMPLOYEES, seed: `${hrmsId}-e2e`, variants: { payHistoryMonths: 0 }, limit: TIGHT });
    const definition = connectorFor(hrmsId)!;
    const published = definition.budget;
    definition.budget = TIGHT;
    try {
      const c = await f.client(app.ctx);
      await f.connection(app.ctx, (await f.vendor(app.ctx)).org.uuid, c.org.uuid);
      expect((await post({ client_id: c.org.appKey, client_secret: c.appSecret, ...tight.setup() })).status).toBe(200);
      expect(await app.ctx.services.sync.run(c.org.id, 'test', `${hrmsId}-e2e-tight`)).toMatchObject({ status: 'succeeded', employees: EMPLOYEES });
      const stats = tight.stats();
      expect(stats).toMatchObject({ throttled: 0, authFailures: 0, limit: TIGHT });
      expect(stats.maxInWindow).toBeLessThanOrEqual(TIGHT.requests);
      // The check and the sync did not fit in one window: the sync had to wait for room.
      expect(stats.requests - stats.tokenRequests).toBeGreaterThan(TIGHT.requests + 1);
    } finally {
      definition.budget = published;
      await tight.close();
    }
  });
});

describe('keka label tables in setup-config (access_credentials.enum_labels)', () => {
  let sim: DialectSim;
  beforeAll(async () => {
    sim = await DIALECT_SIMS.get('keka')!({ employees: 60, seed: 'keka-labels', variants: { hrxKnowsLabels: true } });
  });
  afterAll(async () => {
    await sim?.close();
  });
  const body = (c: Awaited<ReturnType<typeof f.client>>, enumLabels: unknown) => {
    const setup = sim.setup();
    return { client_id: c.org.appKey, client_secret: c.appSecret, ...setup, access_credentials: { ...setup.access_credentials, enum_labels: enumLabels } };
  };

  it('refuses tables keka does not have, codes that are not integers or not defined by keka, and group types that fill no field, naming the field', async () => {
    const c = await f.client(app.ctx);
    expectError(
      await post(body(c, { colour: { 1: 'Red' } })),
      400,
      invalid(
        'access_credentials.enum_labels.colour',
        'not a keka enumeration (one of gender, maritalStatus, bloodGroup, workerType, timeType, relationType, groupType)',
      ),
    );
    expectError(await post(body(c, { gender: { M: 'Male' } })), 400, invalid('access_credentials.enum_labels.gender.M', 'codes are integers'));
    // Keka's description defines Gender as 0 to 3: a table for code 7 names a value Keka never sends.
    expectError(await post(body(c, { gender: { 7: 'Male' } })), 400, invalid('access_credentials.enum_labels.gender.7', 'not a code keka defines (0 to 3)'));
    expectError(
      await post(body(c, { groupType: { 2: 'salary' } })),
      400,
      invalid('access_credentials.enum_labels.groupType.2', 'must be one of department, groupName, costCenter, companyName'),
    );
  });

  it("a configured table translates the tenant's codes in the synced records", async () => {
    const v = await f.vendor(app.ctx);
    const c = await f.client(app.ctx);
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    // The tables matching the simulator's (default) codes: what an operator configures after checking the tenant.
    const labels = hrxLabelsFor(DEFAULT_KEKA_SIM_LABELS);
    expect((await post(body(c, labels))).status).toBe(200);
    expect(await app.ctx.services.sync.run(c.org.id, 'test', 'keka-labels-1')).toMatchObject({ status: 'succeeded', employees: 60 });
    const stored = await storedRecords(app, c.org.id);
    const expected = sim.expected();
    for (const e of expected) expect(stored.get(e.employeeId)?.record, e.employeeId).toEqual(normalizeRecord(e, stored.get(e.employeeId)!.record.id));
    // The labels came from setup-config: the tenant's gender codes are not Keka defaults hrx knows.
    const genders = new Set([...stored.values()].map((s) => s.record.gender));
    expect(genders.has('Male') && genders.has('Female')).toBe(true);
    expect([...genders].every((g) => Object.values(labels.gender!).includes(g))).toBe(true);
  });
});
