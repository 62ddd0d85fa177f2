/**
 * `hrx sync run --org UUID [--follow]` and `hrx sync status [--org UUID]` (docs/behaviour.md "Sync", docs/cli.md):
 * queue a full sync of a client org now and, with `--follow`, show its progress (pages and
 * employees of its `sync_runs` row) until it ends; list the latest runs and next scheduled syncs.
 * A worker (`hrx worker` or `hrx start`) runs the sync: this command only queues and watches.
 */
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { OrgSyncView, QueuedSync, SyncProgress, SyncRunView } from '../sync/runs-service';
import { intValue, jsonOption, output, uuidValue } from './args';
import { CommandError, withContext, type Cli } from './runtime';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often `--follow` reads the run's progress. */
const POLL_MS = 300;
/** After this long still queued, `--follow` says that no worker seems to be running. */
const NO_WORKER_HINT_MS = 5_000;

/** The bar's line: the share is of the employees the last good run saw (unknown the first time), 100% once succeeded. */
const BAR_FORMAT = 'sync {bar} {percentage}% | {pages} pages | {value} employees{of} | {phase}';

/** Options of `sync run`. */
interface RunOptions {
  org: string;
  follow?: boolean;
  timeout: number;
  json?: boolean;
}

/**
 * Follows `queued` until it ends or `timeoutSec` passes (0: no limit), drawing a progress bar on
 * stderr; resolves with the last progress.
 */
async function follow(queued: QueuedSync, timeoutSec: number, read: (q: QueuedSync) => Promise<SyncProgress>): Promise<SyncProgress> {
  const expected = queued.expectedEmployees;
  const bar = new SingleBar({
    format: BAR_FORMAT,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 1000,
    hideCursor: false,
    barsize: 30,
  });
  bar.start(Math.max(expected ?? 0, 1), 0, { pages: 0, of: expected === null ? '' : ` of ~${expected}`, phase: 'queued' });
  const started = Date.now();
  try {
    for (;;) {
      const p = await read(queued);
      const run = p.run;
      const seen = run?.employees ?? 0;
      const done = p.phase === 'succeeded' || p.phase === 'failed' || p.phase === 'skipped';
      // Never past 99% before the end: the HRMS may have more employees than last time.
      const total = p.phase === 'succeeded' ? Math.max(seen, 1) : Math.max(expected ?? 0, seen + 1, 1);
      const waited = Date.now() - started;
      bar.setTotal(total);
      bar.update(p.phase === 'succeeded' ? total : Math.min(seen, total - 1), {
        pages: run?.pages ?? 0,
        of: expected === null || p.phase === 'succeeded' ? '' : ` of ~${expected}`,
        phase: p.phase === 'queued' && waited > NO_WORKER_HINT_MS ? 'queued (is a worker running? hrx worker or hrx start)' : p.phase,
      });
      if (done) return p;
      if (timeoutSec > 0 && waited > timeoutSec * 1000) {
        throw new CommandError(`the sync did not end within ${timeoutSec} s (phase ${p.phase}); it goes on in the worker: hrx sync status --org ${queued.org}`);
      }
      await sleep(POLL_MS);
    }
  } finally {
    bar.stop();
  }
}

/** One run as a line of `sync status`. */
function runLine(r: SyncRunView): string {
  const took = r.finished_at ? ` in ${((Date.parse(r.finished_at) - Date.parse(r.started_at)) / 1000).toFixed(1)} s` : '';
  return `${r.started_at}  ${r.status.padEnd(9)} ${String(r.employees).padStart(7)} employees ${String(r.pages).padStart(5)} pages  ${r.trigger}${took}${r.error ? `  (${r.error})` : ''}`;
}

/** Partly covered data points `sync status` names one by one; the rest are counted. */
const PARTLY_LISTED = 12;

/**
 * A run's coverage as a line of `sync status` (docs/behaviour.md "Coverage"): how many data
 * points every employee has, how many none has, and the share of each partly covered one.
 */
export function coverageLine(r: Pick<SyncRunView, 'coverage'>): string | null {
  const c = r.coverage;
  if (!c) return null;
  if (c.employees === 0) return 'coverage: no employees';
  const entries = Object.entries(c.points);
  const full = entries.filter(([, n]) => n >= c.employees).length;
  const none = entries.filter(([, n]) => n === 0).length;
  const partly = entries.filter(([, n]) => n > 0 && n < c.employees).sort((a, b) => a[1] - b[1]);
  const listed = partly.slice(0, PARTLY_LISTED).map(([p, n]) => `${p} ${((100 * n) / c.employees).toFixed(1)}% (${n})`);
  const more = partly.length > PARTLY_LISTED ? `, ${partly.length - PARTLY_LISTED} more` : '';
  return `coverage of ${c.employees} employees: ${full} data points on everyone, ${none} on no one${partly.length ? `; partly: ${listed.join(', ')}${more}` : ''}`;
}

/** An org's heading line of `sync status`. */
function orgLine(o: OrgSyncView): string {
  return `${o.org_name} (${o.org}): HRMS ${o.hrms_id ?? 'not configured'}${o.config_valid === false ? ' (configuration INVALID)' : ''}, next sync ${o.next_sync_at ?? 'not scheduled'}\n`;
}

/** Registers `sync run` and `sync status`. */
export function registerSyncCommands(program: Command, cli: Cli): void {
  const sync = program.command('sync').description('syncs of client orgs from their HRMS (a worker runs them)');
  sync
    .command('run')
    .description('queue a full sync of a client org now; with --follow, show its progress until it ends')
    .requiredOption('--org <uuid>', "the client org's uuid", uuidValue)
    .option('--follow', 'wait for the sync and show a progress bar (stderr) until it ends; exit 1 unless it succeeds')
    .option('--timeout <seconds>', 'with --follow, give up waiting after this long (0: no limit; the sync goes on)', intValue(0, 86_400), 0)
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPrints {org, job_id, queued: true}; with --follow {org, status, run: {id, pages, employees, ...}, reason?}.\nRefused when the org has no HRMS configuration, a refused one, or no pending or approved connection.',
    )
    .action(async (opts: RunOptions) => {
      await withContext(cli, async (ctx) => {
        const runs = ctx.services.syncRuns;
        const queued = await runs.queueNow(opts.org);
        if (!opts.follow) {
          output({ org: queued.org, job_id: queued.jobId, queued: true }, opts.json);
          return;
        }
        const end = await follow(queued, opts.timeout, (q) => runs.progress(q));
        const result = { org: queued.org, status: end.phase, run: end.run, ...(end.reason ? { reason: end.reason } : {}) };
        if (opts.json) output(result, true);
        else {
          const r = end.run;
          process.stdout.write(
            `${queued.orgName}: sync ${end.phase}${r ? `, ${r.employees} employees in ${r.pages} pages${r.employees_removed ? `, ${r.employees_removed} removed` : ''}` : ''}${end.reason ? ` (${end.reason})` : ''}\n`,
          );
        }
        if (end.phase !== 'succeeded') process.exitCode = 1;
      });
    });

  sync
    .command('status')
    .description("each client org's latest sync and next scheduled sync; with --org, that org's last 10 runs")
    .option('--org <uuid>', "one client org's uuid (default: every client org with an HRMS configuration or a run)", uuidValue)
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPrints {orgs: [{org, org_name, hrms_id, config_valid, next_sync_at, last_run}]}, or with --org {org, org_name, hrms_id, config_valid, next_sync_at, runs: [...]}.\nEach run has coverage: {employees, points: {<data point>: employees with a value}} (null for runs before coverage was recorded).',
    )
    .action(async (opts: { org?: string; json?: boolean }) => {
      await withContext(cli, async (ctx) => {
        const runs = ctx.services.syncRuns;
        if (opts.org) {
          const s = await runs.orgStatus(opts.org);
          if (opts.json) return output({ ...s }, true);
          process.stdout.write(orgLine(s));
          for (const r of s.runs) {
            process.stdout.write(`  ${runLine(r)}\n`);
            const covered = coverageLine(r);
            if (covered) process.stdout.write(`    ${covered}\n`);
          }
          if (!s.runs.length) process.stdout.write('  no sync yet\n');
          return;
        }
        const orgs = await runs.allStatus();
        if (opts.json) return output({ orgs }, true);
        for (const o of orgs) {
          process.stdout.write(orgLine(o));
          process.stdout.write(`  ${o.last_run ? runLine(o.last_run) : 'no sync yet'}\n`);
          const covered = o.last_run && coverageLine(o.last_run);
          if (covered) process.stdout.write(`    ${covered}\n`);
        }
        if (!orgs.length) process.stdout.write('no client org has an HRMS configuration yet\n');
      });
    });
}
