/**
 * Seed-data factories for integration tests, through the real services.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Context } from '../../src/context';
import { normalizeRecord } from '../../src/domain/record';
import type { CreateConnectionInput } from '../../src/connections/service';
import type { SdkTokenRequest } from '../../src/sdk/service';
import { storesOf } from './db';

let n = 0;

/** A vendor org with an API key. */
export async function vendor(ctx: Context, name = `Vendor ${++n}`) {
  const { org, appSecret } = await ctx.services.orgs.create({ name, vendor: true, client: false });
  const apiKey = await ctx.services.orgs.createApiKey(org.uuid);
  return { org, appSecret, apiKey };
}

/**
 * A client org (employer), made by the operator; with `domain` as `hrx org create --domain` makes
 * it (an SDK token naming an address on that domain finds it; no token finds it by its name).
 */
export async function client(ctx: Context, name = `Client ${++n}`, domain?: string) {
  const { org, appSecret } = await ctx.services.orgs.create({ name, vendor: false, client: true, ...(domain ? { domain } : {}) });
  return { org, appSecret };
}

/** A connection, approved and without consent requirement unless told otherwise. */
export async function connection(ctx: Context, vendorUuid: string, clientUuid: string, extra: Partial<CreateConnectionInput> = {}) {
  return ctx.services.connections.create({ vendorUuid, clientUuid, status: 'approved', consentRequired: false, ...extra });
}

/** The setup-config body pointing a client org at a simulator. */
export function setupBody(c: { org: { appKey: string }; appSecret: string }, sim: { url: string }, simCreds: { clientId: string; clientSecret: string }) {
  return {
    client_id: c.org.appKey,
    client_secret: c.appSecret,
    hrms_id: 'reference',
    access_credentials: {
      client_id: simCreds.clientId,
      client_secret: simCreds.clientSecret,
      api_key: '',
      grant_type: 'client_credentials',
      hrms_host: sim.url,
    },
    api_configs: [],
  };
}

/** Employees of a client org stored directly (as a sync would), `{employeeId, name}` each; returns the stored records. */
export async function employees(ctx: Context, clientOrgId: number, people: { employeeId: string; name?: string }[]) {
  const records = people.map((p) => normalizeRecord(p, randomUUID()));
  await storesOf(ctx).employees.upsertBatch(clientOrgId, null, records);
  return records;
}

/**
 * A V2 vendor (docs/v2.md "Basic credentials"): a vendor org with an RSA-2048 key pair registered under `kid`
 * (public JWK without use/alg, so it serves for signatures and response encryption) and a Basic
 * credential. `authorization` is the ready `Basic ...` header value.
 */
export async function v2Vendor(ctx: Context, opts: { name?: string; kid?: string } = {}) {
  const base = await vendor(ctx, opts.name);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = opts.kid ?? `vk-${randomUUID().slice(0, 8)}`;
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid };
  const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid };
  await ctx.services.external.addVendorKey(base.org.uuid, publicJwk);
  const { username, password } = await ctx.services.external.basic.create(base.org.uuid);
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return { ...base, privateKey, publicKey, publicJwk, privateJwk, kid, username, password, authorization };
}

/** The update webhook's credential of an org: `Basic base64(app_key:app_secret)` (docs/api.md "Credentials"). */
export function appBasic(o: { org: { appKey: string }; appSecret: string }): string {
  return `Basic ${Buffer.from(`${o.org.appKey}:${o.appSecret}`).toString('base64')}`;
}

/** Marks every employee of a client org removed, as a full sync whose HRMS lists none of them would. */
export async function removeAllEmployees(ctx: Context, clientOrgId: number): Promise<number> {
  return (await storesOf(ctx).employees.removeUnseen(clientOrgId, randomUUID())).length;
}

/**
 * An SDK token (docs/connect.md "E-mail verification before an organisation is set up") issued to `vendorOrg` through the service: defaults to a private
 * e-mail domain of its own per call. Returns the token result.
 */
export async function sdkToken(ctx: Context, vendorOrg: { id: number; uuid: string }, input: Partial<SdkTokenRequest> = {}) {
  const principal = { orgId: vendorOrg.id, orgUuid: vendorOrg.uuid, isVendor: true, isClient: false, credentialId: 'factory' };
  return ctx.services.sdk.issueToken(principal, {
    email: `hr@employer-${++n}.example`,
    org_name: `Employer ${n}`,
    fullname: 'Asha Rao',
    ...input,
  });
}

/**
 * Points client org `orgId` at an HRMS simulator (the reference HRMS at `sim.url`) with these
 * simulator credentials, stored as setup-config would but without its credential check (so
 * wrong credentials can be stored too).
 */
export async function hrmsAt(ctx: Context, orgId: number, sim: { url: string }, creds: { clientId: string; clientSecret: string }) {
  await storesOf(ctx).hrmsConfigs.save({
    orgId,
    hrmsId: 'reference',
    apiConfigs: [],
    credentials: { client_id: creds.clientId, client_secret: creds.clientSecret, api_key: '', grant_type: 'client_credentials', hrms_host: sim.url },
  });
}
