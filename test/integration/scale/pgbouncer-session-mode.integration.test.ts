/**
 * `HRX_DB_POOL_MODE=session` (the default) behind a PgBouncer in transaction pooling
 * (docs/operations.md "PostgreSQL through PgBouncer"): hrx refuses to start, and what it prints
 * names `HRX_DB_POOL_MODE=transaction`, whether PgBouncer refuses the startup parameters
 * ("unsupported startup parameter") or drops them silently (`ignore_startup_parameters = options`:
 * caught by the check each pool makes when it opens, before any statement runs on the wrong schema).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';
import { openInfra } from '../../../src/infra';
import { createLogger } from '../../../src/logger';
import { runHrx } from '../../support/cli';
import { DATABASE_URL, dropSchema, testEnv } from '../../support/harness';
import { havePgBouncer, startPgBouncer, type PgBouncer } from '../../support/pgbouncer';

let refusing: PgBouncer | undefined;
let ignoring: PgBouncer | undefined;
const schemas: string[] = [];

describe.skipIf(!havePgBouncer)('HRX_DB_POOL_MODE=session behind PgBouncer in transaction pooling', () => {
  beforeAll(async () => {
    [refusing, ignoring] = await Promise.all([
      startPgBouncer(DATABASE_URL, { poolSize: 2 }),
      startPgBouncer(DATABASE_URL, { poolSize: 2, ignoreStartupParameters: 'options' }),
    ]);
  });
  afterAll(async () => {
    await refusing?.stop();
    await ignoring?.stop();
    for (const s of schemas) await dropSchema(s);
  });

  it('PgBouncer refuses the startup parameters: hrx exits 1 saying to set HRX_DB_POOL_MODE=transaction', async () => {
    const env = testEnv({ DATABASE_URL: refusing!.url, HRX_DB_POOL_MODE: 'session', LOG_LEVEL: 'silent' });
    schemas.push(env.HRX_DB_SCHEMA!);
    const r = await runHrx(['migrate', '--json'], env);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe(
      'hrx: the server at DATABASE_URL refused the startup parameters of HRX_DB_POOL_MODE=session (unsupported startup parameter): a pooler such as PgBouncer is in between; set HRX_DB_POOL_MODE=transaction (docs/operations.md "PostgreSQL through PgBouncer")',
    );
    expect(refusing!.log()).toMatch(/unsupported startup parameter/);
  }, 60_000);

  it('PgBouncer drops them (ignore_startup_parameters = options): the check refuses, naming what it found', async () => {
    const env = testEnv({ DATABASE_URL: ignoring!.url, HRX_DB_POOL_MODE: 'session' });
    schemas.push(env.HRX_DB_SCHEMA!);
    const config = loadConfig(env);
    // Were the check gone, this would open: closed at once, it shows as 'opened' below.
    const outcome = await openInfra(config, createLogger('silent', 'hrx')).then(
      async (infra) => {
        await infra.close();
        return 'opened';
      },
      (err: unknown) => (err instanceof ConfigError ? err.message : `not a ConfigError: ${String(err)}`),
    );
    expect(outcome).toBe(
      `the PostgreSQL connection does not run with the settings hrx sent when connecting (search_path is "\\"$user\\", public", not "${config.HRX_DB_SCHEMA}"; statement_timeout is "0", not "1500"; idle_in_transaction_session_timeout is "0", not "10000"): a pooler in between dropped them (PgBouncer's ignore_startup_parameters); set HRX_DB_POOL_MODE=transaction (docs/operations.md "PostgreSQL through PgBouncer")`,
    );
    // The same PgBouncer serves hrx in transaction mode.
    const ok = await openInfra(loadConfig({ ...env, HRX_DB_POOL_MODE: 'transaction' }), createLogger('silent', 'hrx'));
    try {
      expect((await ok.pool.query(`select current_schema() as schema, current_setting('statement_timeout') as timeout`)).rows).toEqual([
        { schema: config.HRX_DB_SCHEMA, timeout: '1500ms' },
      ]);
    } finally {
      await ok.close();
    }
  }, 60_000);
});
