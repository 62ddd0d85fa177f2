/**
 * How many scrypt runs per second can one attacker force with bogus logins (docs/behaviour.md "Failed authentications": failed
 * authentications are limited before any slow hash runs)? Starts hrx in this process, creates a
 * vendor with a V2 Basic credential and a client org, then for `--duration` seconds per door
 * hammers, from one source address with `--connections` concurrent requests, V2 Basic
 * (a real username, a wrong password each time) and the update webhook (a real app_key, a wrong
 * secret each time). Counts answers by status and scrypt invocations (the counter of
 * src/crypto/secrets.ts).
 *
 * Each door starts with a fresh failure count (the limit is per source address, so the first door
 * would otherwise block the second). `--legacy` clears the keyed hashes first, as on credentials
 * made before Migration20261123020000: a wrong secret then costs scrypt, behind the limit.
 *
 *   npx tsx bench/auth-failures.ts [--duration 10] [--connections 8] [--legacy]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app';
import * as secrets from '../src/crypto/secrets';
import { listen } from '../src/server';
import { createLogger } from '../src/logger';
import { benchEnv, openBenchContext, runCleanups } from './lib';
import { dbQuery } from '../test/support/db';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '8' }, legacy: { type: 'boolean' } },
});
const durationMs = Number(values.duration) * 1000;
const connections = Number(values.connections);
const scryptRuns = (): number | undefined => (secrets as { scryptRuns?: () => number }).scryptRuns?.();

async function main(): Promise<void> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const server = await listen(buildApp(ctx), '127.0.0.1', 0, '', createLogger('warn', 'bench'));
  try {
    const vendor = await ctx.services.orgs.create({ name: 'Bench Vendor', vendor: true, client: false });
    const cred = await ctx.services.external.basic.create(vendor.org.uuid);
    const client = await ctx.services.orgs.create({ name: 'Bench Client', vendor: false, client: true });
    if (values.legacy) {
      await dbQuery(ctx, 'update basic_credentials set password_keyed_hash = null');
      await dbQuery(ctx, 'update orgs set app_secret_keyed_hash = null');
    }
    const doors = [
      { name: 'V2 Basic', path: '/api/external/employee/', user: cred.username, body: '{"encrypted_payload":"x"}' },
      { name: 'webhook Basic', path: '/api/webhook/v1/employee/update/', user: client.org.appKey, body: '{"employeeId":"E1"}' },
    ];
    for (const door of doors) {
      const stale = await ctx.redis.keys(`${env.HRX_REDIS_PREFIX}:authfail:*`);
      if (stale.length) await ctx.redis.del(...stale);
      const statuses = new Map<number, number>();
      const before = scryptRuns();
      const t0 = performance.now();
      const end = t0 + durationMs;
      const worker = async () => {
        while (performance.now() < end) {
          const auth = `Basic ${Buffer.from(`${door.user}:${randomBytes(32).toString('base64url')}`).toString('base64')}`;
          const res = await fetch(server.url + door.path, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: door.body,
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: connections }, worker));
      const seconds = (performance.now() - t0) / 1000;
      const after = scryptRuns();
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      // Without the counter (the code before the limit), every 401 of a known id cost one scrypt.
      const runs = before !== undefined && after !== undefined ? after - before : (statuses.get(401) ?? 0);
      process.stdout.write(
        `${door.name}: ${total} requests in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(0)}/s), ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}, scrypt runs ${runs} ` +
          `(${(runs / seconds).toFixed(1)}/s, ${before !== undefined ? 'counted' : 'inferred from 401s'})${values.legacy ? ' [legacy rows]' : ''}\n`,
      );
    }
  } finally {
    await server.stop();
    await runCleanups();
  }
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    await runCleanups();
    process.exit(1);
  },
);
