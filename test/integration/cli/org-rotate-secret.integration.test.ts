/**
 * `hrx org rotate-secret UUID` (docs/cli.md, docs/api.md "Credentials"), through the real
 * executable against a running API: the employer's new app_secret works at once on every door that
 * takes application credentials (Basic: the access log; in the body: setup-config), the old one
 * is refused there at once with the usual 401, the app_key stays, and the output shows the new
 * secret once. A Connect session that proved control with the old secret must prove again, also
 * when the old secret's check was under way as the rotation committed (both orders, held apart by
 * row locks). Another org's secret is untouched; an unknown org is refused naming it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HRX_BIN, hrxJson } from '../../support/cli';
import { connectCall, lenderSession, openSession } from '../../support/connect';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';
import { backendPid, dbQuery, lockWaiter, storesOf, testPool } from '../../support/db';

const run = promisify(execFile);
const simCreds = { clientId: 'rotate-client', clientSecret: 'rotate-secret-value-51d' };
let app: TestApp;
let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  sim = await startSim({ employees: 2, ...simCreds });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
/** The access log of one employee, with the employer's Basic application credentials. */
const accessLog = (key: string, secret: string) =>
  call(`${app.url}/api/webhook/v1/employee/access-log/?employee_id=EMP00001`, { headers: { Authorization: basic(key, secret) } });
/** setup-config with application credentials in the body. */
const setup = (c: Awaited<ReturnType<typeof f.client>>, secret: string) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...f.setupBody(c, sim, simCreds), client_secret: secret }),
  });

/** An established employer, a lender's token for it and an open Connect session. */
async function establishedSession(domain: string) {
  const c = await f.client(app.ctx, `Employer ${domain}`, domain);
  expect((await setup(c, c.appSecret)).status).toBe(200); // established: Connect asks for proof of control
  const { session: s, sessionId } = await lenderSession(app, c, domain);
  const prove = (secret: string) => connectCall(app.url, s, 'proof/', { app_key: c.org.appKey, app_secret: secret });
  const approve = () => connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
  return { c, s, sessionId, prove, approve };
}

describe('hrx org rotate-secret', () => {
  it('the new secret works at once, the old one is refused at once, the app_key stays', async () => {
    const c = await f.client(app.ctx);
    const other = await f.client(app.ctx);
    expect((await accessLog(c.org.appKey, c.appSecret)).status).toBe(200);

    const out = (await hrxJson(['org', 'rotate-secret', c.org.uuid], app.env)) as Record<string, string>;
    expect(Object.keys(out).sort()).toEqual(['app_key', 'app_secret', 'org_name', 'uuid']);
    expect(out).toMatchObject({ uuid: c.org.uuid, org_name: c.org.orgName, app_key: c.org.appKey });
    expect(out.app_secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(out.app_secret).not.toBe(c.appSecret);

    // Refused as any wrong credential is: Basic with `Invalid token.`, setup-config's body with `Invalid client credentials.`.
    const old = await accessLog(c.org.appKey, c.appSecret);
    expect([old.status, old.body.message, old.body.data]).toEqual([401, 'Invalid token.', null]);
    const oldSetup = await setup(c, c.appSecret);
    expect([oldSetup.status, oldSetup.body.message]).toEqual([401, 'Invalid client credentials.']);
    expect(sim.control.stats().tokenRequests).toBe(0);

    const fresh = await accessLog(c.org.appKey, out.app_secret!);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data).toEqual([]); // nobody read EMP00001
    expect((await setup(c, out.app_secret!)).status).toBe(200);
    expect(sim.control.stats().tokenRequests).toBe(1);

    // Another org's secret is untouched.
    expect((await accessLog(other.org.appKey, other.appSecret)).status).toBe(200);
  });

  it('a check of the old secret racing the rotation never gives the old secret a keyed hash', async () => {
    const c = await f.client(app.ctx);
    const before = (await storesOf(app).orgs.findById(c.org.id))!;
    // An org from before keyed hashes: the next successful check stores one for its secret.
    await dbQuery(app, 'update orgs set app_secret_keyed_hash = null where id = $1', [c.org.id]);
    const { appSecret } = await app.ctx.services.orgs.rotateAppSecret(c.org.uuid);
    const rotated = (await dbQuery(app, 'select app_secret_hash, app_secret_keyed_hash from orgs where id = $1', [c.org.id])).rows[0];
    await dbQuery(app, 'update orgs set app_secret_keyed_hash = null where id = $1', [c.org.id]);
    // The racing check read the row before the rotation: it asks to store the old secret's keyed hash.
    await storesOf(app).orgs.setAppSecretKeyedHash(c.org.id, 'keyed-hash-of-the-old-secret', before.appSecretHash);
    expect((await dbQuery(app, 'select app_secret_keyed_hash from orgs where id = $1', [c.org.id])).rows[0].app_secret_keyed_hash).toBeNull();
    expect((await accessLog(c.org.appKey, c.appSecret)).status).toBe(401);
    // A check of the new secret stores its keyed hash (the scrypt hash it checked is current).
    expect((await accessLog(c.org.appKey, appSecret)).status).toBe(200);
    expect((await dbQuery(app, 'select app_secret_keyed_hash from orgs where id = $1', [c.org.id])).rows[0].app_secret_keyed_hash).toBe(
      rotated.app_secret_keyed_hash,
    );
  });

  it('a Connect session proven with the old secret must prove again, and only the new secret proves', async () => {
    const c = await f.client(app.ctx, 'Employer rotate.example', 'rotate.example');
    expect((await setup(c, c.appSecret)).status).toBe(200); // established: Connect asks for proof of control
    const lender = await f.vendor(app.ctx);
    const token = await f.sdkToken(app.ctx, lender.org, { email: 'hr@rotate.example', org_name: 'Employer rotate.example' });
    expect(token.org_id).toBe(c.org.uuid);
    const s = await openSession(app.url, token.access_token);
    const prove = (secret: string) => connectCall(app.url, s, 'proof/', { app_key: c.org.appKey, app_secret: secret });
    expect((await prove(c.appSecret)).status).toBe(200);

    const out = (await hrxJson(['org', 'rotate-secret', c.org.uuid], app.env)) as Record<string, string>;
    const refused = await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
    expect([refused.status, refused.body.message]).toEqual([403, 'Proof of control failed']);
    expect((await prove(c.appSecret)).status).toBe(403);
    expect((await prove(out.app_secret!)).status).toBe(200);
    const approved = await connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] });
    expect([approved.status, approved.body.data.status]).toEqual([200, 'approved']);
  });

  it('a proof of the old secret checked before the rotation committed is refused after it, and proves nothing', async () => {
    const { c, prove, approve } = await establishedSession('rotate-before.example');
    // The rotation's update of the org row, not committed yet: the proof's check still reads the old secret.
    const rotation = await testPool(app).connect();
    try {
      await rotation.query('begin');
      await rotation.query(`update orgs set app_secret_hash = 'replaced-by-the-rotation', app_secret_keyed_hash = null where id = $1`, [c.org.id]);
      let settled = false;
      const proof = prove(c.appSecret).finally(() => (settled = true));
      // The proof is recorded only after the org row shows its secret unchanged: it waits for the rotation.
      expect(await lockWaiter(app, await backendPid(rotation), /for share/i, () => settled)).not.toBeNull();
      await rotation.query('commit');
      const res = await proof;
      expect([res.status, res.body.message]).toEqual([403, 'Proof of control failed']);
    } finally {
      rotation.release();
    }
    const refused = await approve();
    expect([refused.status, refused.body.message]).toEqual([403, 'Proof of control failed']);
    const audited = await dbQuery(app, `select outcome from connect_proof_audit where client_org_id = $1 and method = 'app_credentials'`, [c.org.id]);
    expect(audited.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['failed']);
  });

  it('a proof of the old secret recorded while the rotation runs is withdrawn by it', async () => {
    const { c, sessionId, prove, approve } = await establishedSession('rotate-during.example');
    // Hold the session row, so the proof (checked with the old secret) waits to be recorded.
    const holder = await testPool(app).connect();
    let rotated: Promise<unknown> | undefined;
    try {
      await holder.query('begin');
      await holder.query('select 1 from connect_sessions where id = $1 for update', [sessionId]);
      const proof = prove(c.appSecret);
      const proofPid = await lockWaiter(app, await backendPid(holder), /update connect_sessions set proven_at/i);
      // The rotation (what `hrx org rotate-secret` runs, in process: the proof's statement must not
      // reach its 1.5 s timeout meanwhile); it must not complete before the proof is settled.
      let finished = false;
      rotated = app.ctx.services.orgs.rotateAppSecret(c.org.uuid).finally(() => (finished = true));
      expect(await lockWaiter(app, proofPid!, /^update ("[^"]+"\.)?"orgs"/i, () => finished)).not.toBeNull();
      await holder.query('commit');
      expect((await proof).status).toBe(200);
    } finally {
      holder.release();
    }
    const { appSecret } = (await rotated) as { appSecret: string };
    const refused = await approve();
    expect([refused.status, refused.body.message]).toEqual([403, 'Proof of control failed']);
    expect((await prove(appSecret)).status).toBe(200);
    expect((await approve()).status).toBe(200);
  });

  it('refuses an unknown org naming it, and changes nothing', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    let failed: { code: number; stderr: string } | undefined;
    try {
      await run(process.execPath, [HRX_BIN, 'org', 'rotate-secret', unknown], { env: { ...process.env, ...app.env }, timeout: 60_000 });
    } catch (err) {
      failed = err as { code: number; stderr: string };
    }
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`no org with uuid ${unknown}`);
  });
});
