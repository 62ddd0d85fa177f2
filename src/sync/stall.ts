/**
 * A sync's stall guard (docs/behaviour.md "Waiting is not stalling"): an HRMS that answers
 * nothing at all for the stall limit is given up on; waiting out throttling or the tenant's
 * request budget is pacing, never a stall.
 */

/**
 * Why a run stopped before its end: `lock_lost` (its sync lock was lost: retried by the job) or
 * `hrms_stalled` (the HRMS answered nothing for the stall limit: the run fails, not retried by the job).
 */
export class SyncInterruptedError extends Error {
  constructor(
    readonly kind: 'lock_lost' | 'hrms_stalled',
    message: string,
  ) {
    super(message);
    this.name = 'SyncInterruptedError';
  }
}

/**
 * The stall guard's view of the HRMS (docs/behaviour.md "Waiting is not stalling"): silence is
 * counted only while hrx waits for an answer, from the last answer (any status), the end of the
 * last wait, or the moment the page was asked for, whichever is latest. Waiting out throttling
 * (a backoff after an answer) or the tenant's request budget is pacing, and is not counted.
 */
export interface StallWatch {
  /** The HRMS answered (or a page is being asked for now): silence starts again. */
  heard(): void;
  /** A wait begins (budget, backoff after an answer); waits may overlap. */
  wait(): void;
  /** A wait ended: silence starts again from now. */
  resume(): void;
  /** Milliseconds of silence left before a stall; null while waiting. */
  left(): number | null;
}

/** A {@link StallWatch} with a stall limit of `stallMs`, on `now` (ms). */
export function createStallWatch(stallMs: number, now: () => number = Date.now): StallWatch {
  let waiting = 0;
  let since = now();
  return {
    heard: () => {
      since = now();
    },
    wait: () => {
      waiting += 1;
    },
    resume: () => {
      waiting = Math.max(0, waiting - 1);
      since = now();
    },
    left: () => (waiting > 0 ? null : stallMs - (now() - since)),
  };
}

/** While a wait goes on, the guard looks again this often (ms), so a silence after it is seen in time. */
const WAITING_RECHECK_MS = 1000;

/**
 * Waits for `answer` (the HRMS's next page) while `watch` sees no stall of `stallMs`, and no
 * longer than `aborter` stays unaborted. On a stall it aborts `aborter` (so the HRMS calls stop)
 * and throws `SyncInterruptedError('hrms_stalled')`; on an abort it throws the abort's reason.
 */
export async function untilAnswer<T>(answer: Promise<T>, stallMs: number, aborter: AbortController, watch: StallWatch): Promise<T> {
  answer.catch(() => undefined); // once given up on, its (abort) rejection has no reader
  // The time since the previous page was hrx's own work (storing it), not the HRMS's silence.
  watch.heard();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<never>((_, reject) => {
    // Every abort of a sync's controller passes an Error (SyncInterruptedError, lockLost()).
    onAbort = () => reject(aborter.signal.reason as Error);
    if (aborter.signal.aborted) return onAbort();
    aborter.signal.addEventListener('abort', onAbort, { once: true });
    const arm = (ms: number): void => {
      timer = setTimeout(() => {
        const left = watch.left();
        if (left === null) return arm(Math.min(stallMs, WAITING_RECHECK_MS));
        if (left > 0) return arm(left);
        aborter.abort(new SyncInterruptedError('hrms_stalled', `the HRMS gave no answer for ${stallMs / 1000} s`));
      }, ms);
    };
    arm(stallMs);
  });
  try {
    return await Promise.race([answer, givenUp]);
  } finally {
    clearTimeout(timer);
    aborter.signal.removeEventListener('abort', onAbort!);
  }
}
