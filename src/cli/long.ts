/**
 * The long-running commands (docs/cli.md): `hrx start` (API and workers, migrating first),
 * `hrx serve` (API), `hrx worker` (sync and events workers), `hrx demo` and `hrx hrms-sim` (an
 * HRMS simulator: the reference HRMS or a product's). Each runs until SIGTERM/SIGINT. What they run is loaded when they
 * run (`run.ts`, `demo.ts`), so `--help` loads none of it.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { HRMS_IDS } from '../hrms/hrms-ids';
import { choiceOption, intValue, keyValue, numberValue, UsageError } from './args';
import type { DemoOptions } from './demo';
import type { Cli } from './runtime';

/** Options of `hrx hrms-sim`. */
interface SimOptions {
  dialect: string;
  port: number;
  host: string;
  employees: number;
  seed: string;
  clientId?: string;
  clientSecret?: string;
  latencyMs: number;
  rate429: number;
  rate5xx: number;
  tokenExpiresAfter: number;
  variant?: Record<string, string | number | boolean>;
}

/**
 * The dialects of `hrx hrms-sim --dialect`: every product of the one list (src/hrms/hrms-ids.ts),
 * which imports nothing, so `--help` loads no simulator and no connector.
 */
export const SIM_DIALECTS: readonly string[] = HRMS_IDS;

const LISTEN_HELP =
  '\nThe API listens on HOST:PORT (default 127.0.0.1:8080, under HRX_BASE_PATH); PostgreSQL is DATABASE_URL (embedded under HRX_DATA_DIR when unset), Redis is REDIS_URL.';

const PROCESSES_HELP =
  '\nWith --processes N (or HRX_PROCESSES) a primary process starts N API processes sharing PORT, restarts one that exits\n' +
  'unasked, sums /metrics over them, and on SIGTERM/SIGINT stops them all gracefully (docs/operations.md "Several processes on one machine").';

/** Parser of `--processes`: `auto` or a whole number from 1 to 999 (as `HRX_PROCESSES`). */
function processesValue(v: string): string {
  if (!/^(auto|[1-9][0-9]{0,2})$/.test(v)) throw new InvalidArgumentError('must be auto or a whole number from 1 to 999.');
  return v;
}

// A worker serves no HTTP: it needs only the database and Redis.
const WORKER_HELP = '\nThe worker listens on no port; PostgreSQL is DATABASE_URL (embedded under HRX_DATA_DIR when unset), Redis is REDIS_URL.';

/** Registers `start`, `serve`, `worker`, `demo` and `hrms-sim`. */
export function registerLongCommands(program: Command, cli: Cli): void {
  const kinds = [
    ['start', 'the API and the workers in one process (applies pending migrations first)'],
    ['serve', 'the API only (as many processes as you like)'],
    ['worker', 'the sync and events workers only (as many as you like)'],
  ] as const;
  for (const [kind, description] of kinds) {
    const command = program
      .command(kind)
      .description(description)
      .addHelpText('after', `${kind === 'worker' ? WORKER_HELP : LISTEN_HELP}\nSIGTERM/SIGINT: requests and jobs in flight get 25 s to finish.`);
    if (kind === 'serve') {
      command
        .option('--processes <n|auto>', 'API processes on this machine sharing PORT (auto: one per core; default HRX_PROCESSES, else 1)', processesValue)
        .addHelpText('after', PROCESSES_HELP);
    }
    command.action(async (opts: { processes?: string }) => {
      const { config, log } = cli.env(true);
      const [{ startProcess }, { onShutdown }, { isApiChild, processCount, superviseApiProcesses }] = await Promise.all([
        import('./run'),
        import('../server'),
        import('./processes'),
      ]);
      const child = kind === 'serve' && isApiChild();
      const processes = kind === 'serve' && !child ? processCount(opts.processes ?? config.HRX_PROCESSES) : 1;
      if (processes > 1) {
        cli.keepRunning();
        superviseApiProcesses(processes, log);
        return;
      }
      const started = startProcess(config, log, {
        api: kind !== 'worker',
        worker: kind !== 'serve',
        migrateFirst: kind === 'start',
        startJobs: cli.startJobs,
      });
      // A child listens for its primary's stop from the start: a stop asked while it starts waits for the start, then stops.
      if (child) onShutdown(async () => (await started).stop(), log, undefined, { clusterChild: true });
      const running = await started;
      cli.keepRunning();
      if (!child) onShutdown(() => running.stop(), log);
    });
  }

  program
    .command('demo')
    .description(
      'set up and run everything on real input: PostgreSQL (embedded unless DATABASE_URL), migrations, API, worker, the reference HRMS, two orgs, a first sync and read; prints curl lines',
    )
    .option('--employees <n>', "employees of the demo's reference HRMS", intValue(1, 1_000_000), 250)
    .option('--sim-port <port>', "port of the demo's reference HRMS", intValue(0, 65535), 9100)
    .option('--exit-after-read', 'stop after the first successful read (default: run until Ctrl-C)')
    .addHelpText('after', `${LISTEN_HELP}\nThe demo's Redis keys go under HRX_REDIS_PREFIX:demo and are removed when it stops.`)
    .action(async (opts: DemoOptions) => {
      const { config, log } = cli.env(true);
      const { demo } = await import('./demo');
      cli.keepRunning();
      await demo(opts, config, log, cli.startJobs);
    });

  program
    .command('hrms-sim')
    .description(
      "run an HRMS simulator: the reference HRMS (prints {url, port}) or, with --dialect, a product's (prints {url, dialect, setup}: the setup-config fields that authenticate against it)",
    )
    .addOption(choiceOption('--dialect <hrms_id>', 'which HRMS to simulate', SIM_DIALECTS, 'reference'))
    .option('--port <port>', 'port to listen on (0: any free port)', intValue(0, 65535), 9100)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--employees <n>', 'number of employees (EMP00001, EMP00002, ...)', intValue(0, 10_000_000), 100)
    .option('--seed <seed>', 'seed of the generated employees (same seed, same employees)', '1')
    .option('--client-id <id>', 'the client_id hrx must present (required with --dialect reference)')
    .option('--client-secret <secret>', 'the client_secret hrx must present (required with --dialect reference)')
    .option('--latency-ms <ms>', 'delay added to every answer', numberValue(0, 600_000), 0)
    .option('--rate-429 <fraction>', 'share of requests answered 429 (a product: its throttling signal) (0 to 1)', numberValue(0, 1), 0)
    .option('--rate-5xx <fraction>', 'share of requests answered 5xx (0 to 1)', numberValue(0, 1), 0)
    .option(
      '--token-expires-after <calls>',
      'a product simulator: each issued token stops working after this many data calls, so a client must fetch a new one (0: tokens live their usual lifetime)',
      intValue(0, 1_000_000),
      0,
    )
    .option(
      '--variant <key=value>',
      "a product simulator: one of its switches for what the research left open, e.g. limitPerMinute=10 or dateFormat=dmy-slash (repeatable; each simulator's module comment in src/hrms/<hrms_id>/sim/ lists its own)",
      keyValue,
    )
    .addHelpText(
      'after',
      '\nA product simulator makes up its own test credentials and prints them under "setup"\n(paste them into setup-config). --token-expires-after and --variant apply to a product simulator only.',
    )
    .action(async (opts: SimOptions) => {
      if (opts.dialect === 'reference' && (!opts.clientId || !opts.clientSecret)) {
        throw new UsageError('--client-id and --client-secret are required with --dialect reference');
      }
      if (opts.dialect === 'reference' && (opts.tokenExpiresAfter > 0 || opts.variant)) {
        throw new UsageError('--token-expires-after and --variant apply to a product simulator (--dialect other than reference)');
      }
      const { log } = cli.env(true);
      const { onShutdown } = await import('../server');
      if (opts.dialect !== 'reference') {
        const { DIALECT_SIMS } = await import('../hrms/sim/dialects');
        const start = DIALECT_SIMS.get(opts.dialect)!;
        const sim = await start({
          port: opts.port,
          host: opts.host,
          employees: opts.employees,
          seed: opts.seed,
          ...(opts.variant ? { variants: opts.variant } : {}),
        });
        sim.setFaults({ latencyMs: opts.latencyMs, rateThrottle: opts.rate429, rate5xx: opts.rate5xx, tokenExpiresAfterCalls: opts.tokenExpiresAfter });
        cli.keepRunning();
        log.info({ url: sim.url, dialect: opts.dialect }, 'HRMS simulator listening');
        // The simulator's own test credentials (not an employer's secrets): printed so a trial can configure hrx with them.
        process.stdout.write(JSON.stringify({ url: sim.url, dialect: opts.dialect, setup: sim.setup() }) + '\n');
        onShutdown(() => sim.close(), log);
        return;
      }
      const { startHrmsSimulator } = await import('../hrms/sim/server');
      const sim = await startHrmsSimulator({
        port: opts.port,
        host: opts.host,
        employees: opts.employees,
        seed: opts.seed,
        clientId: opts.clientId!,
        clientSecret: opts.clientSecret!,
        latencyMs: opts.latencyMs,
        rate429: opts.rate429,
        rate5xx: opts.rate5xx,
      });
      cli.keepRunning();
      log.info({ url: sim.url }, 'reference HRMS simulator listening');
      process.stdout.write(JSON.stringify({ url: sim.url, port: sim.port }) + '\n');
      onShutdown(() => sim.close(), log);
    });
}
