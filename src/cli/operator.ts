/**
 * Operator commands (docs/cli.md): migrations, orgs, API keys, connections.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Config } from '../config';
import { SYNC_FREQUENCIES, type SyncFrequency } from '../connections/service';
import type { Database } from '../db/orm';
import { ALL_DATA_POINTS } from '../domain/data-points';
import { choiceOption, jsonOption, output, UsageError, uuidValue } from './args';
import { registerListCommands } from './lists';
import { withContext, type Cli } from './runtime';
import { registerConnectionStatus } from './connection-status';

const CONNECTION_STATUSES = ['pending', 'approved', 'rejected'] as const;

/**
 * Which database `db` is, for people: host, port, database name and schema of its URL, never the
 * user or password; the embedded server is named with its data directory.
 */
export function describeDatabase(config: Config, db: Pick<Database, 'url' | 'schema'>): string {
  const u = new URL(db.url);
  const where = `${u.hostname}:${u.port || '5432'}/${decodeURIComponent(u.pathname.replace(/^\//, ''))} (schema ${db.schema})`;
  return config.DATABASE_URL ? where : `embedded PostgreSQL in ${config.HRX_DATA_DIR}, ${where}`;
}

/** The `shared` list of `connection create`: known data points, else a usage error naming the valid ones. */
function sharedList(v: string): string[] {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((p) => !ALL_DATA_POINTS.includes(p));
  if (bad) throw new InvalidArgumentError(`unknown data point "${bad}": one of ${ALL_DATA_POINTS.join(', ')}.`);
  return list;
}

/** Registers `migrate`, `org`, `apikey` and `connection`. */
export function registerOperatorCommands(program: Command, cli: Cli): void {
  program
    .command('migrate')
    .description('apply pending database migrations and say which database they went to')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPrints {database, applied: [migration names]} ([] when up to date). The database is DATABASE_URL (embedded PostgreSQL under HRX_DATA_DIR when unset), schema HRX_DB_SCHEMA.',
    )
    .action(async (opts: { json?: boolean }) => {
      const { config } = cli.env();
      await withContext(cli, async (ctx) => {
        const { migrate } = await import('../db/orm');
        const applied = await migrate(ctx.db, ctx.migrationKeys);
        const database = describeDatabase(config, ctx.db);
        if (opts.json) output({ database, applied }, true);
        else process.stdout.write(`migrated ${database}: ${applied.length ? `applied ${applied.join(', ')}` : 'already up to date'}\n`);
      });
    });

  const org = program.command('org').description('organizations (vendor or client)');
  org
    .command('create')
    .description('create an org; prints {id, uuid, org_name, app_key, app_secret} (the secret is shown once)')
    .requiredOption('--name <name>', "the org's name")
    .option('--vendor', 'a vendor org (reads employee data)')
    .option('--client', 'a client org (an employer whose HRMS is synced)')
    .option('--domain <domain>', "the client's e-mail domain (SDK tokens for it find this org)")
    .addOption(jsonOption())
    .action(async (opts: { name: string; vendor?: boolean; client?: boolean; domain?: string; json?: boolean }) => {
      if (!opts.vendor === !opts.client) throw new UsageError('exactly one of --vendor or --client is required');
      await withContext(cli, async (ctx) => {
        const { org: o, appSecret } = await ctx.services.orgs.create({
          name: opts.name,
          vendor: !!opts.vendor,
          client: !!opts.client,
          ...(opts.domain ? { domain: opts.domain } : {}),
        });
        output({ id: o.id, uuid: o.uuid, org_name: o.orgName, app_key: o.appKey, app_secret: appSecret }, opts.json);
      });
    });

  org
    .command('rotate-secret')
    .description("replace an org's app_secret; prints {uuid, org_name, app_key, app_secret} (the new secret is shown once; the old one is refused at once)")
    .argument('<uuid>', "the org's uuid", uuidValue)
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nThe app_key stays. Give the new secret to the employer: setup-config, the employee update webhook, the access log, erasure and consent withdrawal refuse the old one from now on, and Connect sessions that proved control with it must prove again.',
    )
    .action(async (uuid: string, opts: { json?: boolean }) => {
      await withContext(
        cli,
        async (ctx) => {
          const { org: o, appSecret } = await ctx.services.orgs.rotateAppSecret(uuid);
          output({ uuid: o.uuid, org_name: o.orgName, app_key: o.appKey, app_secret: appSecret }, opts.json);
        },
        { notFound: `no org with uuid ${uuid}` },
      );
    });

  org
    .command('update')
    .description('change what the Connect page tells the HR admin about a vendor (docs/connect.md); prints {uuid, org_name, purpose, privacy_url}')
    .argument('<uuid>', "the org's uuid", uuidValue)
    .option('--purpose <text>', "why the vendor reads employee data: plain text, at most 500 characters ('' clears it)")
    .option('--privacy-url <url>', "the vendor's privacy notice: an http:// or https:// URL ('' clears it)")
    .addOption(jsonOption())
    .addHelpText('after', '\nGive --purpose, --privacy-url or both; an option left out keeps its value.')
    .action(async (uuid: string, opts: { purpose?: string; privacyUrl?: string; json?: boolean }) => {
      if (opts.purpose === undefined && opts.privacyUrl === undefined) throw new UsageError('give --purpose, --privacy-url or both');
      await withContext(
        cli,
        async (ctx) => output(await ctx.services.orgs.updateNotice(uuid, { purpose: opts.purpose, privacyUrl: opts.privacyUrl }), opts.json),
        { notFound: `no org with uuid ${uuid}` },
      );
    });

  const apikey = program.command('apikey').description('API keys of an org (vendor endpoints authenticate with them)');
  apikey
    .command('create')
    .description('create an API key; prints {api_key} (shown once)')
    .requiredOption('--org <uuid>', "the org's uuid", uuidValue)
    .addOption(jsonOption())
    .action(async (opts: { org: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => output({ api_key: await ctx.services.orgs.createApiKey(opts.org) }, opts.json), {
        notFound: `no org with uuid ${opts.org}`,
      });
    });
  apikey
    .command('list')
    .description("list an org's API keys; prints {api_keys: [{id, prefix, created_at, revoked_at}]} (never a key or its hash)")
    .requiredOption('--org <uuid>', "the org's uuid", uuidValue)
    .addOption(jsonOption())
    .action(async (opts: { org: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => output({ api_keys: await ctx.services.orgs.listApiKeys(opts.org) }, opts.json), {
        notFound: `no org with uuid ${opts.org}`,
      });
    });
  apikey
    .command('revoke')
    .description(
      'revoke an API key: every API process refuses it within 1 s, and the SDK tokens it issued (with their Connect sessions) end at once; prints {id, revoked: true}',
    )
    .argument('<id>', "the key's id (from apikey list)")
    .addOption(jsonOption())
    .action(async (id: string, opts: { json?: boolean }) => {
      await withContext(
        cli,
        async (ctx) => {
          await ctx.services.orgs.revokeApiKey(id);
          output({ id: id.toLowerCase(), revoked: true }, opts.json);
        },
        { notFound: `no active API key with id ${id}` },
      );
    });

  const connection = program.command('connection').description('connections between a vendor and a client org');
  registerConnectionStatus(connection, cli);
  connection
    .command('create')
    .description('create a connection as the operator; prints {id, status}')
    .requiredOption('--vendor <uuid>', "the vendor org's uuid", uuidValue)
    .requiredOption('--client <uuid>', "the client org's uuid", uuidValue)
    .addOption(choiceOption('--status <status>', 'its status', CONNECTION_STATUSES, 'approved'))
    .addOption(new Option('--shared <points>', 'comma-separated data points it shares (default: every data point)').argParser(sharedList))
    .addOption(choiceOption('--sync-frequency <frequency>', 'how often the client org is synced', SYNC_FREQUENCIES, 'daily'))
    .option('--live-source', 'employee reads go to the HRMS (live) instead of the synced store')
    .option('--no-consent-required', 'reads need no employee consent (default: consent required)')
    .addOption(jsonOption())
    .action(
      async (opts: {
        vendor: string;
        client: string;
        status: (typeof CONNECTION_STATUSES)[number];
        shared?: string[];
        syncFrequency: SyncFrequency;
        liveSource?: boolean;
        consentRequired: boolean;
        json?: boolean;
      }) => {
        await withContext(cli, async (ctx) => {
          const c = await ctx.services.connections.create({
            vendorUuid: opts.vendor,
            clientUuid: opts.client,
            status: opts.status,
            ...(opts.shared ? { shared: opts.shared } : {}),
            syncFrequency: opts.syncFrequency,
            liveSource: !!opts.liveSource,
            consentRequired: opts.consentRequired,
          });
          output({ id: c.id, status: c.status }, opts.json);
        });
      },
    );
  for (const [sub, to] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    connection
      .command(sub)
      .description(
        `${sub} a connection as the operator${sub === 'approve' ? " (the client org's first approval queues a sync at once)" : ''}; prints {id, status}`,
      )
      .argument('<id>', "the connection's id (hrx connection list shows it)")
      .addOption(jsonOption())
      .action(async (id: string, opts: { json?: boolean }) => {
        await withContext(
          cli,
          async (ctx) => {
            const c = await ctx.services.connections.decide(id, to);
            output({ id: c.id, status: c.status }, opts.json);
          },
          { notFound: `no active connection with id ${id}` },
        );
      });
  }
  registerListCommands(org, connection, cli);
}
