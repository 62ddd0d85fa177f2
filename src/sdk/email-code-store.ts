/**
 * Persistence of the Connect flow's e-mail codes (docs/connect.md "E-mail verification before an
 * organisation is set up"; `connect_email_codes` of Migration20261123150000 and
 * Migration20261127020000). A code is stored only as a keyed hash (HMAC-SHA256 bound to its
 * session), so a code is good for its own session alone and a database dump does not hold it;
 * its recipient only as a keyed hash of the address, for the per-address limit. Limits are
 * checked under locks (recipient, vendor, org: always in that order) in the same transaction as
 * the insert, so parallel requests cannot exceed them. Every method takes an optional `Tx`
 * (db/tx.ts), last.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, transactionOf, type Tx } from '../db/tx';

/** How many codes may be sent, how long one lives and how often it may be tried. */
export interface EmailCodePolicy {
  /** A code's lifetime (docs/connect.md "Reference: the SDK token and the Connect endpoints": 10 minutes). */
  ttlMs: number;
  /** Tries of one code (docs/connect.md "Reference: the SDK token and the Connect endpoints": 5). */
  maxAttempts: number;
  /** Least time between two codes of one session. */
  resendMs: number;
  /** Codes one session may have sent in all. */
  maxPerSession: number;
  /** Codes sent for one client org (all sessions) in the last hour: no one is flooded with mail. */
  maxPerOrgHour: number;
  /** Codes sent to one address (any session, token, org or vendor) in the last hour. */
  maxPerRecipientHour: number;
  /** Codes one vendor's tokens asked for (any address, org or session) in the last hour. */
  maxPerVendorHour: number;
}

/** A code to store: its session, the orgs of the session's token, its keyed hash and the recipient's. */
export interface NewCodeInput {
  sessionId: string;
  clientOrgId: number;
  vendorOrgId: number;
  codeHash: Buffer;
  /** HMAC-SHA256 of the lower-cased address (email-verify.ts), never the address. */
  recipientHash: Buffer;
}

/** A code just stored, or why none was: wait `retryAfterSec` (a limit), or the session sent all it may (`exhausted`). */
export type NewCode = { id: string; expiresAt: Date } | { retryAfterSec: number } | { exhausted: true };

export interface EmailCodeStore {
  /** Stores a code for `sessionId` (replacing any earlier one: only the latest counts), within `policy`'s limits. */
  create(c: NewCodeInput, policy: EmailCodePolicy, tx?: Tx): Promise<NewCode>;
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

/** The hour-window limits, each a column of `connect_email_codes` and its policy field, checked in this order. */
const HOUR_LIMITS = [
  { column: 'client_org_id', max: 'maxPerOrgHour', of: (c: NewCodeInput) => c.clientOrgId },
  { column: 'recipient_hash', max: 'maxPerRecipientHour', of: (c: NewCodeInput) => c.recipientHash },
  { column: 'vendor_org_id', max: 'maxPerVendorHour', of: (c: NewCodeInput) => c.vendorOrgId },
] as const;

/** Builds the store over `orm`. */
export function createEmailCodeStore(orm: MikroORM): EmailCodeStore {
  const sql = (q: string, params: unknown[], tx?: Tx) => execute(orm, q, params, tx);
  return {
    async create(c, policy, tx) {
      return transactionOf(orm, tx, async (em) => {
        for (const key of [`recipient:${c.recipientHash.toString('hex')}`, `vendor:${c.vendorOrgId}`, `org:${c.clientOrgId}`]) {
          await em.execute(`select pg_advisory_xact_lock(hashtext(current_schema() || ':hrx:email-code:' || ?))`, [key]);
        }
        const [s] = await em.execute<{ n: number; wait: number | null }[]>(
          `select count(*)::int as n,
                  ceil(extract(epoch from (max(created_at) + ? * interval '1 millisecond' - now())))::int as wait
             from connect_email_codes where session_id = ?`,
          [policy.resendMs, c.sessionId],
        );
        if (s!.wait !== null && s!.wait > 0) return { retryAfterSec: s!.wait };
        if (s!.n >= policy.maxPerSession) return { exhausted: true };
        for (const limit of HOUR_LIMITS) {
          // The max-th newest code of the hour: while there is one, the limit is reached, until it is an hour old.
          const [full] = await em.execute<{ wait: number }[]>(
            `select ceil(extract(epoch from (created_at + interval '1 hour' - now())))::int as wait from connect_email_codes
              where ${limit.column} = ? and created_at > now() - interval '1 hour' order by created_at desc offset ? limit 1`,
            [limit.of(c), policy[limit.max] - 1],
          );
          if (full) return { retryAfterSec: Math.max(1, full.wait) };
        }
        const id = randomUUID();
        const [row] = await em.execute<{ expires_at: string }[]>(
          `insert into connect_email_codes (id, session_id, client_org_id, vendor_org_id, recipient_hash, code_hash, expires_at)
           values (?, ?, ?, ?, ?, ?, now() + ? * interval '1 millisecond') returning expires_at`,
          [id, c.sessionId, c.clientOrgId, c.vendorOrgId, c.recipientHash, c.codeHash, policy.ttlMs],
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
