/**
 * The choice of the tests' PostgreSQL and Redis (test/support/services.ts): given URLs are used
 * as they are, without starting anything, and the line that says which services a run uses
 * names host, port and database, never a password.
 */
import { describe, expect, it } from 'vitest';
import { describeServices, startTestServices } from '../support/services';

describe('test services', () => {
  it('DATABASE_URL and REDIS_URL given: used as given, nothing started', async () => {
    const env = { DATABASE_URL: 'postgresql://postgres:pw-1@db.example:6543/hrx', REDIS_URL: 'redis://:pw-2@cache.example:6380' };
    const { services, stop } = await startTestServices(env);
    expect(services).toEqual({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, postgres: 'env', redis: 'env' });
    await stop();
    const line = describeServices(services);
    expect(line).toBe('test services: PostgreSQL db.example:6543/hrx (from the environment), Redis cache.example:6380 (from the environment)');
    expect(line).not.toMatch(/pw-/);
  });

  it('names containers and the machine defaults as such', () => {
    expect(
      describeServices({
        databaseUrl: 'postgresql://postgres:postgres@localhost:32768/test',
        redisUrl: 'redis://localhost:32769',
        postgres: 'testcontainers',
        redis: 'testcontainers',
      }),
    ).toBe('test services: PostgreSQL localhost:32768/test (a Testcontainers container), Redis localhost:32769 (a Testcontainers container)');
    expect(
      describeServices({ databaseUrl: 'postgresql://postgres@127.0.0.1:5432/test', redisUrl: 'redis://127.0.0.1:6379', postgres: 'default', redis: 'default' }),
    ).toBe("test services: PostgreSQL 127.0.0.1:5432/test (the machine's default), Redis 127.0.0.1:6379 (the machine's default)");
  });
});
