/**
 * Persistence of the Connect flow's e-mail codes (decisions §8 "Establishing an org";
 * `connect_email_codes` of Migration20261123150000). A code is stored only as a keyed hash
 * (HMAC-SHA256 bound to its session), so a code is good for its own session alone and a database
 * dump does not hold it. Limits are checked under a lock in the same transaction as the insert,
 * so parallel requests cannot exceed them. Every method takes an optional `Tx` (db/tx.ts), last.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, transactionOf, type Tx } from '../db/tx';

/** How many codes may be sent, how long one lives and how often it may be tried. */
export interface EmailCodePolicy {
  /** A code's lifetime (decisions §8: 10 minutes). */
  ttlMs: number;
  /** Tries of one code (decisions §8: 5). */
  maxAttempts: number;
  /** Least time between two codes of one session. */
  resendMs: number;
  /** Codes one session may have sent in all. */
  maxPerSession: number;
  /** Codes sent for one client org (all sessions) in the last hour: no one is flooded with mail. */
  maxPerOrgHour: number;
}

/** A code just stored, or why none was: wait `retryAfterSec` (a limit), or the session sent all it may (`exhausted`). */
export type NewCode = { id: string; expiresAt: Date } | { retryAfterSec: number } | { exhausted: true };

export interface EmailCodeStore {
  /** Stores a code for `sessionId` (replacing any earlier one: only the latest counts), within `policy`'s limits. */
  create(c: { sessionId: string; clientOrgId: number; codeHash: Buffer }, policy: EmailCodePolicy, tx?: Tx): Promise<NewCode>;
  /** The session's current code: its latest while it can still be tried (unused, unexpired, tries left), or null. */
  current(sessionId: string, policy: EmailCodePolicy, tx?: Tx): Promise<{ id: string; expiresAt: Date } | null>;
  /**
   * Counts one try of code `id` and returns its hash, atomically; null when it cannot be tried
   * any more (used, expired, out of tries, or replaced by a newer code).
   */
  take(id: string, policy: EmailCodePolicy, tx?: Tx): Promise<Buffer | null>;
  /** Marks code `id` used: it verifies once. */
  use(id: string, tx?: Tx): Promise<void>;
}

/** A code row `c` that can still be tried: unused, unexpired, fewer tries than the parameter, and its session's latest. */
const CURRENT = `used_at is null and expires_at > now() and attempts < ?
  and id = (select id from connect_email_codes l where l.session_id = c.session_id order by created_at desc, id desc limit 1)`;

/** Builds the store over `orm`. */
export function createEmailCodeStore(orm: MikroORM): EmailCodeStore {
  const sql = (q: string, params: unknown[], tx?: Tx) => execute(orm, q, params, tx);
  return {
    async create(c, policy, tx) {
      return transactionOf(orm, tx, async (em) => {
        await em.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:email-code:' || ?))`, [String(c.clientOrgId)]);
        const [s] = await em.execute<{ n: number; wait: number | null }[]>(
          `select count(*)::int as n,
                  ceil(extract(epoch from (max(created_at) + ? * interval '1 millisecond' - now())))::int as wait
             from connect_email_codes where session_id = ?`,
          [policy.resendMs, c.sessionId],
        );
        if (s!.wait !== null && s!.wait > 0) return { retryAfterSec: s!.wait };
        if (s!.n >= policy.maxPerSession) return { exhausted: true };
        const [o] = await em.execute<{ n: number; wait: number | null }[]>(
          `select count(*)::int as n, ceil(extract(epoch from (min(created_at) + interval '1 hour' - now())))::int as wait
             from connect_email_codes where client_org_id = ? and created_at > now() - interval '1 hour'`,
          [c.clientOrgId],
        );
        if (o!.n >= policy.maxPerOrgHour) return { retryAfterSec: Math.max(1, o!.wait ?? 3600) };
        const id = randomUUID();
        const [row] = await em.execute<{ expires_at: string }[]>(
          `insert into connect_email_codes (id, session_id, client_org_id, code_hash, expires_at)
           values (?, ?, ?, ?, now() + ? * interval '1 millisecond') returning expires_at`,
          [id, c.sessionId, c.clientOrgId, c.codeHash, policy.ttlMs],
        );
        return { id, expiresAt: new Date(row!.expires_at) };
      });
    },
    async current(sessionId, policy, tx) {
      const [row] = await sql(`select id, expires_at from connect_email_codes c where session_id = ? and ${CURRENT}`, [sessionId, policy.maxAttempts], tx);
      return row ? { id: row.id as string, expiresAt: new Date(row.expires_at as string) } : null;
    },
    async take(id, policy, tx) {
      const [row] = await sql(
        `update connect_email_codes c set attempts = attempts + 1 where id = ? and ${CURRENT} returning code_hash`,
        [id, policy.maxAttempts],
        tx,
      );
      return row ? (row.code_hash as Buffer) : null;
    },
    async use(id, tx) {
      await sql(`update connect_email_codes set used_at = now() where id = ? and used_at is null`, [id], tx);
    },
  };
}
