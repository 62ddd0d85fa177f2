/**
 * What exists, for the operator: `hrx org list` and `hrx connection list` (docs/cli.md), paged as
 * the API's lists are (`--page`, `--page-size` up to 100; `pageInfo` as the vendor connection
 * list has it). `--json` prints one object; otherwise one line an item under a header.
 */
import { Option, type Command } from 'commander';
import { MAX_PAGE_SIZE } from '../paging';
import { choiceOption, intValue, jsonOption, UsageError, uuidValue } from './args';
import { withContext, type Cli } from './runtime';

const LIST_STATUSES = ['pending', 'approved', 'rejected', 'terminated'] as const;

/** `--page` and `--page-size`, as the API's `page` and `page_size`. */
function pageOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--page <n>', 'which page, 1-based').argParser(intValue(1, 1_000_000)).default(1))
    .addOption(new Option('--page-size <n>', `items a page, at most ${MAX_PAGE_SIZE}`).argParser(intValue(1, MAX_PAGE_SIZE)).default(20));
}

/** Prints `rows` as aligned columns under their keys, then the page line. */
function table<T extends object>(rows: T[], columns: (keyof T & string)[], pageInfo: { totalItems: number; totalPages: number }, page: number): void {
  const cells: string[][] = [columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  for (const row of cells)
    process.stdout.write(
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd() + '\n',
    );
  process.stdout.write(`page ${page} of ${pageInfo.totalPages} (${pageInfo.totalItems} in all)\n`);
}

/** Registers `org list` on `org` and `connection list` on `connection`. */
export function registerListCommands(org: Command, connection: Command, cli: Cli): void {
  pageOptions(
    org
      .command('list')
      .description('list orgs, oldest first; prints {pageInfo, orgs: [{id, uuid, org_name, is_vendor, is_client, email_domain, invite_status, created_on}]}')
      .option('--vendor', 'only vendor orgs')
      .option('--client', 'only client orgs'),
  )
    .addOption(jsonOption())
    .action(async (opts: { vendor?: boolean; client?: boolean; page: number; pageSize: number; json?: boolean }) => {
      if (opts.vendor && opts.client) throw new UsageError('give --vendor or --client, not both (neither lists every org)');
      await withContext(cli, async (ctx) => {
        const kind = opts.vendor ? 'vendor' : opts.client ? 'client' : undefined;
        const res = await ctx.services.orgList.list({ kind }, { page: opts.page, pageSize: opts.pageSize });
        if (opts.json) process.stdout.write(JSON.stringify(res) + '\n');
        else {
          const rows = res.orgs.map((o) => ({
            ...o,
            kind: [o.is_vendor && 'vendor', o.is_client && 'client'].filter(Boolean).join('+'),
            email_domain: o.email_domain ?? '',
          }));
          table(rows, ['uuid', 'kind', 'org_name', 'email_domain', 'invite_status', 'created_on'], res.pageInfo, opts.page);
        }
      });
    });

  pageOptions(
    connection
      .command('list')
      .description(
        'list connections, newest first; prints {pageInfo, connections: [{id, status, vendor_org, vendor_name, client_org, client_name, sync_frequency, live_source, consent_required, created_at, status_changed_at}]}',
      )
      .option('--vendor <uuid>', "only this vendor org's connections", uuidValue)
      .option('--client <uuid>', "only this client org's connections", uuidValue)
      .addOption(choiceOption('--status <status>', 'only connections in this status (default: all but terminated)', LIST_STATUSES)),
  )
    .addOption(jsonOption())
    .addHelpText('after', "\nThe id is what `hrx connection approve|reject` and a V2 request's connection_id take.")
    .action(async (opts: { vendor?: string; client?: string; status?: (typeof LIST_STATUSES)[number]; page: number; pageSize: number; json?: boolean }) => {
      const named = [opts.vendor, opts.client].filter(Boolean).join(' or ');
      await withContext(
        cli,
        async (ctx) => {
          const res = await ctx.services.connectionList.list(
            { vendorUuid: opts.vendor, clientUuid: opts.client, status: opts.status },
            { page: opts.page, pageSize: opts.pageSize },
          );
          if (opts.json) process.stdout.write(JSON.stringify(res) + '\n');
          else table(res.connections, ['id', 'status', 'vendor_name', 'client_name', 'client_org', 'sync_frequency', 'created_at'], res.pageInfo, opts.page);
        },
        { notFound: `no org with uuid ${named}` },
      );
    });
}
