/**
 * `Idempotency-Key` on the routes that change state (docs/api.md "Idempotency";
 * draft-ietf-httpapi-idempotency-key-header): a route row opts in with `idempotent`, and the
 * router asks {@link beginIdempotent} once the credential is known and the body read. The first
 * request with a key claims it and its answer is kept (`recordAnswer`); the same credential, key
 * and request within 24 h gets that answer again, with no second effect; the same key with
 * another request is 422, and one still running 409. Without the header nothing changes. The
 * store behind it is `IdempotencyStore` (src/idempotency/store.ts: PostgreSQL).
 */
import type { ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal';
import { AppError } from '../errors';

/** An answer as it was sent: status, the headers that matter to a replay, and the JSON body text. */
export interface StoredAnswer {
  status: number;
  /** `x-request-id` of the first answer included (its body's `requestId` equals it). */
  headers: Record<string, string>;
  body: string;
}

/** What a claim found: the key is ours now, or was answered (replay), or is taken by a running or another request. */
export type ClaimResult = { kind: 'claimed' } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'running' } | { kind: 'mismatch' };

/** Where keys and answers are kept (per scope: a credential). Each method throws the database's error. */
export interface IdempotencyStore {
  /** Claims `key` of `scope` for the request described by `request` (method, URL, body). */
  claim(scope: string, key: string, request: string): Promise<ClaimResult>;
  /** Keeps the answer of a claimed key. */
  complete(scope: string, key: string, answer: StoredAnswer): Promise<void>;
  /** Gives a claimed key back (the answer was not one to replay: 5xx or 429), so a retry runs again. */
  release(scope: string, key: string): Promise<void>;
}

/**
 * A route row's `idempotent`: `true` scopes keys by the credential the router authenticated;
 * `scope` scopes them by what the body authenticates with (a route whose credential is in the
 * body, like the setup webhook): return undefined when the body carries none (no key is kept).
 */
export type IdempotentOption = true | { scope: (body: unknown) => string | undefined };

/** The header's value rule (the draft's sf-string: printable ASCII), 1–255 characters (docs/api.md "Idempotency"). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** A claimed key: the store's scope and key, to keep or give back the answer. */
export interface Claim {
  scope: string;
  key: string;
}

/**
 * Reads the request's `Idempotency-Key` and claims it. Returns undefined without the header (or
 * without a scope), the claim, or the first answer to replay. Throws 400 VALIDATION for a key that
 * is not 1–255 printable characters, 422 IDEMPOTENCY_KEY_REUSED for another request with the
 * same key, 409 IDEMPOTENCY_KEY_IN_USE while the first is still running.
 */
export async function beginIdempotent(
  store: IdempotencyStore,
  option: IdempotentOption,
  req: { method: string; url: string; header: string | string[] | undefined; credential: string; principal: Principal | null; body: unknown },
): Promise<{ claim: Claim } | { replay: StoredAnswer } | undefined> {
  if (req.header === undefined) return undefined;
  const key = Array.isArray(req.header) ? req.header.join(', ') : req.header;
  if (!KEY_PATTERN.test(key)) throw AppError.validation([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
  const scope = option === true ? (req.principal ? `${req.credential}:${req.principal.credentialId}` : undefined) : option.scope(req.body);
  if (scope === undefined) return undefined;
  const request = `${req.method} ${req.url}\n${JSON.stringify(req.body) ?? ''}`;
  const found = await store.claim(scope, key, request);
  if (found.kind === 'replay') return { replay: found.answer };
  if (found.kind === 'running') throw new AppError('IDEMPOTENCY_KEY_IN_USE');
  if (found.kind === 'mismatch') throw new AppError('IDEMPOTENCY_KEY_REUSED');
  return { claim: { scope, key } };
}

/** Statuses never kept: a retry should run again (server failures, throttling, unavailability). */
const transient = (status: number) => status >= 500 || status === 429;

/** Claims awaiting their answer, by response (the router's `sendText` records through it). */
const pending = new WeakMap<ServerResponse, (answer: StoredAnswer) => Promise<void>>();

/** Marks `res` as answering `claim`: its JSON answer is kept (or the key given back) before it is sent. */
export function awaitAnswer(res: ServerResponse, store: IdempotencyStore, claim: Claim, onError: (err: unknown) => void): void {
  pending.set(res, async (answer) => {
    try {
      if (transient(answer.status)) await store.release(claim.scope, claim.key);
      else await store.complete(claim.scope, claim.key, answer);
    } catch (err) {
      // The answer still goes out; the key stays claimed until it ages out (docs/api.md "Idempotency").
      onError(err);
    }
  });
}

/**
 * Keeps `answer` for `res`'s claim, if it has one, then calls `send`; without a claim, sends at
 * once. Called once per response by the router's JSON writer.
 */
export function recordAnswer(res: ServerResponse, answer: StoredAnswer, send: () => void): void {
  const record = pending.get(res);
  if (!record) return send();
  pending.delete(res);
  void record(answer).then(send, send);
}
