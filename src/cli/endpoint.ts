/**
 * `hrx endpoint add|list|remove` (docs/events.md, docs/cli.md "hrx endpoint"): vendors' event endpoints.
 */
import type { Command } from 'commander';
import { parseEventTypes } from '../events/endpoints';
import { EVENT_TYPES } from '../events/types';
import { jsonOption, output, uuidValue } from './args';
import { withContext, type Cli } from './runtime';

/**
 * Registers `endpoint`: `add` → `{id, url, events, secret}` (the secret is shown this once);
 * `list` → `{endpoints: [{id, url, events, created_at}]}`; `remove` → `{id, removed,
 * cancelled_deliveries}`. Errors (non-vendor org, refused URL, unknown event type or endpoint)
 * exit 1 with the reason.
 */
export function registerEndpointCommands(program: Command, cli: Cli): void {
  const endpoint = program.command('endpoint').description("a vendor's event endpoints (signed webhooks: docs/events.md)");
  endpoint
    .command('add')
    .description('add an endpoint; prints {id, url, events, secret} (the signing secret is shown once)')
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .requiredOption('--url <url>', 'where events are POSTed (https; http only on loopback with HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1)')
    .option('--events <types>', `comma-separated event types (default: every type), of: ${EVENT_TYPES.join(', ')}`)
    .addOption(jsonOption())
    .action(async (opts: { org: string; url: string; events?: string; json?: boolean }) => {
      const events = parseEventTypes(opts.events);
      await withContext(cli, async (ctx) => {
        const e = await ctx.services.endpoints.add({ orgUuid: opts.org, url: opts.url, events });
        output({ id: e.id, url: e.url, events: e.events, secret: e.secret }, opts.json);
      });
    });
  endpoint
    .command('list')
    .description("list a vendor's endpoints; prints {endpoints: [{id, url, events, created_at}]} (never a secret)")
    .requiredOption('--org <uuid>', "the vendor org's uuid", uuidValue)
    .addOption(jsonOption())
    .action(async (opts: { org: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => output({ endpoints: await ctx.services.endpoints.list(opts.org) }, opts.json));
    });
  endpoint
    .command('remove')
    .description('remove an endpoint and cancel its pending deliveries; prints {id, removed, cancelled_deliveries}')
    .argument('<id>', "the endpoint's id (from endpoint list)")
    .addOption(jsonOption())
    .action(async (id: string, opts: { json?: boolean }) => {
      await withContext(cli, async (ctx) => output({ ...(await ctx.services.endpoints.remove(id)) }, opts.json));
    });
}
