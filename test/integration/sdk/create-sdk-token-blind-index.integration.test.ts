/**
 * The users an SDK token request names (docs/connect.md "E-mail verification before an organisation is set up") are found by the blind index of their
 * e-mail, never by a clear column (docs/at-rest.md): the same e-mail (any letter case)
 * finds the same user and keeps its first full name, another e-mail makes another user, the same
 * e-mail at another employer is another user under an unrelated hash. After a master-key rotation
 * (new `HRX_MASTER_KEY`, the old one in `HRX_MASTER_KEYS_RETIRED`) a process on the new key still
 * finds the users indexed under the old one, still reads the employees encrypted under it, and
 * indexes new users under the new key. Real HTTP, PostgreSQL and Redis; the second process is a
 * second context on the same schema.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { openContext, type Context } from '../../../src/context';
import { blindIndex, blindIndexKeys } from '../../../src/crypto/blind-index';
import { deriveKey } from '../../../src/infra';
import { createLogger } from '../../../src/logger';
import * as f from '../../support/factories';
import { dbQuery } from '../../support/db';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { storedUsers } from '../../support/stored';

let app: TestApp;
let v: Awaited<ReturnType<typeof f.vendor>>;
let rotated: Context | undefined;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  v = await f.vendor(app.ctx);
});
afterAll(async () => {
  await rotated?.close();
  await app?.stop();
});

const token = (body: Record<string, unknown>) =>
  call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: v.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
/** The user id (`sub`) and client org uuid of a token answer. */
const subOf = (res: Awaited<ReturnType<typeof token>>) => ({ sub: decodeJwt(res.body.data.access_token as string).sub!, org: res.body.data.org_id as string });
const orgIdOf = async (uuid: string) => (await dbQuery(app, `select id from orgs where uuid = $1`, [uuid])).rows[0].id as number;
const hashUnder = (master: string, orgId: number, email: string) =>
  blindIndex(blindIndexKeys([deriveKey(Buffer.from(master, 'base64'), 'blind-index')])[0]!, 'user-email', orgId, email);

describe('SDK token users by blind index', () => {
  it('finds the same user by an equal e-mail (any case), not by another; the first full name is kept', async () => {
    const first = subOf(await token({ email: 'Priya.N@initech-bi.example', org_name: 'Initech', fullname: 'Priya Nair' }));
    const again = subOf(await token({ email: 'priya.n@INITECH-BI.example', org_name: 'Initech', fullname: 'Someone Else' }));
    const other = subOf(await token({ email: 'priya.m@initech-bi.example', org_name: 'Initech', fullname: 'Priya Menon' }));
    expect(again).toStrictEqual(first);
    expect(other.org).toBe(first.org);
    expect(other.sub).not.toBe(first.sub);
    const orgId = await orgIdOf(first.org);
    expect(await storedUsers(app, orgId)).toStrictEqual([
      {
        id: other.sub,
        email: 'priya.m@initech-bi.example',
        fullName: 'Priya Menon',
        emailHash: hashUnder(app.env.HRX_MASTER_KEY!, orgId, 'priya.m@initech-bi.example'),
      },
      {
        id: first.sub,
        email: 'priya.n@initech-bi.example',
        fullName: 'Priya Nair',
        emailHash: hashUnder(app.env.HRX_MASTER_KEY!, orgId, 'priya.n@initech-bi.example'),
      },
    ]);
  });

  it('the same e-mail at two employers: two users under unrelated hashes', async () => {
    // A common e-mail domain: each request's org is found by its name.
    const a = subOf(await token({ email: 'sam.hr@gmail.com', org_name: 'Alpha Works', fullname: 'Sam K' }));
    const b = subOf(await token({ email: 'sam.hr@gmail.com', org_name: 'Beta Works', fullname: 'Sam K' }));
    expect(a.org).not.toBe(b.org);
    expect(a.sub).not.toBe(b.sub);
    const [ua] = await storedUsers(app, await orgIdOf(a.org));
    const [ub] = await storedUsers(app, await orgIdOf(b.org));
    expect(ua!.email).toBe(ub!.email);
    expect(ua!.emailHash).not.toBe(ub!.emailHash);
  });
});

describe('after a master-key rotation', () => {
  let c: Awaited<ReturnType<typeof f.client>>;
  const newKey = randomBytes(32).toString('base64');
  const principal = () => ({ orgId: v.org.id, orgUuid: v.org.uuid, isVendor: true, isClient: false, credentialId: 'test' });

  beforeAll(async () => {
    c = await f.client(app.ctx, 'Rotating Employer');
    await f.connection(app.ctx, v.org.uuid, c.org.uuid);
    await f.employees(app.ctx, c.org.id, [{ employeeId: 'ROT-1', name: 'Before Rotation' }]);
    expect((await token({ email: 'lead@rotating.example', org_name: 'Rotating Employer', fullname: 'Lead Before' })).status).toBe(200);
    rotated = await openContext(loadConfig({ ...app.env, HRX_MASTER_KEY: newKey, HRX_MASTER_KEYS_RETIRED: app.env.HRX_MASTER_KEY! }), createLogger('silent'), {
      poolMax: 2,
    });
  });

  it('still finds a user indexed under the retired key (no second user, first name kept)', async () => {
    const orgUuid = (await dbQuery(app, `select o.uuid from orgs o where o.email_domain = 'rotating.example'`)).rows[0].uuid as string;
    const orgId = await orgIdOf(orgUuid);
    const [before] = await storedUsers(app, orgId);
    const res = await rotated!.services.sdk.issueToken(principal(), { email: 'LEAD@rotating.example', org_name: 'x', fullname: 'Lead After' });
    expect(decodeJwt(res.access_token).sub).toBe(before!.id);
    const users = (await dbQuery(app, `select id, email_hash from users where org_id = $1`, [orgId])).rows;
    expect(users).toStrictEqual([{ id: before!.id, email_hash: hashUnder(app.env.HRX_MASTER_KEY!, orgId, 'lead@rotating.example') }]);
  });

  it('indexes and encrypts a new user under the new key', async () => {
    const res = await rotated!.services.sdk.issueToken(principal(), { email: 'second@rotating.example', org_name: 'x', fullname: 'Second Lead' });
    const orgId = await orgIdOf(res.org_id);
    const { rows } = await dbQuery(app, `select email_hash, profile_enc from users where id = $1`, [decodeJwt(res.access_token).sub]);
    expect(rows[0].email_hash).toBe(hashUnder(newKey, orgId, 'second@rotating.example'));
    expect(rows[0].profile_enc).toMatch(new RegExp(`^v1\\.${rotated!.cipher.currentKid}\\.`));
    expect(rotated!.cipher.currentKid).not.toBe(app.ctx.cipher.currentKid);
  });

  it('reads an employee encrypted under the retired key, and rewrites it under the new one', async () => {
    const q = {
      vendorOrgId: v.org.id,
      clientOrgUuid: c.org.uuid,
      employeeRef: 'ROT-1',
      source: 'db' as const,
      requestId: '0c8b3a52-1a7e-4b0e-9c55-3d0f3d1c2b01',
    };
    expect((await rotated!.services.employees.read({ ...q, mask: false })).name).toBe('Before Rotation');
    expect(JSON.parse(await rotated!.services.employees.readMaskedJson(q)).name).toBe('Before Rotation');
    await rotated!.services.employeeUpdates.apply({
      clientOrgId: c.org.id,
      requestId: '5a0f1e2d-3c4b-4a59-8687-96a5b4c3d2e1',
      updates: [{ employeeId: 'ROT-1', designation: 'After Rotation' }],
    });
    const { rows } = await dbQuery(app, `select record_enc, masked_enc from employees where org_id = $1 and employee_id = 'ROT-1'`, [c.org.id]);
    expect(rows[0].record_enc).toMatch(new RegExp(`^v1\\.${rotated!.cipher.currentKid}\\.`));
    expect(rows[0].masked_enc).toMatch(new RegExp(`^v1\\.${rotated!.cipher.currentKid}\\.`));
    expect((await rotated!.services.employees.read({ ...q, mask: false })).designation).toBe('After Rotation');
  });
});
