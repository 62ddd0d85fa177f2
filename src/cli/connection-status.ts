/**
 * `hrx connection status <client org uuid | connection id>` (docs/cli.md): the operator's view of
 * a connection's freshness, the same as the vendor's `GET /api/vendor/connections/{client_org}/status/`
 * (docs/api.md "Connection status") plus the org and its connections.
 */
import type { Command } from 'commander';
import type { OperatorStatusView } from '../connections/freshness';
import { jsonOption, output, uuidValue } from './args';
import { withContext, type Cli } from './runtime';

/** The human form: one heading line, the facts, one line per connection. */
function text(s: OperatorStatusView): string {
  const lines = [
    `${s.org_name} (${s.client_org})${s.connection_id ? `, connection ${s.connection_id}` : ''}: ${s.health.toUpperCase()}`,
    `  last successful sync  ${s.last_successful_sync ?? 'never'}`,
    `  last sync attempt     ${s.last_sync_attempt ?? 'never'}${s.last_sync_status ? ` (${s.last_sync_status}, run ${s.last_sync_id})` : ''}`,
    `  next scheduled sync   ${s.next_sync_at ?? 'not scheduled'}`,
    `  employees served      ${s.employees}`,
    `  coverage              ${
      s.coverage
        ? Object.entries(s.coverage)
            .map(([p, v]) => `${p} ${Math.round(v * 100)}%`)
            .join(', ') || 'no data point'
        : 'not recorded yet'
    }`,
    ...s.connections.map((c) => `  connection ${c.id}  ${c.status.padEnd(9)} ${c.vendor_name} (${c.vendor_org})`),
  ];
  return lines.join('\n') + '\n';
}

/** Registers `status` under the `connection` command. */
export function registerConnectionStatus(connection: Command, cli: Cli): void {
  connection
    .command('status')
    .description("a connection's HRMS health and freshness, by the client org's uuid or the connection's id")
    .argument('<id>', "the client org's uuid or a connection's id", uuidValue)
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPrints {client_org, org_name, connection_id, health, last_successful_sync, last_sync_attempt, last_sync_id, last_sync_status, next_sync_at, employees, coverage, connections: [{id, vendor_org, vendor_name, status}]}.\nhealth: not_configured | syncing | healthy | needs_reauth | failing (docs/sync.md "Connection health").',
    )
    .action(async (id: string, opts: { json?: boolean }) => {
      await withContext(
        cli,
        async (ctx) => {
          const s = await ctx.services.freshness.operatorStatus(id);
          if (opts.json) return output({ ...s }, true);
          process.stdout.write(text(s));
        },
        { notFound: `no client org or connection with id ${id}` },
      );
    });
}
