/**
 * What runs every product simulator (`src/hrms/<hrms_id>/sim/`): its servers (`SimHttp`), the request
 * counters with the largest count in any window of the product's limit, the fault switches and
 * their deterministic roll, and the tokens whose call budget the `tokenExpiresAfterCalls` fault
 * sets. A product keeps one `SimCore` and delegates `setFaults`, `stats`, `resetStats`,
 * `revokeTokens` and `close` to it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DialectFaults, DialectSimOptions, DialectSimStats } from '../dialect';
import { requestCounter, type SimTls } from '../listen';
import { json, SimHttp, type Reply, type SimRoute } from './http';
import type { Tokens } from './staff';

/** The fault switches, checked; `throttleLockoutMs` stays absent until set (the product's own lock-out then). */
export type Faults = Omit<Required<DialectFaults>, 'throttleLockoutMs'> & Pick<DialectFaults, 'throttleLockoutMs'>;

/** `faults` over `current`, checked: `RangeError` unless rates are 0..1 summing to at most 1 and latency and counts >= 0. */
export function mergeFaults(current: Faults, faults: DialectFaults): Faults {
  const next: Faults = { ...current, ...Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined)) };
  const rate = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= 1;
  if (
    !rate(next.rateThrottle) ||
    !rate(next.rate5xx) ||
    next.rateThrottle + next.rate5xx > 1 ||
    !(next.latencyMs >= 0) ||
    !(next.tokenExpiresAfterCalls >= 0) ||
    !((next.throttleLockoutMs ?? 0) >= 0)
  ) {
    throw new RangeError('faults out of range (rates 0..1 summing to at most 1, latency and counts >= 0)');
  }
  return next;
}

/**
 * The fault of each data call, spread evenly, never drawn at random (random faults made a test
 * flaky): each call adds the rates to an accumulator per fault and a fault is due when its
 * accumulator reaches the threshold, so exactly `rateThrottle` of the calls are throttled and
 * `rate5xx` fail (counted from the last setting) and a run is repeatable. Throttling wins when both
 * are due; the 5xx then comes on the next call. `eager`: the first call already meets a fault
 * (for products a sync asks only once or twice: Darwinbox, BambooHR); otherwise the `1/rate`-th.
 */
export class FaultRoller {
  private due = { throttle: 0, fiveXx: 0 };
  private failures = 0;
  private readonly threshold: number;

  constructor(eager = false) {
    this.threshold = eager ? 1e-9 : 1 - 1e-9;
  }

  reset(): void {
    this.due = { throttle: 0, fiveXx: 0 };
  }

  next(f: Pick<Faults, 'rateThrottle' | 'rate5xx'>): 'throttle' | '5xx' | undefined {
    this.due.throttle += f.rateThrottle;
    this.due.fiveXx += f.rate5xx;
    if (f.rateThrottle > 0 && this.due.throttle >= this.threshold) {
      this.due.throttle -= 1;
      return 'throttle';
    }
    if (f.rate5xx > 0 && this.due.fiveXx >= this.threshold) {
      this.due.fiveXx -= 1;
      return '5xx';
    }
    return undefined;
  }

  /** The status of an injected server failure for products that alternate: 503 and 500 in turn. */
  alternatingStatus(): number {
    return this.failures++ % 2 === 0 ? 503 : 500;
  }
}

const ZERO_COUNTS = { requests: 0, tokenRequests: 0, throttled: 0, authFailures: 0 };

/** One simulator's servers, counters, faults and tokens. */
export class SimCore {
  /** Every request (`requests`, counted by `listen`), token requests, throttled answers, refused credentials. */
  counters = { ...ZERO_COUNTS };
  /** The requests the product counts against its limit, in a sliding window of `limit.windowMs`. */
  readonly window: ReturnType<typeof requestCounter>;
  faults: Faults = { latencyMs: 0, rateThrottle: 0, rate5xx: 0, tokenExpiresAfterCalls: 0 };
  readonly http = new SimHttp();
  /** Whether the product's limit is enforced (`DialectSimOptions.throttle`, default true). */
  readonly throttle: boolean;
  private readonly roller: FaultRoller;
  /** The product's limit, or `DialectSimOptions.limit` when given. */
  readonly limit: { requests: number; windowMs: number };

  constructor(
    private readonly opts: DialectSimOptions,
    limit: { requests: number; windowMs: number },
    private readonly tokenStores: readonly Tokens[] = [],
    eagerFaults = false,
  ) {
    this.limit = opts.limit ?? limit;
    this.window = requestCounter(this.limit.windowMs);
    this.throttle = opts.throttle ?? true;
    this.roller = new FaultRoller(eagerFaults);
  }

  /** Serves `route` (every request counted) on `at` (default: the options' host and port). */
  listen(
    route: SimRoute,
    fallback?: Reply,
    at: { host?: string | undefined; port?: number | undefined; tls?: SimTls | undefined } = this.opts,
  ): Promise<{ url: string }> {
    return this.http.listen(route, at, fallback, () => {
      this.counters.requests += 1;
    });
  }

  setFaults(faults: DialectFaults): void {
    this.faults = mergeFaults(this.faults, faults);
    this.roller.reset();
    for (const t of this.tokenStores) t.callsPerToken = this.faults.tokenExpiresAfterCalls;
  }

  /** Waits the latency fault, then gives this data call's fault: the throttling signal, a 5xx, or none. */
  async roll(): Promise<'throttle' | '5xx' | undefined> {
    if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs, undefined, { signal: this.http.signal });
    return this.roller.next(this.faults);
  }

  /**
   * The usual gate of a data call: over the limit (`inWindow` past `limit.requests`, when
   * enforced) or a throttling fault → `throttled()`; a 5xx fault → `failed()`; else `undefined`.
   */
  async gate(inWindow: number, throttled: () => Reply, failed: () => Reply): Promise<Reply | undefined> {
    if (this.throttle && inWindow > this.limit.requests) return throttled();
    const fault = await this.roll();
    return fault === 'throttle' ? throttled() : fault === '5xx' ? failed() : undefined;
  }

  /** `reply` (the product's throttling signal), counted as a throttled answer. */
  throttled(reply: Reply): Reply {
    this.counters.throttled += 1;
    return reply;
  }

  /** 503 and 500 in turn (Keka, Zoho People). */
  failureStatus(): number {
    return this.roller.alternatingStatus();
  }

  revokeTokens(): void {
    for (const t of this.tokenStores) t.revokeAll();
  }

  stats(): DialectSimStats {
    return { ...this.counters, maxInWindow: this.window.max(), limit: { ...this.limit } };
  }

  resetStats(): void {
    this.counters = { ...ZERO_COUNTS };
    this.window.reset();
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/**
 * The throttling of a product that publishes no signal (Darwinbox, BambooHR), from its switches:
 * `limitPerMinute` (default `defaultLimit`: hrx's budget), answered `throttleStatus` (429 default,
 * or 503) with `Retry-After: retryAfterSec` (default 1; 0: none).
 */
export function unpublishedThrottle(variants: DialectSimOptions['variants'], defaultLimit: number) {
  const v = variants ?? {};
  const status = Number(v.throttleStatus ?? 429) === 503 ? 503 : 429;
  const retryAfterSec = Number(v.retryAfterSec ?? 1);
  return {
    limit: { requests: Number(v.limitPerMinute ?? defaultLimit), windowMs: 60_000 },
    reply: (body: unknown): Reply => json(status, body, retryAfterSec > 0 ? { 'retry-after': String(retryAfterSec) } : {}),
  };
}
