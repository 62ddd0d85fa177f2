/**
 * SDK token requests racing what would void them (docs/connect.md "Reference: the SDK token and
 * the Connect endpoints", "The session"), over HTTP against the real app and PostgreSQL. Each
 * order is forced with a row lock the test holds, and the waiting statements are seen in
 * `pg_stat_activity` (lockWaiter):
 * - the issuing API key revoked while a request it authenticated is under way: revoked first, the
 *   request issues nothing (401, no org, user, connection or token stored); the request first,
 *   the revocation waits for it and revokes the new token with the key;
 * - a token re-request for a pending connection racing an approval by the earlier token's
 *   session: the re-request first, it revokes the earlier token in the transaction that asks
 *   again, and the approval, which authenticated before, is refused (401, still pending); the
 *   approval first, it stands and the re-request leaves the approved connection as it is.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession } from '../../support/connect';
import { backendPid, dbQuery, lockWaiter, testPool } from '../../support/db';
import { expectError, plain } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

const sql = async <T = Record<string, unknown>>(q: string, params: unknown[] = []) => (await dbQuery(app, q, params)).rows as T[];
const tokenRequest = (key: string, email: string, extra: Record<string, unknown> = {}) =>
  call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Asha Rao', email, org_name: 'Employer', ...extra }),
  });

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

/** A vendor with a second API key, and that key's id. */
async function vendorWithKey() {
  const v = await f.vendor(app.ctx);
  const key = await app.ctx.services.orgs.createApiKey(v.org.uuid);
  const [row] = await sql<{ id: string }>(`select id from api_keys where org_id = $1 and prefix = $2`, [v.org.id, key.slice(0, 8)]);
  return { v, key, keyId: row!.id };
}

/** What a token request for `domain` stored: orgs, users, connections and tokens. */
async function storedFor(domain: string) {
  const orgs = await sql<{ id: number }>(`select id from orgs where email_domain = $1`, [domain]);
  const ids = orgs.map((o) => o.id);
  const count = async (table: string, column: string) =>
    (await sql<{ n: number }>(`select count(*)::int as n from ${table} where ${column} = any($1)`, [ids]))[0]!.n;
  return {
    orgs: ids.length,
    users: await count('users', 'org_id'),
    connections: await count('connections', 'client_org_id'),
    tokens: await count('sdk_tokens', 'client_org_id'),
  };
}

describe('an SDK token request racing the revocation of its API key', () => {
  it('revoked first: the request it authenticated issues nothing (401, nothing stored)', async () => {
    const { key, keyId } = await vendorWithKey();
    let revoke: Promise<void> | undefined;
    let request: ReturnType<typeof tokenRequest> | undefined;
    await inTransaction(async (holder) => {
      await holder.query('select 1 from api_keys where id = $1 for update', [keyId]);
      const holderPid = await backendPid(holder);
      // The revocation queues first on the key's row; the request, authenticated meanwhile (the key
      // is not revoked yet), queues behind it for its share lock.
      let revoked = false;
      revoke = app.ctx.services.orgs.revokeApiKey(keyId).finally(() => (revoked = true));
      const firstPid = await lockWaiter(app, holderPid, /update (\S+\.)?"api_keys"/i, () => revoked);
      expect(firstPid).not.toBeNull();
      let answered = false;
      request = tokenRequest(key, 'hr@race-revoked.example').finally(() => (answered = true));
      // Queued behind the first waiter, which holds the row's tuple lock meanwhile.
      expect(await lockWaiter(app, firstPid!, /from api_keys where id = .* for share/i, () => answered)).not.toBeNull();
    });
    await revoke;
    expectError(await request!, 401, plain('Invalid token.'));
    expect(await storedFor('race-revoked.example')).toEqual({ orgs: 0, users: 0, connections: 0, tokens: 0 });
    expect(await sql(`select 1 from sdk_tokens where issued_by_api_key_id = $1`, [keyId])).toEqual([]);
  });

  it('the request first: the revocation waits for it and revokes the token it issued', async () => {
    const { key, keyId } = await vendorWithKey();
    let revoke: Promise<void> | undefined;
    let request: ReturnType<typeof tokenRequest> | undefined;
    await inTransaction(async (holder) => {
      await holder.query('select 1 from api_keys where id = $1 for update', [keyId]);
      const holderPid = await backendPid(holder);
      let answered = false;
      request = tokenRequest(key, 'hr@race-issued.example').finally(() => (answered = true));
      const firstPid = await lockWaiter(app, holderPid, /from api_keys where id = .* for share/i, () => answered);
      expect(firstPid).not.toBeNull();
      let revoked = false;
      revoke = app.ctx.services.orgs.revokeApiKey(keyId).finally(() => (revoked = true));
      // Queued behind the first waiter, which holds the row's tuple lock meanwhile.
      expect(await lockWaiter(app, firstPid!, /update (\S+\.)?"api_keys"/i, () => revoked)).not.toBeNull();
    });
    const res = await request!;
    expect(res.status).toBe(200);
    await revoke;
    expect(await sql(`select revoked_at is not null as revoked from sdk_tokens where issued_by_api_key_id = $1`, [keyId])).toEqual([{ revoked: true }]);
    await expect(openSession(app.url, res.body.data.access_token)).rejects.toThrow(/session exchange failed: 401/);
  });
});

describe('a token re-request racing an approval by the earlier token’s session', () => {
  /** A pending connection to a new employer, and a session of its first token that proved control by proof (b). */
  async function provenSession(domain: string) {
    const { v, key } = await vendorWithKey();
    const c = await f.client(app.ctx, `Employer ${domain}`, domain);
    const first = await tokenRequest(key, `hr@${domain}`);
    expect(first.status).toBe(200);
    const session = await openSession(app.url, first.body.data.access_token);
    expect((await connectCall(app.url, session, 'proof/', { app_key: c.org.appKey, app_secret: c.appSecret })).status).toBe(200);
    const [conn] = await sql<{ id: string }>(`select id from connections where client_org_id = $1 and vendor_org_id = $2`, [c.org.id, v.org.id]);
    return { key, session, connectionId: conn!.id, approve: () => connectCall(app.url, session, 'approve/', { opted_in: [], opted_out: [] }) };
  }

  it('the re-request first: the approval authenticated before it commits is refused, the connection stays pending', async () => {
    const { key, connectionId, approve } = await provenSession('rerequest-first.example');
    let again: ReturnType<typeof tokenRequest> | undefined;
    let approval: ReturnType<typeof approve> | undefined;
    await inTransaction(async (holder) => {
      await holder.query('select 1 from connections where id = $1 for update', [connectionId]);
      const holderPid = await backendPid(holder);
      // Another person, the same request: only the earlier token's revocation tells them apart.
      let answered = false;
      again = tokenRequest(key, 'ops@rerequest-first.example').finally(() => (answered = true));
      const firstPid = await lockWaiter(app, holderPid, /update (\S+\.)?"connections"/i, () => answered);
      expect(firstPid).not.toBeNull();
      let decided = false;
      approval = approve().finally(() => (decided = true));
      // Queued behind the first waiter, which holds the row's tuple lock meanwhile.
      expect(await lockWaiter(app, firstPid!, /from (\S+\.)?"connections" .* for update/i, () => decided)).not.toBeNull();
    });
    expect((await again!).status).toBe(200);
    expectError(await approval!, 401, plain('Invalid token.'));
    expect(await sql(`select status, decided_by from connections where id = $1`, [connectionId])).toEqual([{ status: 'pending', decided_by: null }]);
  });

  it('the approval first: it stands, and the re-request leaves the approved connection as it is', async () => {
    const { key, connectionId, approve } = await provenSession('approve-first.example');
    let again: ReturnType<typeof tokenRequest> | undefined;
    let approval: ReturnType<typeof approve> | undefined;
    await inTransaction(async (holder) => {
      await holder.query('select 1 from connections where id = $1 for update', [connectionId]);
      const holderPid = await backendPid(holder);
      let decided = false;
      approval = approve().finally(() => (decided = true));
      const firstPid = await lockWaiter(app, holderPid, /from (\S+\.)?"connections" .* for update/i, () => decided);
      expect(firstPid).not.toBeNull();
      let answered = false;
      again = tokenRequest(key, 'ops@approve-first.example', { data_model_flags: { detail_info_fields: { pan: 1 } } }).finally(() => (answered = true));
      // Queued behind the first waiter, which holds the row's tuple lock meanwhile.
      expect(await lockWaiter(app, firstPid!, /update (\S+\.)?"connections"/i, () => answered)).not.toBeNull();
    });
    expect((await approval!).status).toBe(200);
    expect((await again!).status).toBe(200);
    const [row] = await sql<{ status: string; decided_by: string; data_model_flags: unknown }>(
      `select status, decided_by, data_model_flags from connections where id = $1`,
      [connectionId],
    );
    expect(row).toEqual({ status: 'approved', decided_by: 'admin', data_model_flags: null });
  });
});
