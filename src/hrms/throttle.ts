/**
 * Waits after a throttling signal that names no wait (Keka's 429 without `Retry-After`, Zoho
 * People's error 7209 and Zoho Accounts' "too many requests"). The first wait is the minimum
 * retry delay, each consecutive one four times longer, up to the product's own period (Keka's
 * 60-second refill, Zoho's 5-minute lock-out). The connector puts the wait on its error
 * (`HrmsError.retryAfterMs`), so `HrmsHttpClient.withRetry` holds the tenant's budget off for it:
 * every worker pauses (docs/behaviour.md "Live reads and the HRMS budget": a lock-out is waited out, not hammered), the pause counts
 * as budget pacing rather than a stalled HRMS, and a handful of probes spans the whole period
 * (with the default 500 ms and 6 retries: 0.5, 2, 8, 32, 128, 300 s for Zoho).
 */
export class ThrottleWaits {
  private consecutive = 0;

  /** @param minMs first wait (the connector's `minRetryDelayMs`); @param maxMs the product's period */
  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** The wait for one more consecutive throttling answer, ms. */
  next(): number {
    const wait = Math.min(this.maxMs, Math.max(1, this.minMs) * 4 ** this.consecutive);
    this.consecutive = Math.min(this.consecutive + 1, 30);
    return wait;
  }

  /** An answer got through: the next throttling starts again from the minimum. */
  reset(): void {
    this.consecutive = 0;
  }
}
