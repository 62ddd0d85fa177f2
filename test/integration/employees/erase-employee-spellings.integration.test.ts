/**
 * One canonical employee id (docs/erasure-and-retention.md "One form of an employee id"):
 * `EMP00002 `, `\tEMP00002` (`%09` in a path), `EMP00002\u00a0` (no-break space) and `EMP00002`
 * name one employee everywhere an id enters: the plain read, the live read (`source=hrms`), the
 * encrypted V2 read (the `employee_id` claim), consent (submit, history, revoke, the employer's
 * revoke), the access log, the update webhook and the erasure webhook. Before erasure every
 * spelling finds the employee (so the checks after it can fail); after an erasure given with a
 * no-break space, every spelling on every path is the unknown employee, and a sync from the
 * simulator (which still lists it) does not bring it back. An id that is only white space is a
 * 400 in a body and the unknown employee in a path.
 */
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedRequest } from '../../../src/crypto/jose/client';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { expectError, invalid, plain, withoutRequestId } from '../../support/expect-error';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

const simCreds = { clientId: 'spell-client', clientSecret: 'spell-hrms-secret-Zr4' };
const ID = 'EMP00002';
const SPELLINGS = [`${ID} `, `\t${ID}`, `${ID}\u00a0`, ID];
const NOT_FOUND = plain('Employee not found');

let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
let c: Awaited<ReturnType<typeof f.client>>;
/** Consent required, API key: consent submission and history. */
let v: Awaited<ReturnType<typeof f.vendor>>;
/** No consent required, live reads allowed, V2 keys: the reads. */
let lv: Awaited<ReturnType<typeof f.v2Vendor>>;
let connId: string;
let jwks: JSONWebKeySet;

const post = (path: string, body: unknown, authorization: string) =>
  call(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
const read = (id: string, live = false) =>
  call(`${app.url}/api/employee_details/${encodeURIComponent(id)}?org=${c.org.uuid}&vendor_org=${lv.org.uuid}${live ? '&source=hrms' : ''}`, {
    headers: { username: lv.apiKey },
  });
const readV2 = async (id: string, source: 'db' | 'hrms') =>
  post(
    '/api/external/employee/',
    {
      encrypted_payload: await buildEncryptedRequest({
        connectionId: connId,
        employeeId: id,
        source,
        vendorPrivateKey: lv.privateKey,
        vendorKid: lv.kid,
        servicePublicJwk: jwks.keys.find((k) => k.use === 'enc')!,
      }),
    },
    lv.authorization,
  );
const giveConsent = (id: string) => {
  const now = Date.now();
  return post(
    '/api/v1/employee/consent-data/',
    {
      org: c.org.uuid,
      employee_id: id,
      consent_language: 'I agree that my employer shares my details.',
      consent_timestamp: new Date(now).toISOString(),
      consent_expiry: new Date(now + 86_400_000).toISOString(),
    },
    v.apiKey,
  );
};
const history = (id: string) =>
  call(`${app.url}/api/v1/employee/consent-data/?org=${c.org.uuid}&employee_id=${encodeURIComponent(id)}`, { headers: { authorization: v.apiKey } });
const accessLog = (id: string) =>
  call(`${app.url}/api/webhook/v1/employee/access-log/?employee_id=${encodeURIComponent(id)}`, { headers: { authorization: f.appBasic(c) } });
const rowsNamed = async (id: string) =>
  (await dbQuery(app, `select count(*)::int as n from employees where org_id = $1 and employee_id = $2`, [c.org.id, id])).rows[0].n;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 4, seed: 'spellings', ...simCreds });
  c = await f.client(app.ctx);
  v = await f.vendor(app.ctx);
  lv = await f.v2Vendor(app.ctx);
  await f.connection(app.ctx, v.org.uuid, c.org.uuid, { consentRequired: true });
  connId = (await f.connection(app.ctx, lv.org.uuid, c.org.uuid, { consentRequired: false, liveSource: true })).id;
  expect((await post('/api/webhook/v1/setup-config/', f.setupBody(c, sim, simCreds), '')).status).toBe(200);
  expect(await app.ctx.services.sync.run(c.org.id, 'test', 'spellings-1')).toMatchObject({ status: 'succeeded', employees: 4 });
  jwks = (await call(`${app.url}/.well-known/jwks.json`)).body as JSONWebKeySet;
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

describe('one employee id before erasure: every spelling finds the employee', () => {
  it('plain, live and V2 reads', async () => {
    for (const id of SPELLINGS) {
      const plainRead = await read(id);
      expect({ id, status: plainRead.status, employeeId: plainRead.body.data?.employeeId }).toStrictEqual({ id, status: 200, employeeId: ID });
      const liveRead = await read(id, true);
      expect({ id, status: liveRead.status, employeeId: liveRead.body.data?.employeeId }).toStrictEqual({ id, status: 200, employeeId: ID });
      for (const source of ['db', 'hrms'] as const)
        expect({ id, source, status: (await readV2(id, source)).status }).toStrictEqual({ id, source, status: 200 });
    }
    // Every read was audited under the one id: the access log by any spelling is the same list.
    const canonical = (await accessLog(ID)).body.data;
    expect(canonical.length).toBe(SPELLINGS.length * 4);
    for (const id of SPELLINGS) expect((await accessLog(id)).body.data).toStrictEqual(canonical);
  });

  it('consent: submitted, listed, revoked and revoked by the employer under any spelling', async () => {
    expect((await giveConsent(`${ID} `)).status).toBe(200);
    expect((await history(`\t${ID}`)).body.data.map((k: { status: string }) => k.status)).toStrictEqual(['active']);
    const revoked = await post('/api/v1/employee/consent-data/revoke/', { org: c.org.uuid, employee_id: `${ID}\u00a0` }, v.apiKey);
    expect({ status: revoked.status, employee_id: revoked.body.data?.employee_id }).toStrictEqual({ status: 200, employee_id: ID });
    expect((await giveConsent(`\t${ID}`)).status).toBe(200);
    const byEmployer = await post('/api/webhook/v1/employee/consent/revoke/', { employee_id: ` ${ID}\u00a0` }, f.appBasic(c));
    expect(byEmployer.status).toBe(200);
    expect((await history(ID)).body.data.map((k: { status: string }) => k.status)).toStrictEqual(['revoked', 'revoked']);
    expect((await dbQuery(app, `select distinct employee_id from consents where client_org_id = $1`, [c.org.id])).rows).toStrictEqual([{ employee_id: ID }]);
  });

  it('the update webhook stores an id with white space around it trimmed', async () => {
    const res = await post('/api/webhook/v1/employee/update/', { employeeId: ' NEW-7\u00a0', name: 'Noor Ali' }, f.appBasic(c));
    expect({ status: res.status, employeeId: res.body.data?.employeeId }).toStrictEqual({ status: 200, employeeId: 'NEW-7' });
    expect(await rowsNamed('NEW-7')).toBe(1);
    expect((await dbQuery(app, `select count(*)::int as n from employees where employee_id <> btrim(employee_id)`)).rows[0].n).toBe(0);
  });

  it('an id of white space only: 400 in a body, the unknown employee in a path', async () => {
    expectError(await post('/api/webhook/v1/employee/erase/', { employee_id: '\u00a0 \t' }, f.appBasic(c)), 400, invalid('employee_id', 'required'));
    expectError(await read('\u00a0 '), 404, NOT_FOUND);
  });
});

describe('one employee id after erasure: every spelling, every path, is the unknown employee', () => {
  it('erased as `EMP00002` + no-break space, it is gone for plain, live and V2 reads, consent and a sync', async () => {
    const erased = await post('/api/webhook/v1/employee/erase/', { employee_id: `${ID}\u00a0` }, f.appBasic(c));
    expect({ status: erased.status, employee_id: erased.body.data?.employee_id }).toStrictEqual({ status: 200, employee_id: ID });
    const unknownV2 = await readV2('NO-SUCH-EMPLOYEE', 'db');
    const unknownConsent = await giveConsent('NO-SUCH-EMPLOYEE');
    expectError(unknownConsent, 404, NOT_FOUND);
    for (const id of SPELLINGS) {
      expectError(await read(id), 404, NOT_FOUND);
      expectError(await read(id, true), 404, NOT_FOUND);
      for (const source of ['db', 'hrms'] as const) {
        const res = await readV2(id, source);
        expect({ id, source, status: res.status, body: withoutRequestId(res.body) }).toStrictEqual({
          id,
          source,
          status: unknownV2.status,
          body: withoutRequestId(unknownV2.body),
        });
      }
      expectError(await giveConsent(id), 404, NOT_FOUND);
      // The tombstone is found by any spelling: erasing again answers the first erasure.
      const again = await post('/api/webhook/v1/employee/erase/', { employee_id: id }, f.appBasic(c));
      expect({ status: again.status, data: again.body.data }).toStrictEqual({ status: 200, data: erased.body.data });
    }
    expect(unknownV2.status).toBe(404);
    // The simulator still lists it: the sync's tombstone check takes the canonical id too.
    expect(await app.ctx.services.sync.run(c.org.id, 'test', 'spellings-2')).toMatchObject({ status: 'succeeded' });
    expect(await rowsNamed(ID)).toBe(0);
    expect((await dbQuery(app, `select count(*)::int as n from employee_tombstones where org_id = $1`, [c.org.id])).rows[0].n).toBe(1);
    // The access log keeps the reads and the erasure under the one id, by any spelling.
    const log = (await accessLog(ID)).body.data;
    expect(log.length).toBeGreaterThan(SPELLINGS.length * 4);
    for (const id of SPELLINGS) expect((await accessLog(id)).body.data).toStrictEqual(log);
  });
});
