/**
 * `hrx demo`: brings everything up on real input, in one process: PostgreSQL (embedded unless
 * DATABASE_URL is set), migrations, the API and the sync worker, the reference HRMS simulator, a
 * demo vendor and client org, setup-config through the real API, the first sync, a first read,
 * a pay history read of 12 months (docs/pay-history.md "Read"), and copy-pasteable curl lines. Runs until Ctrl-C (or exits after the read with
 * `--exit-after-read`). The simulator listens on 127.0.0.1, so the demo's own process adds its
 * host and port to HRX_HRMS_ALLOWED_HOSTS (docs/behaviour.md "HRMS hosts"): every other private
 * host, and every other port of 127.0.0.1, stays refused.
 *
 * The demo keeps to its own Redis keys (`<HRX_REDIS_PREFIX>:demo`), so a real hrx sharing the
 * Redis never sees its jobs or job schedulers (their org ids are the demo database's), and it
 * removes its queues, schedulers included, when it stops.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import type { Context } from '../context';
import { startHrmsSimulator } from '../hrms/sim/server';
import type { Logger } from '../logger';
import { onShutdown } from '../server';
import { startProcess } from './run';
import type { StartJobs } from './runtime';
import { createTrial, readTrialPayHistory, trialCurlLines, waitForFirstRead } from './trial';

/** The Redis key prefix of the demo's queues and locks under `prefix` (HRX_REDIS_PREFIX). */
export const demoRedisPrefix = (prefix: string): string => `${prefix}:demo`;

/** Options of `hrx demo`. */
export interface DemoOptions {
  employees: number;
  simPort: number;
  exitAfterRead?: boolean;
}

/** Empties the demo's queues, job schedulers included (they live under the demo's own prefix). */
async function removeQueues(ctx: Context): Promise<void> {
  await ctx.syncQueue.obliterate();
  await ctx.eventsQueue.queue.obliterate({ force: true });
  await ctx.housekeepingQueue.queue.obliterate({ force: true });
  await ctx.retentionQueue.queue.obliterate({ force: true });
}

/** Runs the demo; prints the curl lines and the time to the first read on stdout. */
export async function demo(opts: DemoOptions, environmentConfig: Config, log: Logger, startJobs: StartJobs | undefined): Promise<void> {
  const employees = opts.employees;
  const simSecret = randomBytes(18).toString('base64url');
  // The simulator first: its host and port are the one private HRMS address the demo allows.
  const sim = await startHrmsSimulator({
    port: opts.simPort,
    employees,
    seed: 'hrx-demo',
    clientId: 'demo-client',
    clientSecret: simSecret,
  });
  const simAddress = new URL(sim.url);
  const config: Config = {
    ...environmentConfig,
    HRX_HRMS_ALLOWED_HOSTS: [...environmentConfig.HRX_HRMS_ALLOWED_HOSTS, `${simAddress.hostname}:${simAddress.port}`],
    HRX_REDIS_PREFIX: demoRedisPrefix(environmentConfig.HRX_REDIS_PREFIX),
  };
  const running = await startProcess(config, log, { api: true, worker: true, migrateFirst: true, startJobs }).catch(async (err: unknown) => {
    await sim.close();
    throw err;
  });
  const { services } = running.ctx;
  const stopAll = async (): Promise<void> => {
    await running.stop({ beforeClose: removeQueues });
    await sim.close();
  };
  try {
    const base = running.url!;
    const trial = await createTrial(
      services,
      base,
      { url: sim.url, clientId: 'demo-client', clientSecret: simSecret },
      { vendor: 'Demo Lender', client: 'Acme Employer', domain: 'acme.example' },
    );
    const name = await waitForFirstRead(base, trial, 180_000);
    // The employee is stored; the same sync's backfill records the months the payroll API serves.
    const pay = await readTrialPayHistory(base, trial);
    const newest = pay[0];
    const lines = [
      '',
      `hrx is running at ${base} (API + sync worker), reference HRMS at ${sim.url} with ${employees} employees.`,
      `First successful read ${process.uptime().toFixed(1)} s after start: EMP00001 is ${name}.`,
      `Pay history of EMP00001: ${pay.length} months` +
        (newest ? `, newest ${newest.year}-${String(newest.month).padStart(2, '0')} gross ${newest.grossPay ?? '-'} net ${newest.netPay ?? '-'}.` : '.'),
      '',
      ...trialCurlLines(base, trial),
      '',
      config.HRX_ADMIN_TOKEN ? `Queues: ${base}/admin/queues (user any, password HRX_ADMIN_TOKEN)` : 'Set HRX_ADMIN_TOKEN to see the queues at /admin/queues.',
      'Press Ctrl-C to stop.',
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } catch (err) {
    await stopAll().catch(() => undefined);
    throw err;
  }
  if (opts.exitAfterRead) {
    await stopAll();
    process.exit(0);
  }
  onShutdown(stopAll, log);
}
