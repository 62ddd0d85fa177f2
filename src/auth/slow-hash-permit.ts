/**
 * The last gate before a slow hash (docs/behaviour.md "Failed authentications": failed authentications are limited before any
 * slow hash runs). The failure guard (auth/failure-guard.ts) runs a credential check inside a
 * permit; a check about to run scrypt (auth/secret-check.ts) awaits `beforeSlowHash()`, which
 * counts the attempt as a failure up front, atomically with the limit check (throwing 429
 * THROTTLED when over it). So even many concurrent attempts cannot run more slow hashes than the
 * limit allows; the guard takes the count back when the check succeeds. Outside a guard (the CLI,
 * tests calling a service directly) it does nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const permits = new AsyncLocalStorage<() => Promise<void>>();

/** Runs `fn` with `take` as the gate of the slow hashes it may run. */
export function withSlowHashPermit<T>(take: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  return permits.run(take, fn);
}

/** Awaited right before a slow hash; throws AppError THROTTLED when the attempt is over the limit. */
export async function beforeSlowHash(): Promise<void> {
  await permits.getStore()?.();
}
