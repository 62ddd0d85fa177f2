/**
 * `hrx org list` and `hrx connection list` (docs/cli.md), through the real executable: what
 * exists, paged as the API's lists are, filtered by kind, org and status; a connection's id from
 * the list is what `hrx connection approve` takes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hrxJson, runHrx } from '../../support/cli';
import * as f from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('hrx org list', () => {
  it('lists every org oldest first, by kind, paged; a page past the end is refused', async () => {
    const lender = await f.vendor(app.ctx, 'List Lender');
    const employer = await f.client(app.ctx, 'List Employer');
    const all = await hrxJson(['org', 'list', '--json'], app.env);
    const mine = all.orgs.filter((o: { uuid: string }) => [lender.org.uuid, employer.org.uuid].includes(o.uuid));
    expect(mine).toMatchObject([
      { uuid: lender.org.uuid, org_name: 'List Lender', is_vendor: true, is_client: false },
      { uuid: employer.org.uuid, org_name: 'List Employer', is_vendor: false, is_client: true },
    ]);
    expect(all.pageInfo.totalItems).toBe(all.orgs.length);
    expect(JSON.stringify(all)).not.toMatch(/app_secret|key_hash|app_key/);

    const vendors = await hrxJson(['org', 'list', '--vendor', '--json'], app.env);
    expect(vendors.orgs.every((o: { is_vendor: boolean }) => o.is_vendor)).toBe(true);
    expect(vendors.orgs.map((o: { uuid: string }) => o.uuid)).toContain(lender.org.uuid);
    expect(vendors.orgs.map((o: { uuid: string }) => o.uuid)).not.toContain(employer.org.uuid);

    const page2 = await hrxJson(['org', 'list', '--page-size', '1', '--page', '2', '--json'], app.env);
    expect(page2.orgs).toStrictEqual([all.orgs[1]]);
    expect(page2.pageInfo).toMatchObject({ totalItems: all.orgs.length, totalPages: all.orgs.length, items: 1, previous: true });

    const past = await runHrx(['org', 'list', '--page', '999', '--json'], app.env);
    expect(past.code).toBe(1);
    expect(past.stderr.trim()).toBe('hrx: Invalid page.');
    const text = await runHrx(['org', 'list', '--client'], app.env);
    expect(text.stdout.split('\n')[0]).toMatch(/^uuid +kind +org_name +email_domain +invite_status +created_on$/);
    expect(text.stdout).toContain('List Employer');
  }, 120_000);
});

describe('hrx connection list', () => {
  it("lists a vendor's or a client's connections by status, with the id approve takes", async () => {
    const lender = await f.vendor(app.ctx, 'Conn Lender');
    const other = await f.vendor(app.ctx, 'Other Lender');
    const employer = await f.client(app.ctx, 'Conn Employer');
    const pending = await f.connection(app.ctx, lender.org.uuid, employer.org.uuid, { status: 'pending' });
    const others = await f.connection(app.ctx, other.org.uuid, employer.org.uuid);

    const byVendor = await hrxJson(['connection', 'list', '--vendor', lender.org.uuid, '--json'], app.env);
    expect(byVendor.connections).toMatchObject([
      {
        id: pending.id,
        status: 'pending',
        vendor_org: lender.org.uuid,
        vendor_name: 'Conn Lender',
        client_org: employer.org.uuid,
        client_name: 'Conn Employer',
      },
    ]);
    expect(byVendor.pageInfo.totalItems).toBe(1);

    const byClient = await hrxJson(['connection', 'list', '--client', employer.org.uuid, '--json'], app.env);
    expect(byClient.connections.map((c: { id: string }) => c.id).sort()).toStrictEqual([pending.id, others.id].sort());
    const approvedOnly = await hrxJson(['connection', 'list', '--client', employer.org.uuid, '--status', 'approved', '--json'], app.env);
    expect(approvedOnly.connections.map((c: { id: string }) => c.id)).toStrictEqual([others.id]);

    // The id from the list is what approve takes.
    expect(await hrxJson(['connection', 'approve', byVendor.connections[0].id, '--json'], app.env)).toStrictEqual({ id: pending.id, status: 'approved' });

    const unknown = randomUUID();
    const r = await runHrx(['connection', 'list', '--vendor', unknown, '--json'], app.env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`hrx: no org with uuid ${unknown}`);
  }, 120_000);
});
