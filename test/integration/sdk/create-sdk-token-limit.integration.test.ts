/**
 * The daily limit of client orgs and users one vendor's SDK token requests create (docs/limits.md
 * "Organisations and users created by SDK tokens"), over HTTP against the real app and
 * PostgreSQL: past it the request is 429 with `Retry-After` and stores nothing (no org, user,
 * connection or token), a request that creates nothing still passes, another vendor is not
 * affected, and a creation older than 24 hours no longer counts. A small setting keeps it fast;
 * the default (100) is checked at its boundary with the earlier creations recorded directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbQuery } from '../../support/db';
import { expectError } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

let small: TestApp;
let dflt: TestApp;
beforeAll(async () => {
  small = await startTestApp({ worker: false, env: { HRX_SDK_CREATIONS_PER_DAY: '3' } });
  dflt = await startTestApp({ worker: false });
});
afterAll(async () => {
  await small?.stop();
  await dflt?.stop();
});

const tokenRequest = (app: TestApp, key: string, email: string) =>
  call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Asha Rao', email, org_name: 'Employer' }),
  });
const rows = async (app: TestApp, q: string, params: unknown[] = []) => (await dbQuery(app, q, params)).rows;

/** What exists for e-mail domain `domain`: orgs, users, connections, tokens. */
async function storedFor(app: TestApp, domain: string) {
  const ids = (await rows(app, `select id from orgs where email_domain = $1`, [domain])).map((o) => o.id as number);
  const count = async (table: string, column: string) => (await rows(app, `select count(*)::int as n from ${table} where ${column} = any($1)`, [ids]))[0].n;
  return {
    orgs: ids.length,
    users: await count('users', 'org_id'),
    connections: await count('connections', 'client_org_id'),
    tokens: await count('sdk_tokens', 'client_org_id'),
  };
}

/** The 429 of the limit: `Retry-After` within a day, the same seconds in the message. */
function expectLimited(res: Awaited<ReturnType<typeof tokenRequest>>) {
  const seconds = Number(res.headers.get('retry-after'));
  expect(seconds).toBeGreaterThan(86_000);
  expect(seconds).toBeLessThanOrEqual(86_400);
  expectError(res, 429, { message: `Request was throttled. Expected available in ${seconds} seconds.`, data: null });
}

describe('client orgs and users created by one vendor’s SDK tokens, per day', () => {
  it('the 4th new org of a day under a limit of 3 is 429 with Retry-After and nothing stored; creating nothing still passes', async () => {
    const v = await f.vendor(small.ctx);
    for (const d of ['lim-1.example', 'lim-2.example', 'lim-3.example']) expect((await tokenRequest(small, v.apiKey, `hr@${d}`)).status).toBe(200);
    const refused = await tokenRequest(small, v.apiKey, 'hr@lim-4.example');
    expectLimited(refused);
    expect(await storedFor(small, 'lim-4.example')).toEqual({ orgs: 0, users: 0, connections: 0, tokens: 0 });
    // A new user of an existing org is a creation too (3 users made already).
    expectLimited(await tokenRequest(small, v.apiKey, 'ops@lim-1.example'));
    expect(await storedFor(small, 'lim-1.example')).toMatchObject({ orgs: 1, users: 1 });
    // The same person asking again creates nothing: a new token.
    expect((await tokenRequest(small, v.apiKey, 'hr@lim-2.example')).status).toBe(200);
    // Another vendor has a limit of its own.
    const other = await f.vendor(small.ctx);
    expect((await tokenRequest(small, other.apiKey, 'hr@lim-4.example')).status).toBe(200);
  });

  it('a creation older than 24 hours no longer counts', async () => {
    const v = await f.vendor(small.ctx);
    for (const d of ['old-1.example', 'old-2.example', 'old-3.example']) expect((await tokenRequest(small, v.apiKey, `hr@${d}`)).status).toBe(200);
    expectLimited(await tokenRequest(small, v.apiKey, 'hr@old-4.example'));
    await rows(
      small,
      `update sdk_creations set created_at = now() - interval '1 day 1 second' where vendor_org_id = $1 and created_at = (select min(created_at) from sdk_creations where vendor_org_id = $1)`,
      [v.org.id],
    );
    expect((await tokenRequest(small, v.apiKey, 'hr@old-4.example')).status).toBe(200);
  });

  it('the default: the 100th org of a day passes, the 101st is refused', async () => {
    const v = await f.vendor(dflt.ctx);
    // 99 earlier creations of each kind this day (as 99 earlier requests would have recorded them).
    await rows(
      dflt,
      `insert into sdk_creations (vendor_org_id, kind, created_at) select $1, k, now() - interval '1 hour' from unnest(array['org', 'user']) k, generate_series(1, 99)`,
      [v.org.id],
    );
    expect((await tokenRequest(dflt, v.apiKey, 'hr@hundredth.example')).status).toBe(200);
    const refused = await tokenRequest(dflt, v.apiKey, 'hr@hundred-first.example');
    expect(refused.status).toBe(429);
    // The oldest creation in the window leaves it in 23 hours.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(23 * 3600 - 60);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(23 * 3600);
    expect(await storedFor(dflt, 'hundred-first.example')).toEqual({ orgs: 0, users: 0, connections: 0, tokens: 0 });
  });
});
