/**
 * hrx over a private PostgreSQL and Redis (test/support/private-services.ts), in this process:
 * the real context, migrations and app on a real port. For fault tests.
 */
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { openContext, type Context } from '../../src/context';
import { migrate } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { listen } from '../../src/server';
import { closeTestDb } from './db';
import { testEnv } from './harness';

/** A running hrx API over private services. */
export interface PrivateApp {
  env: Record<string, string>;
  config: Config;
  ctx: Context;
  url: string;
  stop(): Promise<void>;
}

/** The environment of an hrx over `pgUrl` and `redisUrl` (a fresh schema and prefix). */
export function privateEnv(pgUrl: string, redisUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return testEnv({ DATABASE_URL: pgUrl, REDIS_URL: redisUrl, HRX_RATE_LIMIT_PER_MINUTE: '100000', ...extra });
}

/** Opens a context over `env`, applies migrations and listens on a free port. */
export async function startPrivateApp(env: Record<string, string>): Promise<PrivateApp> {
  const config = loadConfig(env);
  const log = createLogger(config.LOG_LEVEL);
  const ctx = await openContext(config, log, { poolMax: 10 });
  await migrate(ctx.db, ctx.migrationKeys);
  const server = await listen(buildApp(ctx), '127.0.0.1', 0, config.HRX_BASE_PATH, log);
  return {
    env,
    config,
    ctx,
    url: server.url,
    async stop() {
      await server.stop(1000);
      await closeTestDb(ctx);
      await ctx.close();
    },
  };
}
