/**
 * Setup shared by test files that start the same thing: an API with a second API process over
 * the same database and Redis (the consent withdrawal tests, which check that every process stops
 * serving at once), an API over a private Redis the file may stop or pause (the `/readyz` and
 * `/metrics` tests), and the consent record and withdrawal requests (docs/api.md "Consent").
 */
import { afterAll, beforeAll } from 'vitest';
import { call, DATABASE_URL, dropSchema, startSecondApi, startTestApp, type SecondApi, type TestApp } from './harness';
import { privateEnv, startPrivateApp, type PrivateApp } from './private-app';
import { pauseRedis, startPrivateRedis, type PrivateRedis } from './private-services';

const DAY_MS = 86_400_000;

/** An API and a second API process over its database and Redis. */
export interface AppPair {
  app: TestApp;
  second: SecondApi;
}

/**
 * Starts an API (no worker) whose connection cache outlives the test (60 s: a refusal can only
 * come from the read itself) and a second API process beside it.
 */
export async function startAppPair(): Promise<AppPair> {
  const app = await startTestApp({ worker: false, env: { HRX_CONNECTION_CACHE_TTL_MS: '60000' } });
  const second = await startSecondApi(app);
  return { app, second };
}

/** Stops what {@link startAppPair} started (either may be missing when its start failed). */
export async function stopAppPair(pair: Partial<AppPair> | undefined): Promise<void> {
  await pair?.second?.stop();
  await pair?.app?.stop();
}

/** An API process (test/support/private-app.ts) over the shared PostgreSQL and a private Redis. */
export interface PrivateRedisApp {
  redis: PrivateRedis;
  app: PrivateApp;
}

/** Starts a private redis-server and an API process over it (a fresh schema of the shared PostgreSQL). */
export async function startPrivateRedisApp(): Promise<PrivateRedisApp> {
  const redis = await startPrivateRedis();
  try {
    return { redis, app: await startPrivateApp(privateEnv(DATABASE_URL, redis.url)) };
  } catch (err) {
    await redis.stop();
    throw err;
  }
}

/** Resumes the Redis if paused, stops the API and the Redis, drops the API's schema. */
export async function stopPrivateRedisApp(s: PrivateRedisApp | undefined): Promise<void> {
  if (!s) return;
  try {
    pauseRedis(s.redis, false);
  } catch {
    /* the test stopped it (ESRCH): nothing to resume */
  }
  await s.app.stop();
  await s.redis.stop();
  await dropSchema(s.app.config.HRX_DB_SCHEMA);
}

/**
 * Registers the file's (or describe block's) hooks: a private Redis and an API over it before its
 * tests ({@link startPrivateRedisApp}), both stopped after them. The fields are set once the
 * `beforeAll` has run.
 */
export function usePrivateRedisApp(): PrivateRedisApp {
  const need = useStarted(startPrivateRedisApp, stopPrivateRedisApp, 60_000);
  return {
    get redis() {
      return need().redis;
    },
    get app() {
      return need().app;
    },
  };
}

/**
 * Registers the file's hooks: {@link startAppPair} before its tests, {@link stopAppPair} after.
 * The fields are readable once the `beforeAll` has run (register this before the file's own
 * `beforeAll`, which then sees them).
 */
export function useAppPair(): AppPair {
  const need = useStarted(startAppPair, stopAppPair, 90_000);
  return {
    get app() {
      return need().app;
    },
    get second() {
      return need().second;
    },
  };
}

/** The JSON body of a consent record (`POST /api/v1/employee/consent-data/`): issued now and expiring in a day unless given. */
export function consentBody(org: string, opts: { employeeId?: string; language?: string; timestamp?: Date; expiry?: Date } = {}): Record<string, string> {
  const timestamp = opts.timestamp ?? new Date();
  return {
    org,
    employee_id: opts.employeeId ?? 'E1',
    consent_language: opts.language ?? 'I agree.',
    consent_timestamp: timestamp.toISOString(),
    consent_expiry: (opts.expiry ?? new Date(Date.now() + DAY_MS)).toISOString(),
  };
}

/** Records a consent as the vendor holding `apiKey`; the raw answer. */
export function postConsent(baseUrl: string, apiKey: string, body: Record<string, string>): ReturnType<typeof call> {
  return call(`${baseUrl}/api/v1/employee/consent-data/`, {
    method: 'POST',
    headers: { authorization: apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** POSTs a withdrawal `body` to `path` (vendor or employer route) with `authorization` if any; the raw answer. */
export function postRevoke(url: string, authorization: string | undefined, body: unknown): ReturnType<typeof call> {
  return call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(body),
  });
}

/**
 * Registers `beforeAll(start)` (within `timeoutMs`) and `afterAll(stop)`; answers a reader of what
 * `start` made, which throws when called before that `beforeAll` has run.
 */
function useStarted<T>(start: () => Promise<T>, stop: (started: T | undefined) => Promise<void>, timeoutMs: number): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(() => stop(started));
  return () => {
    if (started === undefined) throw new Error('read before its beforeAll has run');
    return started;
  };
}
