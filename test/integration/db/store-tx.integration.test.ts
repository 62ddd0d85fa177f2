/**
 * Every store takes the one transaction type (src/db/tx.ts) as its optional last argument: the
 * stores of orgs, sdk (users, Connect sessions, e-mail codes), external, consent, setup,
 * connections, events and sync runs write and read in a caller's transaction, their own multi-statement steps (advisory locks, `for update`) nested in
 * it, so the caller's rollback undoes all of it and its commit keeps all of it. Real PostgreSQL.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectionStore } from '../../../src/connections/store';
import { createConsentStore } from '../../../src/consent/store';
import type { Tx } from '../../../src/db/tx';
import { createEventStore } from '../../../src/events/store';
import { createExternalStore } from '../../../src/external/store';
import { createOrgStore, type NewOrg } from '../../../src/orgs/store';
import { createConnectStore } from '../../../src/sdk/connect-store';
import { createEmailCodeStore } from '../../../src/sdk/email-code-store';
import { createSdkStore } from '../../../src/sdk/store';
import { createHrmsConfigStore } from '../../../src/setup/store';
import { createSyncRunStore } from '../../../src/sync/store';
import { ormQuery, transactorOf } from '../../support/db';
import { startTestApp, type TestApp } from '../../support/harness';

describe('stores in a caller transaction', () => {
  let app: TestApp;
  let s: ReturnType<typeof storesOver>;

  const storesOver = (a: TestApp) => {
    const orm = a.ctx.db.orm;
    return {
      orgs: createOrgStore(orm),
      sdk: createSdkStore(orm, a.ctx.cipher, [a.ctx.migrationKeys.blindIndexKey]),
      connect: createConnectStore(orm),
      external: createExternalStore(orm),
      consents: createConsentStore(orm, a.ctx.cipher),
      hrmsConfigs: createHrmsConfigStore(orm, a.ctx.cipher),
      connections: createConnectionStore(orm),
      events: createEventStore(orm),
      runs: createSyncRunStore(orm),
      codes: createEmailCodeStore(orm),
    };
  };

  beforeAll(async () => {
    app = await startTestApp({ worker: false });
    s = storesOver(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const newOrg = (tag: string, kind: 'vendor' | 'client'): NewOrg => ({
    uuid: randomUUID(),
    orgName: `${kind} ${tag}`,
    appName: 'app',
    appKey: `app_${tag}_${kind}`,
    appSecretHash: 'x',
    appSecretLast4: 'abcd',
    isVendor: kind === 'vendor',
    isClient: kind === 'client',
  });

  /** Writes through each store in `tx`, checking each sees the others' uncommitted rows; returns what to look for later. */
  async function writeAll(tx: Tx, tag: string) {
    const vendor = await s.orgs.create(newOrg(tag, 'vendor'), tx);
    const client = await s.orgs.create(newOrg(tag, 'client'), tx);
    expect((await s.orgs.findByUuid(client.uuid, tx))?.id).toBe(client.id);
    const made = await s.orgs.findOrCreateClient({ emailDomain: `${tag}.example` }, { ...newOrg(`${tag}d`, 'client'), emailDomain: `${tag}.example` }, tx);
    expect(made.created).toBe(true);
    const keyHash = randomBytes(32).toString('hex');
    const key = await s.orgs.addApiKey(vendor.id, keyHash, 'hrx_abcd', tx);
    expect((await s.orgs.findByApiKeyHash(keyHash, tx))?.keyId).toBe(key.id);
    const user = await s.sdk.ensureUser(client.id, `hr@${tag}.example`, 'Asha Rao', tx);
    expect((await s.sdk.findUser(user.id, tx))?.email).toBe(`hr@${tag}.example`);
    const username = `hrxv2_${tag}`;
    await s.external.addBasicCredential({ orgId: vendor.id, username, passwordHash: 'x' }, tx);
    expect((await s.external.findBasicCredential(username, tx))?.orgId).toBe(vendor.id);
    await s.consents.append(
      {
        vendorOrgId: vendor.id,
        clientOrgId: client.id,
        employeeId: 'E1',
        consentLanguage: 'en',
        consentTimestamp: new Date(),
        consentExpiry: new Date(Date.now() + 86_400_000),
        requestId: randomUUID(),
      },
      tx,
    );
    await s.hrmsConfigs.save(
      {
        orgId: client.id,
        hrmsId: 'reference',
        credentials: { hrms_host: 'https://hr.example', grant_type: 'client_credentials', client_id: 'c' },
        apiConfigs: [],
      },
      tx,
    );
    expect((await s.hrmsConfigs.load(client.id, tx))?.hrmsId).toBe('reference');
    expect(await s.hrmsConfigs.establishment(client.id, tx)).toEqual({ established: true, hasConfig: true });
    expect(await s.connect.isLocked(vendor.id, client.id, tx)).toBe(false);
    expect(await s.connect.beginAttempt(vendor.id, client.id, { maxFailures: 5, lockMs: 60_000 }, tx)).toEqual({ locked: false });
    const conn = await s.connections.create({ vendorOrgId: vendor.id, clientOrgId: client.id, status: 'pending' }, tx);
    expect((await s.connections.updateLocked(conn.id, () => ({ syncFrequency: 'hourly' }), tx))?.syncFrequency).toBe('hourly');
    expect(await s.connections.transition(conn.id, ['pending'], 'approved', tx)).toBe(true);
    expect(await s.connections.approvedFrequencies(client.id, tx)).toEqual(['hourly']);
    const endpoint = await s.events.insertEndpoint(
      { id: randomUUID(), orgId: vendor.id, url: 'https://v.example/h', eventTypes: ['sync.completed'], secretEnc: 'x' },
      tx,
    );
    expect((await s.events.listEndpoints(vendor.id, tx)).map((e) => e.id)).toEqual([endpoint.id]);
    const run = await s.runs.start(client.id, 'test', 'full', tx);
    expect((await s.runs.latest(client.id, tx))?.id).toBe(run.id);
    const jti = randomUUID();
    const expiresAt = new Date(Date.now() + 60_000);
    const ids = { jti, connectionId: conn.id, vendorOrgId: vendor.id, clientOrgId: client.id, userId: user.id };
    await s.sdk.issue({ ...ids, issuedAt: new Date(), expiresAt, issuedByApiKeyId: null, fullName: 'Asha Rao' }, tx);
    const session = await s.connect.createSession({ secret: randomBytes(16).toString('hex'), jti, connectionId: conn.id, expiresAt }, tx);
    const policy = { ttlMs: 60_000, maxAttempts: 5, resendMs: 0, maxPerSession: 5, maxPerOrgHour: 50, maxPerRecipientHour: 50, maxPerVendorHour: 50 };
    const code = await s.codes.create(
      { sessionId: session!, clientOrgId: client.id, vendorOrgId: vendor.id, codeHash: randomBytes(32), recipientHash: randomBytes(32) },
      policy,
      tx,
    );
    expect((await s.codes.current(session!, policy, tx))?.id).toBe('id' in code ? code.id : 'none');
    return { vendor, client, made: made.org, keyHash, user, username, conn, run };
  }

  /** What of `w` is in the database now, outside any transaction. */
  async function present(w: Awaited<ReturnType<typeof writeAll>>) {
    const count = async (table: string, column: string, value: unknown) =>
      (await ormQuery<{ n: number }>(app, `select count(*)::int as n from ${table} where ${column} = ?`, [value]))[0]!.n > 0;
    return {
      vendor: (await s.orgs.findByUuid(w.vendor.uuid)) !== null,
      made: (await s.orgs.findByUuid(w.made.uuid)) !== null,
      key: (await s.orgs.findByApiKeyHash(w.keyHash)) !== null,
      user: (await s.sdk.findUser(w.user.id)) !== null,
      basic: (await s.external.findBasicCredential(w.username)) !== null,
      consent: await count('consents', 'vendor_org_id', w.vendor.id),
      config: (await s.hrmsConfigs.load(w.client.id)) !== null,
      lock: await count('connect_proof_locks', 'vendor_org_id', w.vendor.id),
      connection: (await s.connections.findById(w.conn.id)) !== null,
      endpoint: (await s.events.listEndpoints(w.vendor.id)).length > 0,
      run: (await s.runs.get(w.run.id)) !== null,
      code: await count('connect_email_codes', 'client_org_id', w.client.id),
    };
  }

  const all = (v: boolean) => ({ vendor: v, made: v, key: v, user: v, basic: v, consent: v, config: v, lock: v, connection: v, endpoint: v, run: v, code: v });

  it("a rollback of the caller undoes every store's writes, their own transactions included", async () => {
    let written: Awaited<ReturnType<typeof writeAll>> | undefined;
    await expect(
      transactorOf(app).transaction(async (tx) => {
        written = await writeAll(tx, `rb${randomBytes(3).toString('hex')}`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await present(written!)).toEqual(all(false));
  });

  it("the caller's commit keeps them all", async () => {
    const written = await transactorOf(app).transaction((tx) => writeAll(tx, `ok${randomBytes(3).toString('hex')}`));
    expect(await present(written)).toEqual(all(true));
  });
});
