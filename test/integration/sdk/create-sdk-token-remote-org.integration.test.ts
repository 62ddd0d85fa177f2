/**
 * `POST /api/sdk/token/` with `remote_org_id` (docs/connect.md "Org resolution", "What an e-mail
 * code can set up"): a remote id with a private e-mail domain makes (or joins) that domain's org,
 * so an e-mail code to the domain may set it up and a retry without the id names the same org; a
 * remote id with a common address makes an org without a domain, which a retry by its name (same
 * vendor) finds again, another vendor's never; an e-mail code refused names the true cause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCall, openSession, verifyEmail } from '../../support/connect';
import { dbQuery } from '../../support/db';
import { expectError, invalid } from '../../support/expect-error';
import * as f from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
let a: Awaited<ReturnType<typeof f.vendor>>;
let b: Awaited<ReturnType<typeof f.vendor>>;

beforeAll(async () => {
  app = await startTestApp({ worker: false, env: { HRX_COMMON_EMAIL_DOMAINS: 'gmail.com' } });
  a = await f.vendor(app.ctx, 'Remote Lender A');
  b = await f.vendor(app.ctx, 'Remote Lender B');
});
afterAll(async () => {
  await app?.stop();
});

const token = async (body: Record<string, string>, key = a.apiKey) => {
  const res = await call(`${app.url}/api/sdk/token/`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json' },
    body: JSON.stringify({ fullname: 'Asha Rao', ...body }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { org_id: string; access_token: string };
};
const orgRow = async (uuid: string) => (await dbQuery(app, `select * from orgs where uuid = $1`, [uuid])).rows[0];
const orgsNamed = async (name: string) => Number((await dbQuery(app, `select count(*) from orgs where org_name = $1`, [name])).rows[0].count);

describe('POST /api/sdk/token/ with remote_org_id', () => {
  it('a private domain: the org holds it, a retry without the id names the same org, and a code to the domain sets it up', async () => {
    const first = await token({ email: 'hr@umbrella-remote.example', org_name: 'Umbrella Remote', remote_org_id: 'crm-umbrella' });
    expect(await orgRow(first.org_id)).toMatchObject({
      created_via: 'remote_org_id',
      remote_org_id: 'crm-umbrella',
      remote_org_vendor_id: a.org.id,
      email_domain: 'umbrella-remote.example',
    });
    const retry = await token({ email: 'hr@umbrella-remote.example', org_name: 'Umbrella Remote' });
    expect(retry.org_id).toBe(first.org_id);
    expect(await orgsNamed('Umbrella Remote')).toBe(1);
    // The same id again still names it; the e-mail code is not ruled out.
    const again = await token({ email: 'payroll@umbrella-remote.example', org_name: 'Umbrella Remote', remote_org_id: 'crm-umbrella' });
    expect(again.org_id).toBe(first.org_id);
    const session = await openSession(app.url, again.access_token);
    expect((await connectCall(app.url, session, '')).body.data.email_verification).toMatchObject({ establishes: true });
    await verifyEmail(app, session);
  });

  it("a new remote id with a domain an org already holds joins that org (the domain rule's), no duplicate", async () => {
    const byDomain = await token({ email: 'hr@soylent-remote.example', org_name: 'Soylent Remote' });
    const byId = await token({ email: 'ops@soylent-remote.example', org_name: 'Soylent Remote', remote_org_id: 'crm-soylent' });
    expect(byId.org_id).toBe(byDomain.org_id);
    expect(await orgsNamed('Soylent Remote')).toBe(1);
  });

  it("a common address: a retry by name without the id finds the vendor's org; another vendor's name makes its own", async () => {
    const first = await token({ email: 'owner@gmail.com', org_name: 'Hooli Remote', remote_org_id: 'crm-hooli' });
    expect(await orgRow(first.org_id)).toMatchObject({ created_via: 'remote_org_id', email_domain: null });
    const retry = await token({ email: 'owner@gmail.com', org_name: ' hooli REMOTE ' });
    expect(retry.org_id).toBe(first.org_id);
    expect(await orgsNamed('Hooli Remote')).toBe(1);
    const theirs = await token({ email: 'owner@gmail.com', org_name: 'Hooli Remote' }, b.apiKey);
    expect(theirs.org_id).not.toBe(first.org_id);
  });

  it('an e-mail code refused names the true cause: an org without a domain of its own, or an address off its domain', async () => {
    const noDomain = await token({ email: 'owner@gmail.com', org_name: 'Pied Piper Remote', remote_org_id: 'crm-pied' });
    const cause = (text: string) =>
      invalid(
        'email',
        `an e-mail code cannot set up this organisation, because ${text}: the operator must approve this connection (hrx connection approve), or prove control with the organisation's application key and secret`,
      );
    expectError(
      await connectCall(app.url, await openSession(app.url, noDomain.access_token), 'email-code/'),
      400,
      cause(
        'the organisation has no e-mail domain of its own (it was made by its name, by a remote_org_id with a common e-mail address, or by the operator without --domain)',
      ),
    );
    // An org with a domain, reached by the vendor's remote id with an address elsewhere.
    await token({ email: 'hr@initrode-remote.example', org_name: 'Initrode Remote', remote_org_id: 'crm-initrode' });
    const offDomain = await token({ email: 'owner@gmail.com', org_name: 'Initrode Remote', remote_org_id: 'crm-initrode' });
    expectError(
      await connectCall(app.url, await openSession(app.url, offDomain.access_token), 'email-code/'),
      400,
      cause("the token's address is not on the organisation's own e-mail domain"),
    );
  });
});
