/**
 * Seed-data factories for integration tests, through the real services.
 */
import type { Context } from '../../src/context';
import type { CreateConnectionInput } from '../../src/connections/service';

let n = 0;

/** A vendor org with an API key. */
export async function vendor(ctx: Context, name = `Vendor ${++n}`) {
  const { org, appSecret } = await ctx.services.orgs.create({ name, vendor: true, client: false });
  const apiKey = await ctx.services.orgs.createApiKey(org.uuid);
  return { org, appSecret, apiKey };
}

/** A client org (employer). */
export async function client(ctx: Context, name = `Client ${++n}`) {
  const { org, appSecret } = await ctx.services.orgs.create({ name, vendor: false, client: true });
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
    access_credentials: { client_id: simCreds.clientId, client_secret: simCreds.clientSecret, api_key: '', grant_type: 'client_credentials', hrms_host: sim.url },
    api_configs: [],
  };
}
