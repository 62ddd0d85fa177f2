/**
 * `hrx apikey list` and `hrx apikey revoke` (docs/cli.md "hrx apikey
 * revoke"), through the real executable, against two API processes: a key that works on both
 * is refused by both (401 `Invalid token.`) within 1 s of the revoke command returning, although
 * both had just cached it (for a minute: HRX_API_KEY_CACHE_TTL_MS=60000, so the pub/sub message,
 * not the cache's 1 s default TTL, is what stops it). The SDK tokens the key issued are revoked
 * with it: their Connect sessions end and an unexchanged one opens none, while another key's
 * token and session go on. The listing never shows a key or its hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startSecondApi, startTestApp, type SecondApi, type TestApp } from '../../support/harness';
import { hrxJson } from '../../support/cli';
import * as f from '../../support/factories';
import { expectError, plain } from '../../support/expect-error';
import { dbQuery } from '../../support/db';
import { connectCall, openSession } from '../../support/connect';

let app: TestApp;
let second: SecondApi;
let v: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  // Caches that would keep a key for a minute: only the revocation message can stop it in time.
  app = await startTestApp({ worker: false, env: { HRX_API_KEY_CACHE_TTL_MS: '60000' } });
  v = await f.vendor(app.ctx);
  second = await startSecondApi(app);
}, 90_000);
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

const details = (base: string, key: string) => call(`${base}/api/org_details/${v.org.uuid}/`, { headers: { authorization: key } });

describe('hrx apikey list / revoke', () => {
  it('lists id, prefix and dates, never the key or its hash', async () => {
    const extra = await app.ctx.services.orgs.createApiKey(v.org.uuid);
    const out = await hrxJson(['apikey', 'list', '--org', v.org.uuid], app.env);
    expect(out.api_keys).toHaveLength(2);
    for (const k of out.api_keys) {
      expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'prefix', 'revoked_at']);
      expect(k.prefix).toMatch(/^hrx_.{4}$/);
      expect(k.revoked_at).toBeNull();
    }
    expect(out.api_keys.map((k: { prefix: string }) => k.prefix).sort()).toEqual([v.apiKey.slice(0, 8), extra.slice(0, 8)].sort());
    const { rows } = await dbQuery(app, 'select key_hash from api_keys');
    const text = JSON.stringify(out);
    for (const secret of [v.apiKey, extra, ...rows.map((r: { key_hash: string }) => r.key_hash)]) expect(text).not.toContain(secret);
  });

  it('a revoked key stops working on every API process within 1 s', async () => {
    const key = await app.ctx.services.orgs.createApiKey(v.org.uuid);
    const id = (await hrxJson(['apikey', 'list', '--org', v.org.uuid], app.env)).api_keys.find((k: { prefix: string }) => k.prefix === key.slice(0, 8))
      .id as string;
    // Both processes answer, and so have the key in their caches.
    for (const base of [app.url, second.url]) expect((await details(base, key)).status).toBe(200);
    expect(await hrxJson(['apikey', 'revoke', id], app.env)).toEqual({ id, revoked: true });
    const revokedAt = Date.now();
    const refusedAt = new Map<string, number>();
    while (refusedAt.size < 2 && Date.now() - revokedAt < 5000) {
      for (const base of [app.url, second.url]) {
        if (refusedAt.has(base)) continue;
        const res = await details(base, key);
        if (res.status === 401) {
          expectError(res, 401, plain('Invalid token.'));
          refusedAt.set(base, Date.now());
        }
      }
    }
    expect(refusedAt.size).toBe(2);
    for (const at of refusedAt.values()) expect(at - revokedAt).toBeLessThan(1000);
    // Still refused later, and the other keys of the org still work.
    for (const base of [app.url, second.url]) {
      expectError(await details(base, key), 401, plain('Invalid token.'));
      expect((await details(base, v.apiKey)).status).toBe(200);
    }
    const listed = (await hrxJson(['apikey', 'list', '--org', v.org.uuid], app.env)).api_keys.find((k: { id: string }) => k.id === id);
    expect(listed.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('revoking a key revokes the SDK tokens it issued: their Connect sessions end, another key’s go on', async () => {
    const [keyA, keyB] = [await app.ctx.services.orgs.createApiKey(v.org.uuid), await app.ctx.services.orgs.createApiKey(v.org.uuid)];
    const idA = (await hrxJson(['apikey', 'list', '--org', v.org.uuid], app.env)).api_keys.find((k: { prefix: string }) => k.prefix === keyA.slice(0, 8))
      .id as string;
    // One employer per token: a new token for a connection would revoke the connection's earlier ones anyway.
    const token = async (key: string, domain: string) => {
      await f.client(app.ctx, `Employer ${domain}`, domain);
      const res = await call(`${app.url}/api/sdk/token/`, {
        method: 'POST',
        headers: { authorization: key, 'content-type': 'application/json' },
        body: JSON.stringify({ fullname: 'Asha Rao', email: `hr@${domain}`, org_name: `Employer ${domain}` }),
      });
      expect(res.status).toBe(200);
      return res.body.data.access_token as string;
    };
    const sessionA = await openSession(app.url, await token(keyA, 'revoke-a.example'));
    const unexchangedA = await token(keyA, 'revoke-a2.example');
    const sessionB = await openSession(app.url, await token(keyB, 'revoke-b.example'));
    for (const s of [sessionA, sessionB]) expect((await connectCall(app.url, s, '')).status).toBe(200);

    expect(await hrxJson(['apikey', 'revoke', idA], app.env)).toEqual({ id: idA, revoked: true });
    expectError(await connectCall(app.url, sessionA, ''), 401, plain('Invalid token.'));
    expectError(await connectCall(app.url, sessionA, 'reject/', {}), 401, plain('Invalid token.'));
    await expect(openSession(app.url, unexchangedA)).rejects.toThrow(/session exchange failed: 401/);
    expect((await connectCall(app.url, sessionB, '')).status).toBe(200);
    const rows = await dbQuery(app, `select count(*)::int as n from sdk_tokens where issued_by_api_key_id = $1 and revoked_at is null`, [idA]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('revoking an unknown or already revoked id fails with exit code 1', async () => {
    const id = (await hrxJson(['apikey', 'list', '--org', v.org.uuid], app.env)).api_keys.find((k: { revoked_at: string | null }) => k.revoked_at !== null)
      .id as string;
    for (const bad of [id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      await expect(hrxJson(['apikey', 'revoke', bad], app.env)).rejects.toMatchObject({ code: 1 });
    }
  });
});
