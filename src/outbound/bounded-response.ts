/**
 * Bounded reads of outbound HTTP responses (docs/limits.md: one HRMS response at most 64 MiB
 * after decompression). Whoever answers hrx's outbound calls (an HRMS host from setup-config, a
 * vendor's event endpoint) is outside hrx's control; a body read whole into memory lets such a
 * host take the process's memory (a 200 MB answer, or a gzip bomb whose few kilobytes inflate to
 * gigabytes). Bodies are therefore read as streams, counting the bytes as the consumer sees them
 * (after got's decompression when it decompresses), and the request is destroyed the moment the
 * count passes the cap: at most `cap` bytes plus one chunk are ever held.
 *
 * Knows nothing of HRMS or events: the HRMS connector maps `ResponseTooLargeError` to
 * `HrmsError('bad_response')`, event delivery to a failed attempt with error class
 * `ERR_RESPONSE_TOO_LARGE`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import got, { type OptionsInit } from 'got';

/** Default cap of one HRMS response body, in bytes after decompression (docs/limits.md: 64 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Sizes of the blocks a body is gathered in: the first (most answers fit), then the others. */
const FIRST_BLOCK = 256 * 1024;
const BLOCK = 32 * 1024 * 1024;

/** Code of the error a body past its cap is refused with. */
export const RESPONSE_TOO_LARGE = 'ERR_RESPONSE_TOO_LARGE';

/** A body longer than its cap. The message names the cap only (never the host or the body). */
export class ResponseTooLargeError extends Error {
  readonly code = RESPONSE_TOO_LARGE;
  /**
   * @param limit the cap, in bytes
   * @param statusCode the answer's HTTP status, known once its head arrived (always, in practice:
   *   the cap is counted over the body)
   * @param statusMessage its reason phrase
   */
  constructor(
    readonly limit: number,
    readonly statusCode?: number,
    readonly statusMessage?: string,
  ) {
    super(`response body exceeds ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/** Whether `err` (or an error it wraps as `cause`, such as got's `RequestError`) is a size refusal. */
export function isResponseTooLarge(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === RESPONSE_TOO_LARGE) return true;
  }
  return false;
}

/** A response read through `requestBounded`. */
export interface BoundedResponse {
  statusCode: number;
  statusMessage: string | undefined;
  headers: IncomingHttpHeaders;
  /** The body (decompressed when got decompressed it), at most the cap given. */
  body: Buffer;
}

/**
 * One HTTP exchange through `got.stream` with `options` (the caller's method, headers, timeout,
 * agents, `decompress`...; `throwHttpErrors` is forced off), reading at most `maxBytes` of the
 * body: past the cap it rejects with `ResponseTooLargeError` and destroys the request (an
 * unencoded body whose `Content-Length` is above the cap before any body byte is read). Transport errors
 * (refused, reset, timeout, the host policy's refusal) reject with got's error as it is.
 */
export function requestBounded(url: string | URL, options: OptionsInit, maxBytes: number): Promise<BoundedResponse> {
  return new Promise((resolve, reject) => {
    // got adds an `abort` listener to the signal it is given and removes it only when its stream
    // is destroyed, which a stream read to its end never is. A caller's signal lives long (a
    // sync's signal spans every page of the run), so each exchange would leave its request, and
    // through it the body's blocks, reachable from that signal until the run ends: memory growing
    // with the org's size (docs/sync.md "Memory and throughput"). got gets a signal of this
    // exchange's own instead, told of the caller's abort by a listener removed once settled.
    const outer = options.signal ?? undefined;
    const own = outer ? new AbortController() : undefined;
    const relay = (): void => own!.abort(outer!.reason);
    if (outer?.aborted) relay();
    else outer?.addEventListener('abort', relay, { once: true });
    const stream = got.stream(url, { ...options, ...(own ? { signal: own.signal } : {}), throwHttpErrors: false, isStream: true } as never);
    let settled = false;
    let head: Omit<BoundedResponse, 'body'> | undefined;
    // The body is copied into blocks of at most BLOCK bytes: chunks handed over by the socket or
    // zlib may be small views of larger allocations, and holding them would hold those too.
    const blocks: Buffer[] = [];
    let fill = 0;
    let size = 0;
    const take = (whole: Buffer): void => {
      // Only up to one byte past the cap is kept: enough to know the cap was passed.
      const chunk = whole.subarray(0, Math.max(0, maxBytes + 1 - size));
      let at = 0;
      while (at < chunk.length) {
        let block = blocks[blocks.length - 1];
        if (!block || fill === block.length) {
          // A first small block, then big ones: blocks of BLOCK bytes are mapped on their own
          // by the allocator (glibc's mmap threshold is at most 32 MiB), so once collected their
          // memory goes back to the system instead of staying in the process's heap; pages not
          // written are never resident.
          block = Buffer.allocUnsafe(blocks.length === 0 ? Math.min(FIRST_BLOCK, maxBytes + 1) : Math.min(BLOCK, maxBytes + 1 - size - at));
          blocks.push(block);
          fill = 0;
        }
        const n = chunk.copy(block, fill, at);
        fill += n;
        at += n;
      }
      size += whole.length;
    };
    const body = (): Buffer => {
      const last = blocks.length - 1;
      if (last <= 0) return (blocks[0] ?? Buffer.alloc(0)).subarray(0, fill);
      return Buffer.concat(blocks.map((b, i) => (i === last ? b.subarray(0, fill) : b)));
    };
    const finish = (err: Error | null, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      outer?.removeEventListener('abort', relay);
      if (err) {
        blocks.length = 0; // released now, whatever still holds the destroyed stream
        stream.destroy();
        reject(err);
        return;
      }
      blocks.length = 0; // the body holds what it needs; the stream object may outlive this call
      resolve({ ...head!, body: body! });
    };
    const cut = (): void => finish(new ResponseTooLargeError(maxBytes, head?.statusCode, head?.statusMessage));
    stream.on('response', (res: { statusCode: number; statusMessage?: string; headers: IncomingHttpHeaders }) => {
      head = { statusCode: res.statusCode, statusMessage: res.statusMessage, headers: res.headers };
      // An unencoded body's declared length is its length (an encoded one's is not: counted as read).
      const declared = Number(res.headers['content-length']);
      const encoded = res.headers['content-encoding'] && res.headers['content-encoding'] !== 'identity';
      if (!encoded && Number.isFinite(declared) && declared > maxBytes) cut();
    });
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      take(chunk);
      if (size > maxBytes) cut();
    });
    stream.on('end', () => finish(null, body()));
    stream.on('error', (err: Error) => finish(err));
  });
}
