/**
 * Attempts under the lock policy (docs/connect.md "Lockout"): every proof, e-mail code and
 * approval attempt of the Connect flow (./connect.ts) is audited, and failed proofs and wrong
 * codes count towards locking the vendor/client pair's approval.
 */
import type { ConnectGrant, ConnectPrincipal } from '../auth/principal';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { ConnectStore, LockPolicy, ProofBasis, ProofMethod, ProofOutcome } from './connect-store';

/**
 * What an attempt's check found. A proof of control answers `{ outcome: 'proven', basis }`: what
 * it was checked against, which must still be stored when the proof is recorded
 * (ConnectStore.finishAttempt); a bare `'proven'` records an e-mail code only.
 */
export type CheckOutcome = 'proven' | 'configured' | 'failed' | { outcome: 'proven'; basis: ProofBasis };

/** docs/connect.md "Lockout": five failed proofs lock that connection's approval for 15 minutes. */
export const PROOF_LOCK: LockPolicy = { maxFailures: 5, lockMs: 15 * 60_000 };

/** Where a request came from, for the audit trail. */
export interface RequestMeta {
  requestId: string;
  sourceAddress: string | null;
}

/** Builds the flow's audit, `attempt` and `prove` over the session store. */
export function createAttempts(deps: { sessions: ConnectStore; log: Logger }) {
  const { sessions } = deps;
  const sessionOf = (p: ConnectPrincipal, g: ConnectGrant) => ({
    id: g.sessionId,
    connectionId: g.connectionId,
    vendorOrgId: g.vendorOrgId,
    clientOrgId: p.orgId,
    userId: g.userId,
  });

  async function audit(p: ConnectPrincipal, method: ProofMethod, outcome: ProofOutcome, meta: RequestMeta): Promise<void> {
    await sessions.audit({ requestId: meta.requestId, session: sessionOf(p, p.connect), method, outcome, sourceAddress: meta.sourceAddress });
  }

  /**
   * Runs one `check` under the lock policy (reserved before it runs, so parallel attempts cannot
   * pass the limit): refused unchecked while the pair is locked (PROOF_FAILED); a `failed`
   * outcome counts a failure, `proven`/`configured` clear the count. What `check` throws is
   * rethrown, and the attempt given back (audited `error`, not counted). Resolves with the outcome
   * recorded: a proof of control whose basis was replaced since its check is `failed`.
   */
  async function attempt(
    p: ConnectPrincipal,
    method: 'hrms' | 'app_credentials' | 'email',
    meta: RequestMeta,
    check: () => Promise<CheckOutcome>,
  ): Promise<'proven' | 'configured' | 'failed'> {
    const g = p.connect;
    const base = { requestId: meta.requestId, session: sessionOf(p, g), method, sourceAddress: meta.sourceAddress };
    if ((await sessions.beginAttempt(g.vendorOrgId, p.orgId, PROOF_LOCK)).locked) {
      await sessions.audit({ ...base, outcome: 'locked' });
      throw new AppError('PROOF_FAILED');
    }
    let checked: CheckOutcome;
    try {
      checked = await check();
    } catch (err) {
      await sessions.finishAttempt({ ...base, outcome: 'error' }, PROOF_LOCK);
      throw err;
    }
    const settled = typeof checked === 'string' ? { outcome: checked } : checked;
    const recorded = await sessions.finishAttempt({ ...base, ...settled }, PROOF_LOCK);
    return recorded === 'error' ? 'failed' : recorded; // never `error` here: only a check that threw settles so
  }

  /**
   * A proof `check` under the lock policy ({@link attempt}); a proof of control's check answers
   * its basis instead of `true`. Throws PROOF_FAILED (false, locked, or the basis replaced since
   * the check), or what `check` throws.
   */
  async function prove(
    p: ConnectPrincipal,
    method: 'hrms' | 'app_credentials' | 'email',
    meta: RequestMeta,
    check: () => Promise<boolean | ProofBasis>,
  ): Promise<{ proven: true }> {
    const judged = async (): Promise<CheckOutcome> => {
      const r = await check();
      return typeof r === 'boolean' ? (r ? 'proven' : 'failed') : { outcome: 'proven', basis: r };
    };
    const ok = (await attempt(p, method, meta, judged)) === 'proven';
    deps.log.info({ clientOrgId: p.orgId, connectionId: p.connect.connectionId, method, proven: ok }, 'connect: proof of control');
    if (!ok) throw new AppError('PROOF_FAILED');
    return { proven: true };
  }

  return { audit, attempt, prove };
}
