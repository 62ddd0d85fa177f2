/**
 * Persistence of Connect sessions, proof-of-control lock counters and the proof audit trail
 * (docs/connect.md "The session"; tables of `Migration20261123010000`). Everything lives in PostgreSQL so every
 * API process sees the same sessions, failures and locks. Every method takes an optional `Tx`
 * (db/tx.ts), last, to run in a caller's transaction.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, transactionOf, type Tx } from '../db/tx';
import { isUuid } from '../domain/ids';
import { HRMS_CONFIG_VERSION_SQL } from '../setup/store';
import { tokenFieldsOf } from './store';

/** An active Connect session with its SDK token's claims (the token row unrevoked, both unexpired). */
export interface ConnectSessionView {
  id: string;
  jti: string;
  connectionId: string;
  vendorOrgId: number;
  clientOrgId: number;
  clientOrgUuid: string;
  userId: string;
  expiresAt: Date;
  provenAt: Date | null;
}

/**
 * Proof methods of docs/connect.md "E-mail verification before an organisation is set up" and the approval itself, as audited; `email`: the one-time code
 * to the token's e-mail ("Establishing an org"), which proves who reads that mail, not control
 * of an established org.
 */
export type ProofMethod = 'hrms' | 'app_credentials' | 'approve' | 'email';
/**
 * Audited outcomes: `proven`/`failed` (a proof checked), `locked` (refused unchecked while the
 * pair is locked), `error` (the HRMS could not be reached: not counted), `configured` (a new
 * org's first configuration stored), `approved`/`refused` (an approval allowed / refused for
 * want of proof), `sent` (an e-mail code sent).
 */
export type ProofOutcome = 'proven' | 'failed' | 'locked' | 'error' | 'configured' | 'approved' | 'refused' | 'sent';

/** One audit row: who tried what on which connection from where. Never credentials. */
export interface ProofAttempt {
  requestId: string;
  session: Pick<ConnectSessionView, 'id' | 'connectionId' | 'vendorOrgId' | 'clientOrgId' | 'userId'>;
  method: ProofMethod;
  outcome: ProofOutcome;
  sourceAddress: string | null;
}

/** How a reserved attempt ends (see {@link ConnectStore.finishAttempt}). */
export type SettledOutcome = 'proven' | 'configured' | 'failed' | 'error';

/**
 * What a proof of control was checked against, which must still be stored when the proof is
 * recorded: proof (b), the org's scrypt hash the presented `app_secret` matched; proof (a), the
 * version of the HRMS configuration whose credentials were compared (`HrmsConfiguration.version`).
 */
export type ProofBasis = { appSecretHash: string } | { hrmsConfigVersion: string };

/** A reserved attempt as its check ended; `basis` for a `proven` proof of control (a) or (b). */
export type SettledAttempt = ProofAttempt & { outcome: SettledOutcome; basis?: ProofBasis };

/** Lock policy: `maxFailures` failed proofs lock the pair for `lockMs`. */
export interface LockPolicy {
  maxFailures: number;
  lockMs: number;
}

export interface ConnectStore {
  /**
   * Creates the session of token `jti` (at most one per token: a second call returns null),
   * storing only SHA-256(`secret`). Returns the session id.
   */
  createSession(s: { secret: string; jti: string; connectionId: string; expiresAt: Date }, tx?: Tx): Promise<string | null>;
  /** The active session whose secret is `secret`, or null. */
  findSession(secret: string, tx?: Tx): Promise<ConnectSessionView | null>;
  /**
   * Withdraws proof (b) (`app_credentials`) from every session of a connection whose client org is
   * `clientOrgId`: its app_secret was replaced, so what the old one proved no longer counts (the
   * session must prove again). Proofs by HRMS credentials and verified e-mail codes stay.
   */
  withdrawAppCredentialProofs(clientOrgId: number, tx?: Tx): Promise<void>;
  /**
   * Revokes every SDK token API key `apiKeyId` issued that is still honoured; their Connect
   * sessions end with them (a session lives only while its token is unrevoked). For the
   * transaction that revokes the key (docs/connect.md "Reference: the SDK token and the Connect
   * endpoints").
   */
  revokeTokensIssuedBy(apiKeyId: string, tx?: Tx): Promise<void>;
  /** Session `id`'s proof state (whatever its liveness), or null. */
  findSessionById(id: string, tx?: Tx): Promise<{ provenAt: Date | null; proofMethod: 'hrms' | 'app_credentials' | null; emailVerifiedAt: Date | null } | null>;
  /** Whether the pair's approval is locked now. */
  isLocked(vendorOrgId: number, clientOrgId: number, tx?: Tx): Promise<boolean>;
  /** Until when the pair's approval is locked, or null when it is not locked now. */
  lockedUntil(vendorOrgId: number, clientOrgId: number, tx?: Tx): Promise<Date | null>;
  /**
   * Reserves one proof attempt for the pair before anything is checked (so parallel attempts
   * cannot exceed the limit): an expired lock is cleared first. Returns `locked: true` when the
   * pair is locked or `maxFailures` attempts are already counted; the attempt is then not counted.
   */
  beginAttempt(vendorOrgId: number, clientOrgId: number, policy: LockPolicy, tx?: Tx): Promise<{ locked: boolean }>;
  /**
   * Settles a reserved attempt and audits it, in one transaction: `proven` marks the session
   * proven (by `method`; method `email` marks its e-mail verified instead, which proves no
   * control of an established org) and clears the pair's count; `configured` (a new org's first
   * configuration stored by the HRMS step) clears the count and marks nothing; `failed` keeps it
   * counted and locks the pair once `maxFailures` are counted; `error` gives the attempt back.
   *
   * A proof of control counts only while what it was checked against is still stored
   * (docs/connect.md "Who may approve"): a `proven` `app_credentials` or `hrms` attempt is
   * settled `failed` unless its `basis` still holds (the org's secret, or its HRMS
   * configuration), read under a share lock on that row. A replacement (`hrx org rotate-secret`,
   * setup-config) that committed after the check thus voids the proof here, and one still in
   * flight waits for this transaction and then withdraws what it recorded. Returns the outcome
   * recorded.
   */
  finishAttempt(a: SettledAttempt, policy: LockPolicy, tx?: Tx): Promise<SettledOutcome>;
  /** Audits an attempt that reserved nothing (`locked`, `configured`, `approved`, `refused`). */
  audit(a: ProofAttempt, tx?: Tx): Promise<void>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/**
 * Whether a proof's basis is still stored, under a share lock on its row: FOR SHARE waits for a
 * replacement that has updated the row and not committed yet, then reads the row as it
 * committed; a replacement that comes later waits for the caller's transaction. A proof without
 * the basis of its method never holds.
 */
async function basisHeld(em: Tx, a: SettledAttempt): Promise<boolean> {
  const b = a.basis;
  let rows: unknown[] = [];
  if (a.method === 'app_credentials' && b && 'appSecretHash' in b)
    rows = await em.execute(`select 1 as held from orgs where id = ? and app_secret_hash = ? for share`, [a.session.clientOrgId, b.appSecretHash]);
  else if (a.method === 'hrms' && b && 'hrmsConfigVersion' in b)
    rows = await em.execute(`select 1 as held from hrms_configs where org_id = ? and ${HRMS_CONFIG_VERSION_SQL} = ? for share`, [
      a.session.clientOrgId,
      b.hrmsConfigVersion,
    ]);
  return rows.length > 0;
}

const AUDIT_SQL = `insert into connect_proof_audit
  (request_id, connection_id, vendor_org_id, client_org_id, session_id, user_id, method, outcome, source_address)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const auditParams = (a: ProofAttempt) => [
  isUuid(a.requestId) ? a.requestId : randomUUID(),
  a.session.connectionId,
  a.session.vendorOrgId,
  a.session.clientOrgId,
  a.session.id,
  a.session.userId,
  a.method,
  a.outcome,
  a.sourceAddress,
];

/** Builds the store over `orm`. */
export function createConnectStore(orm: MikroORM): ConnectStore {
  const sql = (q: string, params: unknown[], tx: Tx | undefined) => execute(orm, q, params, tx);
  const lockedUntil = async (vendorOrgId: number, clientOrgId: number, tx?: Tx): Promise<Date | null> => {
    const [row] = await sql(
      `select locked_until from connect_proof_locks where vendor_org_id = ? and client_org_id = ? and locked_until > now()`,
      [vendorOrgId, clientOrgId],
      tx,
    );
    return row ? new Date(row.locked_until as string) : null;
  };
  return {
    async createSession(s, tx) {
      const id = randomUUID();
      const rows = await sql(
        `insert into connect_sessions (id, secret_hash, jti, connection_id, expires_at) values (?, ?, ?, ?, ?)
         on conflict (jti) do nothing returning id`,
        [id, sha256(s.secret), s.jti, s.connectionId, s.expiresAt],
        tx,
      );
      return rows.length ? id : null;
    },
    async findSession(secret, tx) {
      const [row] = await sql(
        `select s.id, s.jti, s.connection_id, s.expires_at, s.proven_at, t.vendor_org_id, t.client_org_id, o.uuid as client_org_uuid, t.user_id
           from connect_sessions s join sdk_tokens t on t.jti = s.jti join orgs o on o.id = t.client_org_id
          where s.secret_hash = ? and t.revoked_at is null and s.expires_at > now() and t.expires_at > now()
            and t.connection_id = s.connection_id`,
        [sha256(secret)],
        tx,
      );
      if (!row) return null;
      return {
        id: row.id as string,
        ...tokenFieldsOf(row),
        provenAt: row.proven_at ? new Date(row.proven_at as string) : null,
      };
    },
    async withdrawAppCredentialProofs(clientOrgId, tx) {
      await sql(
        `update connect_sessions s set proven_at = null, proof_method = null
           from connections c where c.id = s.connection_id and c.client_org_id = ? and s.proof_method = 'app_credentials'`,
        [clientOrgId],
        tx,
      );
    },
    async revokeTokensIssuedBy(apiKeyId, tx) {
      await sql(`update sdk_tokens set revoked_at = now() where issued_by_api_key_id = ? and revoked_at is null`, [apiKeyId], tx);
    },
    async findSessionById(id, tx) {
      const [row] = await sql(`select proven_at, proof_method, email_verified_at from connect_sessions where id = ?`, [id], tx);
      if (!row) return null;
      return {
        provenAt: row.proven_at ? new Date(row.proven_at as string) : null,
        proofMethod: (row.proof_method as 'hrms' | 'app_credentials' | null) ?? null,
        emailVerifiedAt: row.email_verified_at ? new Date(row.email_verified_at as string) : null,
      };
    },
    isLocked: async (vendorOrgId, clientOrgId, tx) => (await lockedUntil(vendorOrgId, clientOrgId, tx)) !== null,
    lockedUntil,
    async beginAttempt(vendorOrgId, clientOrgId, policy, tx) {
      return transactionOf(orm, tx, async (em) => {
        const pair = [vendorOrgId, clientOrgId];
        await em.execute(`insert into connect_proof_locks (vendor_org_id, client_org_id) values (?, ?) on conflict do nothing`, pair);
        const [row] = await em.execute<{ failures: number; locked: boolean; expired: boolean | null }[]>(
          `select failures, locked_until is not null and locked_until > now() as locked, locked_until <= now() as expired
             from connect_proof_locks where vendor_org_id = ? and client_org_id = ? for update`,
          pair,
        );
        if (row!.locked) return { locked: true };
        const counted = row!.expired ? 0 : row!.failures;
        if (counted >= policy.maxFailures) {
          // The limit reached by attempts still in flight (or by ones whose process died before
          // settling them): a lock like any other, so it passes in time.
          await em.execute(`update connect_proof_locks set locked_until = now() + ? * interval '1 millisecond' where vendor_org_id = ? and client_org_id = ?`, [
            policy.lockMs,
            ...pair,
          ]);
          return { locked: true };
        }
        await em.execute(`update connect_proof_locks set failures = ?, locked_until = null where vendor_org_id = ? and client_org_id = ?`, [
          counted + 1,
          ...pair,
        ]);
        return { locked: false };
      });
    },
    async finishAttempt(a, policy, tx) {
      return transactionOf(orm, tx, async (em) => {
        const pair = [a.session.vendorOrgId, a.session.clientOrgId];
        let outcome = a.outcome;
        if (outcome === 'proven' && (a.method === 'app_credentials' || a.method === 'hrms') && !(await basisHeld(em, a))) outcome = 'failed';
        // A stored configuration (`configured`) marks nothing: the session entered it, it proved nothing.
        if (outcome === 'proven' && a.method === 'email')
          await em.execute(`update connect_sessions set email_verified_at = now() where id = ?`, [a.session.id]);
        else if (outcome === 'proven')
          await em.execute(`update connect_sessions set proven_at = now(), proof_method = ? where id = ?`, [a.method, a.session.id]);
        if (outcome === 'proven' || outcome === 'configured') {
          await em.execute(`update connect_proof_locks set failures = 0 where vendor_org_id = ? and client_org_id = ? and locked_until is null`, pair);
        } else if (outcome === 'failed') {
          await em.execute(
            `update connect_proof_locks set locked_until = case
                when locked_until is null and failures >= ? then now() + ? * interval '1 millisecond' else locked_until end
              where vendor_org_id = ? and client_org_id = ?`,
            [policy.maxFailures, policy.lockMs, ...pair],
          );
        } else {
          await em.execute(
            `update connect_proof_locks set failures = greatest(failures - 1, 0) where vendor_org_id = ? and client_org_id = ? and locked_until is null`,
            pair,
          );
        }
        await em.execute(AUDIT_SQL, auditParams({ ...a, outcome }));
        return outcome;
      });
    },
    async audit(a, tx) {
      await sql(AUDIT_SQL, auditParams(a), tx);
    },
  };
}
