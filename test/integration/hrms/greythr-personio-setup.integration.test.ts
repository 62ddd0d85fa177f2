/**
 * greytHR and Personio through hrx (docs/api.md "Setup config", docs/hrms/connectors.md): setup-config refuses credentials that do
 * not fit the product naming the body field, accepts the simulator's, and the sync logs a value it
 * could not translate by its field's name only (never the value); a vendor reads the synced,
 * masked record over HTTP.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGreythrSim } from '../../../src/hrms/greythr/sim/server';
import { startPersonioSim } from '../../../src/hrms/personio/sim/server';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { maskRecord } from '../../../src/domain/masking';
import { normalizeRecord } from '../../../src/domain/record';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError, invalid } from '../../support/expect-error';

let app: TestApp;
let greythr: DialectSim;
let personio: DialectSim;
const lines: string[] = [];
let n = 0;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({ worker: false, env: { LOG_LEVEL: 'info' }, logStream: sink });
  greythr = await startGreythrSim({ employees: 120, seed: 'setup-greythr' });
  personio = await startPersonioSim({ employees: 60, seed: 'setup-personio' });
});
afterAll(async () => {
  await greythr?.close();
  await personio?.close();
  await app?.stop();
});

async function org() {
  const v = await vendor(app.ctx, `GP vendor ${++n}`);
  const c = await client(app.ctx, `GP client ${n}`);
  await connection(app.ctx, v.org.uuid, c.org.uuid, { liveSource: true });
  return { v, c };
}
const setup = (c: Awaited<ReturnType<typeof org>>['c'], body: object) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...body }),
  });

describe('setup-config for greytHR and Personio', () => {
  it('names the field a product needs or refuses', async () => {
    const { c } = await org();
    const g = greythr.setup();
    expectError(
      await setup(c, { ...g, access_credentials: { ...g.access_credentials, client_secret: '' } }),
      400,
      invalid('access_credentials.client_secret', 'required for greythr'),
    );
    expectError(
      await setup(c, { ...g, api_configs: [{ api_id: 'token', access_credentials: g.api_configs[0]!.access_credentials }] }),
      400,
      invalid('api_configs.0.api_id', 'not an api_id of greythr (one of api)'),
    );
    const p = personio.setup();
    expectError(
      await setup(c, { ...p, access_credentials: { ...p.access_credentials, grant_type: 'api_key' } }),
      400,
      invalid('access_credentials.grant_type', 'must be client_credentials for personio'),
    );
    expectError(await setup(c, { ...p, access_credentials: { ...p.access_credentials, client_secret: 'wrong' } }), 400, {
      code: 400,
      message: 'HRMS credentials rejected: the HRMS refused the credentials',
      data: null,
    });
  });

  it('greytHR: configured, synced, an untranslatable number logged by field name only, and read back masked by a vendor', async () => {
    const { v, c } = await org();
    expect((await setup(c, greythr.setup())).status).toBe(200);
    expect(await app.ctx.services.sync.run(c.org.id, 'setup', `gp-${++n}`)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 120 });
    const warned = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'HRMS value left empty');
    expect(warned.map((l) => [l.orgId, l.field])).toContainEqual([c.org.id, 'personal.maritalStatus']);
    // Every 89th employee's marital status is an id no list knows (greythr/sim/render.ts): logged, never its value.
    expect(
      warned.every((l) => Object.keys(l).every((k) => ['level', 'time', 'pid', 'hostname', 'msg', 'name', 'orgId', 'hrmsId', 'field', 'reason'].includes(k))),
    ).toBe(true);
    const e = greythr.expected()[88]!;
    const res = await call(`${app.url}/api/employee_details/${e.employeeId}?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, { headers: { username: v.apiKey } });
    expect(res.status).toBe(200);
    const { id: _id, ...got } = res.body.data;
    const { id: _x, ...want } = maskRecord(normalizeRecord(e, 'x'));
    expect(got).toEqual(want);
    expect(got.maritalStatus).toBe('NOT AVAILABLE');
  });

  it('Personio: configured and synced; a scheduled run is incremental and asks only for changes', async () => {
    const { c } = await org();
    expect((await setup(c, personio.setup())).status).toBe(200);
    expect(await app.ctx.services.sync.run(c.org.id, 'setup', `gp-${++n}`)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 60 });
    personio.change(personio.employeeIds()[5]!);
    personio.resetStats();
    expect(await app.ctx.services.sync.run(c.org.id, 'schedule', `gp-${++n}`)).toMatchObject({
      status: 'succeeded',
      kind: 'incremental',
      employees: 1,
      removed: 0,
    });
    // One answer with every change; the full sync's token is reused (one process, one token per company).
    expect(personio.stats()).toMatchObject({ requests: 1, tokenRequests: 0 });
  });
});
