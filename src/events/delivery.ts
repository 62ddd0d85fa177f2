/**
 * One delivery attempt (docs/events.md "Delivery"; Standard Webhooks "Deliverability and reliability"):
 * POST the event's exact body with fresh `webhook-timestamp` and `webhook-signature`, a timeout,
 * no redirects followed; any 2xx is success. Every attempt is recorded (status or error class,
 * duration, a short status text; never the response body, of which at most 16 KiB is read). The caller (the BullMQ job) retries
 * on `retry` after `retryInMs`.
 */
import { RequestError } from 'got';
import { HOST_NOT_ALLOWED, isHostNotAllowed, type HostPolicy } from '../outbound/host-policy';
import { RESPONSE_TOO_LARGE, isResponseTooLarge, requestBounded, type ResponseTooLargeError } from '../outbound/bounded-response';
import type { FieldCipher } from '../crypto/field-cipher';
import type { Logger } from '../logger';
import { endpointSecretAad, webhookHeaders } from './signing';
import type { EventStore } from './store';

/** Longest response status text kept with an attempt. */
const STATUS_TEXT_MAX = 64;

/** How one call to `deliver` ended. */
export type DeliveryOutcome =
  | { status: 'delivered' | 'failed'; attempt: number; httpStatus: number | null }
  | { status: 'retry'; attempt: number; httpStatus: number | null; retryInMs: number }
  | { status: 'cancelled' | 'skipped' };

/** The result of one HTTP request: a status (any) or an error class such as `ETIMEDOUT`. */
export interface PostResult {
  httpStatus: number | null;
  statusText: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * Most bytes of a delivery response's body read (docs/limits.md). A receiver only needs to answer
 * a status (Standard Webhooks: any 2xx is a delivery); the body is read (never decompressed) up to
 * this many bytes, and past it the exchange is cut off and judged by its status alone, so a
 * receiver whose framework answers 200 with a large page is not sent the event again and again.
 */
export const DELIVERY_MAX_RESPONSE_BYTES = 16 * 1024;

/**
 * POSTs `body` to `url` once (got: no retries, no redirects, `timeoutMs` for the whole request)
 * and reads at most `DELIVERY_MAX_RESPONSE_BYTES` of the answer, as it came on the wire (no
 * decompression, so a gzip bomb costs nothing); the body itself is dropped. Never throws: a
 * transport failure is its error class (`ETIMEDOUT`, `ECONNREFUSED`, `ERR_HOST_NOT_ALLOWED`); a
 * body past the cap is cut off and the answer judged by its status (`ERR_RESPONSE_TOO_LARGE` only
 * if no status had arrived).
 */
export async function postOnce(url: string, headers: Record<string, string>, body: string, timeoutMs: number, hostPolicy?: HostPolicy): Promise<PostResult> {
  const started = performance.now();
  const took = () => performance.now() - started;
  const failed = (error: string): PostResult => ({ httpStatus: null, statusText: null, error, durationMs: took() });
  if (hostPolicy) {
    try {
      hostPolicy.checkUrl(new URL(url));
    } catch {
      return failed(HOST_NOT_ALLOWED);
    }
  }
  try {
    const res = await requestBounded(
      url,
      {
        method: 'POST',
        body,
        headers,
        followRedirect: false,
        retry: { limit: 0 },
        timeout: { request: timeoutMs },
        decompress: false,
        // Names resolving to refused addresses fail at connection time (no DNS rebinding).
        ...(hostPolicy ? { dnsLookup: hostPolicy.lookup, agent: hostPolicy.agent } : {}),
      },
      DELIVERY_MAX_RESPONSE_BYTES,
    );
    const text = (res.statusMessage ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, STATUS_TEXT_MAX);
    return { httpStatus: res.statusCode, statusText: text || null, error: null, durationMs: took() };
  } catch (err) {
    if (isHostNotAllowed(err)) return failed(HOST_NOT_ALLOWED);
    if (isResponseTooLarge(err)) {
      // The status came before the body: it decides, the rest of the body is not read.
      const { statusCode, statusMessage } = err as ResponseTooLargeError;
      if (statusCode === undefined) return failed(RESPONSE_TOO_LARGE);
      const text = (statusMessage ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, STATUS_TEXT_MAX);
      return { httpStatus: statusCode, statusText: text || null, error: null, durationMs: took() };
    }
    if (err instanceof RequestError) return failed(err.code || err.name);
    return failed((err as Error | undefined)?.name || 'Error');
  }
}

export interface DelivererDeps {
  store: Pick<EventStore, 'loadDelivery' | 'cancel' | 'recordAttempt'>;
  cipher: FieldCipher;
  /** Delays (ms) between attempts: attempts = length + 1 (docs/events.md: spanning ≥ 24 h). */
  scheduleMs: number[];
  timeoutMs: number;
  /**
   * Refuses endpoints on private, loopback, link-local and reserved addresses (SSRF guard);
   * absent: any address (HRX_EVENTS_ALLOW_PRIVATE_HOSTS=1 or HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1).
   */
  hostPolicy?: HostPolicy | undefined;
  log: Logger;
  now?: () => number;
  /** Told when a delivery ends (the workers' counters of `/metrics`, docs/operations.md "Metrics: `GET /metrics`"); must not throw. */
  onEnd?: (outcome: 'delivered' | 'failed' | 'cancelled') => void;
}

export type Deliverer = ReturnType<typeof createDeliverer>;

/** Builds the deliverer. */
export function createDeliverer(deps: DelivererDeps) {
  const maxAttempts = deps.scheduleMs.length + 1;
  const now = deps.now ?? Date.now;
  return {
    maxAttempts,
    /**
     * Makes the next attempt of delivery `id`. A delivery that is no longer pending is
     * `skipped`; one whose endpoint was removed, or whose vendor may no longer hear of the event
     * (terminated connection), is `cancelled` without a request. Throws only on database or
     * decryption errors (the job then retries).
     */
    async deliver(id: string): Promise<DeliveryOutcome> {
      const work = await deps.store.loadDelivery(id);
      if (!work || work.status !== 'pending') return { status: 'skipped' };
      if (work.endpointRemoved || !work.entitled) {
        await deps.store.cancel(id);
        deps.onEnd?.('cancelled');
        return { status: 'cancelled' };
      }
      const secrets = [work.secretEnc, ...(work.previousSecretEnc ? [work.previousSecretEnc] : [])].map((enc) =>
        deps.cipher.decrypt(enc, endpointSecretAad(work.endpointId)),
      );
      const at = new Date(now());
      const headers = { ...webhookHeaders(secrets, work.eventId, Math.floor(at.getTime() / 1000), work.body), 'user-agent': 'hrx-events/1' };
      const res = await postOnce(work.url, headers, work.body, deps.timeoutMs, deps.hostPolicy);
      const ok = res.httpStatus !== null && res.httpStatus >= 200 && res.httpStatus < 300;
      const { attempt, nth, status } = await deps.store.recordAttempt({
        deliveryId: id,
        at,
        durationMs: res.durationMs,
        httpStatus: res.httpStatus,
        error: res.error,
        statusText: res.statusText,
        ok,
        maxAttempts,
        scheduleMs: deps.scheduleMs,
      });
      // Ids, type and outcome only: never the body, the URL's query or the secret.
      deps.log.info(
        { deliveryId: id, eventId: work.eventId, type: work.type, attempt, httpStatus: res.httpStatus, error: res.error, status },
        'event delivery attempt',
      );
      if (status === 'pending') {
        return { status: 'retry', attempt, httpStatus: res.httpStatus, retryInMs: deps.scheduleMs[nth - 1] ?? 0 };
      }
      if (status === 'delivered' || status === 'failed') {
        deps.onEnd?.(status);
        return { status, attempt, httpStatus: res.httpStatus };
      }
      // Ended meanwhile (cancelled by an endpoint removal, which counted it).
      return { status: 'cancelled' };
    },
  };
}
