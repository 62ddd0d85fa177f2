/**
 * Which PostgreSQL and Redis the integration tests use, chosen once before the suite
 * (test/support/global-setup.ts):
 * - `DATABASE_URL` / `REDIS_URL` set: those (CI sets both: the machine's services);
 * - unset, with a container engine reachable (Docker, Podman, ... as Testcontainers finds it):
 *   a PostgreSQL 17 and a Redis 7 container each, started with `@testcontainers/postgresql` and
 *   `@testcontainers/redis` and removed after the suite;
 * - unset, without an engine: the machine's services at 127.0.0.1 (PostgreSQL 5432, trust auth,
 *   database `test`; Redis 6379).
 * Testcontainers is loaded only when a URL is unset, so the given-services path never needs it.
 */

/** Where each service came from. */
export type ServiceSource = 'env' | 'testcontainers' | 'default';

/** The services of a test run, with where each came from. */
export interface TestServices {
  databaseUrl: string;
  redisUrl: string;
  postgres: ServiceSource;
  redis: ServiceSource;
}

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Images of the containers (the versions docker-compose.yml runs). */
const POSTGRES_IMAGE = 'postgres:17';
const REDIS_IMAGE = 'redis:7';

/** Whether Testcontainers finds a container engine; false on any failure (none here, or unusable). */
async function engineReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/**
 * Picks (and starts, where containers are used) the services for `env`. `stop()` removes the
 * containers it started (nothing otherwise).
 */
export async function startTestServices(env: NodeJS.ProcessEnv = process.env): Promise<{ services: TestServices; stop(this: void): Promise<void> }> {
  const stops: (() => Promise<unknown>)[] = [];
  const needPostgres = !env.DATABASE_URL;
  const needRedis = !env.REDIS_URL;
  const containers = (needPostgres || needRedis) && (await engineReachable());
  let databaseUrl = env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  let redisUrl = env.REDIS_URL ?? DEFAULT_REDIS_URL;
  if (containers && needPostgres) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer(POSTGRES_IMAGE).withDatabase('test').withUsername('postgres').withPassword('postgres').start();
    stops.push(() => pg.stop());
    databaseUrl = pg.getConnectionUri();
  }
  if (containers && needRedis) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const redis = await new RedisContainer(REDIS_IMAGE).start();
    stops.push(() => redis.stop());
    redisUrl = redis.getConnectionUrl();
  }
  const source = (given: boolean): ServiceSource => (given ? 'env' : containers ? 'testcontainers' : 'default');
  return {
    services: { databaseUrl, redisUrl, postgres: source(!needPostgres), redis: source(!needRedis) },
    async stop() {
      for (const s of stops.reverse()) await s().catch(() => undefined);
    },
  };
}

/** One line saying which services the run uses (never a password). */
export function describeServices(s: TestServices): string {
  const where = (url: string) => {
    const u = new URL(url);
    return `${u.hostname}:${u.port}${u.pathname.length > 1 ? u.pathname : ''}`;
  };
  const from = { env: 'from the environment', testcontainers: 'a Testcontainers container', default: "the machine's default" };
  return `test services: PostgreSQL ${where(s.databaseUrl)} (${from[s.postgres]}), Redis ${where(s.redisUrl)} (${from[s.redis]})`;
}
