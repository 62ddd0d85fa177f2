/**
 * Proof of control by the HRMS step (proof (a), docs/connect.md "Who may approve") racing the
 * employer's setup-config, over HTTP against the real app, two HRMS simulators and PostgreSQL.
 * The proof compares the stored credentials and then calls the HRMS, which takes a while; a
 * setup-config replacing the configuration meanwhile must not leave the proof standing. Both
 * orders are forced with row locks held by the test:
 * - the replacement commits after the check read the old configuration and before the proof is
 *   recorded: the proof is refused (403, audited `failed`) and proves nothing;
 * - the proof is recorded while the replacement runs: setup-config waits for it and then
 *   withdraws it, so approving needs a proof against the new configuration.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, lenderSession } from '../../support/connect';
import { backendPid, dbQuery, lockWaiter, testPool } from '../../support/db';
import * as f from '../../support/factories';
import { call, startSim, startTestApp, type TestApp } from '../../support/harness';

type Sim = Awaited<ReturnType<typeof startSim>>;
const credsA = { clientId: 'proof-a-client', clientSecret: 'proof-a-secret-5e1' };
const credsB = { clientId: 'proof-b-client', clientSecret: 'proof-b-secret-9c4' };
let app: TestApp;
let simA: Sim;
let simB: Sim;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
  simA = await startSim({ employees: 2, ...credsA });
  simB = await startSim({ employees: 2, ...credsB });
});
afterAll(async () => {
  await simA?.close();
  await simB?.close();
  await app?.stop();
});

const hrmsBody = (sim: Sim, creds: { clientId: string; clientSecret: string }) => ({
  hrms_id: 'reference',
  access_credentials: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, hrms_host: sim.url },
});

/** An employer configured on simulator A by setup-config, a lender's token for it and an open Connect session. */
async function establishedSession(domain: string) {
  const c = await f.client(app.ctx, `Employer ${domain}`, domain);
  const setup = (sim: Sim, creds: typeof credsA) =>
    call(`${app.url}/api/webhook/v1/setup-config/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f.setupBody(c, sim, creds)),
    });
  expect((await setup(simA, credsA)).status).toBe(200);
  const { session: s, sessionId } = await lenderSession(app, c, domain);
  return {
    c,
    sessionId,
    setup,
    prove: (sim: Sim, creds: typeof credsA) => connectCall(app.url, s, 'hrms/', hrmsBody(sim, creds)),
    approve: () => connectCall(app.url, s, 'approve/', { opted_in: [], opted_out: [] }),
  };
}

/** Runs `work` on a connection of its own inside a transaction, committed at the end. */
async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await testPool(app).connect();
  try {
    await client.query('begin');
    const out = await work(client);
    await client.query('commit');
    return out;
  } finally {
    client.release();
  }
}

describe('proof of control by the HRMS step, racing a setup-config that replaces the configuration', () => {
  it('replaced after the check read the configuration: the proof is refused and proves nothing', async () => {
    const { c, prove, approve } = await establishedSession('proof-before.example');
    const { proof } = await inTransaction(async (replacement) => {
      // The replacement holds the configuration row while the proof's check reads it (no lock)
      // and calls the HRMS; it then stores the configuration again (a new ciphertext, as every
      // save writes) and commits while the proof waits to be recorded.
      await replacement.query('select 1 from hrms_configs where org_id = $1 for update', [c.org.id]);
      let settled = false;
      const proof = prove(simA, credsA).finally(() => (settled = true));
      expect(await lockWaiter(app, await backendPid(replacement), /from hrms_configs where .* for share/i, () => settled)).not.toBeNull();
      const aad = `hrms-config:${c.org.id}`; // src/setup/store.ts
      const [stored] = (await replacement.query('select credentials_enc from hrms_configs where org_id = $1', [c.org.id])).rows;
      const again = app.ctx.cipher.encrypt(app.ctx.cipher.decrypt(stored.credentials_enc, aad), aad);
      await replacement.query('update hrms_configs set credentials_enc = $2, updated_at = now() where org_id = $1', [c.org.id, again]);
      return { proof }; // settled after the commit (a promise returned bare would be awaited before it)
    });
    const res = await proof;
    expect([res.status, res.body.message]).toEqual([403, 'Proof of control failed']);
    const refused = await approve();
    expect([refused.status, refused.body.message]).toEqual([403, 'Proof of control failed']);
    const audited = await dbQuery(app, `select outcome from connect_proof_audit where client_org_id = $1 and method = 'hrms'`, [c.org.id]);
    expect(audited.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['failed']);
    // The configuration as it now stands proves (the same credentials, stored again).
    expect((await prove(simA, credsA)).status).toBe(200);
    expect((await approve()).status).toBe(200);
  });

  it('recorded while setup-config replaces the configuration: setup-config waits, then withdraws it', async () => {
    const { sessionId, setup, prove, approve } = await establishedSession('proof-during.example');
    let replaced: ReturnType<typeof setup> | undefined;
    const { pending } = await inTransaction(async (holder) => {
      // Hold the session row, so the proof (checked against simulator A's configuration) waits to be recorded.
      await holder.query('select 1 from connect_sessions where id = $1 for update', [sessionId]);
      const pending = prove(simA, credsA);
      const proofPid = await lockWaiter(app, await backendPid(holder), /update connect_sessions set proven_at/i);
      // The employer moves to simulator B; its save must wait for the proof (the proof's
      // statement times out after 1.5 s, so this runs at once).
      let finished = false;
      replaced = setup(simB, credsB).finally(() => (finished = true));
      expect(await lockWaiter(app, proofPid!, /from hrms_configs where org_id = .* for update/i, () => finished)).not.toBeNull();
      return { pending }; // settled after the commit
    });
    expect((await pending).status).toBe(200);
    expect((await replaced!).status).toBe(200);
    const refused = await approve();
    expect([refused.status, refused.body.message]).toEqual([403, 'Proof of control failed']);
    // Simulator A's credentials no longer prove anything; simulator B's do.
    expect((await prove(simA, credsA)).status).toBe(403);
    expect((await prove(simB, credsB)).status).toBe(200);
    expect((await approve()).status).toBe(200);
  });
});
