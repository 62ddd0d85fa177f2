/**
 * The idempotency keys in PostgreSQL (docs/api.md "Idempotency"; table of
 * `Migration20261206050000`). Scope, key and request are kept as keyed hashes (HMAC-SHA-256 with
 * a key derived for this purpose: a body may be personal data of few bits, which a plain hash
 * would not hide), the answer's body encrypted with the field cipher (it may hold personal data
 * or an SDK token). A row is good for 24 h; a claim whose request never answered (the process
 * died) may be taken again after 5 minutes.
 */
import { createHmac } from 'node:crypto';
import type pg from 'pg';
import type { FieldCipher } from '../crypto/field-cipher';
import type { ClaimResult, IdempotencyStore, StoredAnswer } from '../http/idempotency';

/** How long a key and its answer are kept and replayed (docs/api.md "Idempotency"). */
export const IDEMPOTENCY_HOURS = 24;
/** How long a claim without an answer holds its key (a request longer than this is not expected). */
const ABANDONED_MINUTES = 5;

/**
 * Takes the key when it is new, expired, or abandoned; otherwise leaves the row as it is. The
 * conditional upsert makes the claim one atomic statement: two requests with one key race on the
 * primary key, and exactly one of them gets `claimed`.
 */
const CLAIM_SQL = `insert into idempotency_keys (scope, idem_key, fingerprint) values ($1, $2, $3)
  on conflict (scope, idem_key) do update set fingerprint = excluded.fingerprint, created_at = now(), answered_at = null, status = null, headers = null, answer = null
   where idempotency_keys.created_at < now() - interval '${IDEMPOTENCY_HOURS} hours'
      or (idempotency_keys.answered_at is null and idempotency_keys.created_at < now() - interval '${ABANDONED_MINUTES} minutes')
  returning 1`;

const FIND_SQL = `select fingerprint, answered_at, status, headers, answer from idempotency_keys where scope = $1 and idem_key = $2`;

/** The AAD of a kept answer: bound to its scope and key, so a row's answer cannot be moved to another. */
const aadOf = (scope: string, key: string) => `idempotency:${scope}:${key}`;

/** Builds the store over `pool` (the request path's), `cipher` and `hmacKey` (a key derived for idempotency). */
export function createIdempotencyStore(pool: pg.Pool, cipher: FieldCipher, hmacKey: Buffer): IdempotencyStore {
  const mac = (label: string, value: string) => createHmac('sha256', hmacKey).update(`${label}\n${value}`).digest('base64url');
  return {
    async claim(scopeText, keyText, request) {
      const [scope, key, fingerprint] = [mac('scope', scopeText), mac('key', keyText), mac('request', request)];
      // At most twice: a row the purge deleted between the two statements is claimed on the second go.
      for (let attempt = 0; attempt < 2; attempt++) {
        if ((await pool.query(CLAIM_SQL, [scope, key, fingerprint])).rowCount === 1) return { kind: 'claimed' };
        const row = (await pool.query(FIND_SQL, [scope, key])).rows[0] as
          { fingerprint: string; answered_at: Date | null; status: number | null; headers: Record<string, string> | null; answer: string | null } | undefined;
        if (!row) continue;
        if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (row.answered_at === null || row.status === null || row.answer === null) return { kind: 'running' };
        const answer: StoredAnswer = { status: row.status, headers: row.headers ?? {}, body: cipher.decrypt(row.answer, aadOf(scope, key)) };
        return { kind: 'replay', answer } satisfies ClaimResult;
      }
      return { kind: 'running' };
    },
    async complete(scopeText, keyText, answer) {
      const [scope, key] = [mac('scope', scopeText), mac('key', keyText)];
      await pool.query(`update idempotency_keys set answered_at = now(), status = $3, headers = $4, answer = $5 where scope = $1 and idem_key = $2`, [
        scope,
        key,
        answer.status,
        JSON.stringify(answer.headers),
        cipher.encrypt(answer.body, aadOf(scope, key)),
      ]);
    },
    async release(scopeText, keyText) {
      await pool.query(`delete from idempotency_keys where scope = $1 and idem_key = $2 and answered_at is null`, [
        mac('scope', scopeText),
        mac('key', keyText),
      ]);
    },
  };
}
