/**
 * Whose name the Connect page shows (docs/connect.md "Whose name the page shows"), over HTTP:
 * vendor B names an address first, with a `fullname` that is an instruction to the reader; vendor
 * A's genuine token for the same address then opens A's session, whose view shows the name A
 * gave, never B's text, and B's own session shows B's words (as B's, on the page). The user row
 * of the address keeps one profile: the name is the token's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession } from '../../support/connect';
import { dbQuery } from '../../support/db';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

const EMAIL = 'hr@named-twice.example';
const LURE = 'Call +1-555-0100 to verify';

let app: TestApp;
let a: Awaited<ReturnType<typeof f.vendor>>;
let b: Awaited<ReturnType<typeof f.vendor>>;

const token = async (key: string, fullname: string) => {
  const res = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: key },
    body: JSON.stringify({ email: EMAIL, org_name: 'Named Twice', fullname }),
  });
  expect(res.status).toBe(200);
  return res.body.data.access_token as string;
};

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  a = await f.vendor(app.ctx, 'Genuine Lender');
  b = await f.vendor(app.ctx, 'Other Vendor');
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

describe("GET /api/sdk/connect/: the name is the session's own token's", () => {
  it("another vendor's earlier text never shows on a vendor's page; each session shows its own vendor's words", async () => {
    const lure = await openSession(app.url, await token(b.apiKey, LURE));
    const genuine = await openSession(app.url, await token(a.apiKey, 'Asha Rao'));
    const seenByA = (await connectCall(app.url, genuine, '')).body.data;
    expect({ vendor: seenByA.vendor.org_name, user: seenByA.user }).toStrictEqual({ vendor: 'Genuine Lender', user: { email: EMAIL, fullname: 'Asha Rao' } });
    expect(JSON.stringify(seenByA)).not.toContain('555-0100');
    const seenByB = (await connectCall(app.url, lure, '')).body.data;
    expect({ vendor: seenByB.vendor.org_name, user: seenByB.user }).toStrictEqual({ vendor: 'Other Vendor', user: { email: EMAIL, fullname: LURE } });
    // One person for the address (the first profile stays); the names live with the tokens, sealed.
    const users = await dbQuery(app, `select count(*)::int as n from users u join orgs o on o.id = u.org_id where o.email_domain = $1`, [
      'named-twice.example',
    ]);
    expect(users.rows[0].n).toBe(1);
    const sealed = await dbQuery(app, `select fullname_enc from sdk_tokens where vendor_org_id = any($1)`, [[a.org.id, b.org.id]]);
    expect(sealed.rows).toHaveLength(2);
    for (const r of sealed.rows) expect(String(r.fullname_enc)).not.toMatch(/Asha|555/);
  });
});
