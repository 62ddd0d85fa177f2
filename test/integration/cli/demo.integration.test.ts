/**
 * `hrx demo --exit-after-read` on the tests' PostgreSQL and Redis: its reference simulator
 * listens on 127.0.0.1, so the demo allows private HRMS hosts for its own process even when the
 * environment says HRX_HRMS_ALLOW_PRIVATE_HOSTS=0 (README "What `npm run demo` does").
 */
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { HRX_BIN } from '../../support/cli';
import { dropSchema, REDIS_URL, testEnv } from '../../support/harness';

const run = promisify(execFile);

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('hrx demo', () => {
  const env = testEnv({ HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', LOG_LEVEL: 'warn' });
  afterAll(async () => {
    await dropSchema(env.HRX_DB_SCHEMA!);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${env.HRX_REDIS_PREFIX}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('syncs from its simulator on 127.0.0.1 and reads, with HRX_HRMS_ALLOW_PRIVATE_HOSTS=0 in the environment', async () => {
    const [port, simPort] = [await freePort(), await freePort()];
    const { stdout } = await run(process.execPath, [HRX_BIN, 'demo', '--exit-after-read', '--employees', '5', '--sim-port', String(simPort)], {
      env: { ...process.env, ...env, PORT: String(port) }, timeout: 90_000,
    });
    expect(stdout).toContain(`reference HRMS at http://127.0.0.1:${simPort} with 5 employees.`);
    expect(stdout).toMatch(/First successful read [\d.]+ s after start: EMP00001 is /);
  });
});
