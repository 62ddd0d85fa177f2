/**
 * What every command's action gets: the configuration and logger (loaded on first use, so
 * `--help` needs neither a database nor a valid environment), the job starters of the
 * composition root, and a context opened for one command.
 */
import type { Config } from '../config';
import type { Context } from '../context';
import { AppError } from '../errors';
import type { Logger } from '../logger';

/** The job side of a worker process (sync and events workers, schedule reconciler), once started. */
export interface RunningJobs {
  /** Stops installing job schedulers (first, so no new work is scheduled during shutdown). */
  stopScheduling(): Promise<void>;
  /** Closes the workers; resolves once their running jobs have finished. */
  close(): Promise<void>;
}

/**
 * Starts the job side over an open context. Injected by the composition root (`jobs/index.ts`,
 * handed over by `bin/hrx.js`), so `src/` never imports `jobs/`. Throws when Redis refuses the
 * events worker's schedulers.
 */
export type StartJobs = (ctx: Context) => Promise<RunningJobs>;

/** A failure whose message hrx wrote for the operator (no values from a driver): printed as is, exit code 1. */
export class CommandError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'CommandError';
  }
}

/** The CLI's runtime, shared by every command of one invocation. */
export interface Cli {
  /**
   * The validated configuration (throws ConfigError) and a logger: at `LOG_LEVEL` for a
   * long-running command (`long`), otherwise at `LOG_LEVEL` when set and `warn` when not.
   */
  env(long?: boolean): { config: Config; log: Logger };
  /** The job starters (bin/hrx.js passes them; `worker`, `start` and `demo` need them). */
  startJobs: StartJobs | undefined;
  /** Called by a long-running command: the process stays up after its action returns. */
  keepRunning(): void;
}

/**
 * Opens a context for one command, runs `fn` and closes it. `notFound`: what to say when `fn`
 * throws NOT_FOUND (e.g. "no org with uuid X"), instead of the API's bare "Not found.".
 */
export async function withContext<T>(cli: Cli, fn: (ctx: Context) => Promise<T>, opts: { notFound?: string } = {}): Promise<T> {
  const { config, log } = cli.env();
  // docs/cli.md "How every command behaves": a shell without DATABASE_URL (a second one beside the demo's)
  // would otherwise work on the embedded database without a word.
  if (!config.DATABASE_URL) {
    process.stderr.write(
      `hrx: DATABASE_URL is not set: using the embedded PostgreSQL under ${config.HRX_DATA_DIR} (the one \`npm run demo\` starts); set DATABASE_URL for another database\n`,
    );
  }
  // Loaded here, not at the top: `--help` and usage errors never load the service's modules.
  const { openContext } = await import('../context');
  const ctx = await openContext(config, log, { poolMax: 2 });
  try {
    return await fn(ctx);
  } catch (err) {
    if (opts.notFound && err instanceof AppError && err.code === 'NOT_FOUND') throw new CommandError(opts.notFound, { cause: err });
    throw err;
  } finally {
    // close() lets BullMQ's queue initialisation settle first, each step bounded.
    await ctx.close();
  }
}
