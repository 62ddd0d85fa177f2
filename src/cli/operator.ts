/**
 * Operator commands (decisions §12): orgs, API keys, connections, migrations.
 */
import type { Config } from '../config';
import { openContext, type Context } from '../context';
import { SYNC_FREQUENCIES, type SyncFrequency } from '../connections/service';
import { migrate } from '../db/orm';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { output, parse, required, UsageError } from './args';

/** Opens a context for one command and closes it after `fn`. */
export async function withContext<T>(config: Config, log: Logger, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const ctx = await openContext(config, log, { poolMax: 2 });
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/** `hrx migrate [--json]`: applies pending migrations. */
export async function migrateCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values } = parse(argv, {});
  await withContext(config, log, async (ctx) => output({ applied: await migrate(ctx.db) }, values.json));
}

/** `hrx org create --name N (--vendor | --client) [--domain D] [--json]`. */
export async function orgCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, {
    name: { type: 'string' }, vendor: { type: 'boolean' }, client: { type: 'boolean' }, domain: { type: 'string' },
  });
  if (positionals[0] !== 'create') throw new UsageError('usage: hrx org create --name N (--vendor | --client) [--domain D] [--json]');
  const name = required(values, 'name');
  if (!values.vendor === !values.client) throw new UsageError('exactly one of --vendor or --client is required');
  await withContext(config, log, async (ctx) => {
    const { org, appSecret } = await ctx.services.orgs.create({
      name, vendor: !!values.vendor, client: !!values.client, ...(values.domain ? { domain: values.domain } : {}),
    });
    output({ id: org.id, uuid: org.uuid, org_name: org.orgName, app_key: org.appKey, app_secret: appSecret }, values.json);
  });
}

const APIKEY_USAGE = 'usage: hrx apikey create --org UUID [--json] | apikey list --org UUID [--json] | apikey revoke ID [--json]';

/**
 * `hrx apikey create --org UUID` → `{api_key}` (shown once); `hrx apikey list --org UUID` →
 * `{api_keys: [{id, prefix, created_at, revoked_at}]}` (never a key or its hash); `hrx apikey
 * revoke ID` → `{id, revoked: true}`: every API process refuses the key within 1 s (an unknown or
 * already revoked id fails, exit 1).
 */
export async function apiKeyCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, { org: { type: 'string' } });
  const [sub, id] = positionals;
  if (sub === 'create' || sub === 'list') {
    const org = required(values, 'org');
    await withContext(config, log, async (ctx) => output(
      sub === 'create' ? { api_key: await ctx.services.orgs.createApiKey(org) } : { api_keys: await ctx.services.orgs.listApiKeys(org) },
      values.json,
    ));
  } else if (sub === 'revoke' && id && positionals.length === 2) {
    await withContext(config, log, async (ctx) => {
      await ctx.services.orgs.revokeApiKey(id).catch((err: unknown) => {
        throw err instanceof AppError && err.code === 'NOT_FOUND' ? new Error(`no live API key with id ${id}`) : err;
      });
      output({ id: id.toLowerCase(), revoked: true }, values.json);
    });
  } else {
    throw new UsageError(APIKEY_USAGE);
  }
}

/** `hrx connection create|approve|reject …` (decisions §12). */
export async function connectionCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, {
    vendor: { type: 'string' }, client: { type: 'string' }, status: { type: 'string' }, shared: { type: 'string' },
    'sync-frequency': { type: 'string' }, 'live-source': { type: 'boolean' }, 'no-consent-required': { type: 'boolean' },
  });
  const [sub, id] = positionals;
  await withContext(config, log, async (ctx) => {
    if (sub === 'create') {
      const status = values.status ?? 'approved';
      if (!['pending', 'approved', 'rejected'].includes(status)) throw new UsageError('--status must be pending, approved or rejected');
      const freq = values['sync-frequency'] ?? 'daily';
      if (!(SYNC_FREQUENCIES as readonly string[]).includes(freq)) throw new UsageError(`--sync-frequency must be one of ${SYNC_FREQUENCIES.join(', ')}`);
      const c = await ctx.services.connections.create({
        vendorUuid: required(values, 'vendor'),
        clientUuid: required(values, 'client'),
        status: status as 'pending' | 'approved' | 'rejected',
        ...(values.shared ? { shared: values.shared.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
        syncFrequency: freq as SyncFrequency,
        liveSource: !!values['live-source'],
        consentRequired: !values['no-consent-required'],
      });
      output({ id: c.id, status: c.status }, values.json);
    } else if ((sub === 'approve' || sub === 'reject') && id) {
      const c = await ctx.services.connections.decide(id, sub === 'approve' ? 'approved' : 'rejected');
      output({ id: c.id, status: c.status }, values.json);
    } else {
      throw new UsageError('usage: hrx connection create --vendor UUID --client UUID [...] | hrx connection approve|reject ID');
    }
  });
}
