/**
 * Attempts under the lock policy (docs/connect.md "Lockout"): every proof, e-mail code and
 * approval attempt of the Connect flow (./connect.ts) is audited, and failed proofs and wrong
 * codes count towards locking the vendor/client pair's approval.
 */
import type { ConnectGrant, ConnectPrincipal } from '../auth/principal';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { ConnectStore, LockPolicy, ProofMethod, ProofOutcome } from './connect-store';

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
   * rethrown, and the attempt given back (audited `error`, not counted).
   */
  async function attempt(
    p: ConnectPrincipal,
    method: 'hrms' | 'app_credentials' | 'email',
    meta: RequestMeta,
    check: () => Promise<'proven' | 'configured' | 'failed'>,
  ): Promise<'proven' | 'configured' | 'failed'> {
    const g = p.connect;
    const base = { requestId: meta.requestId, session: sessionOf(p, g), method, sourceAddress: meta.sourceAddress };
    if ((await sessions.beginAttempt(g.vendorOrgId, p.orgId, PROOF_LOCK)).locked) {
      await sessions.audit({ ...base, outcome: 'locked' });
      throw new AppError('PROOF_FAILED');
    }
    let outcome: 'proven' | 'configured' | 'failed';
    try {
      outcome = await check();
    } catch (err) {
      await sessions.finishAttempt({ ...base, outcome: 'error' }, PROOF_LOCK);
      throw err;
    }
    await sessions.finishAttempt({ ...base, outcome }, PROOF_LOCK);
    return outcome;
  }

  /** A proof `check` under the lock policy ({@link attempt}). Throws PROOF_FAILED (false or locked), or what `check` throws. */
  async function prove(
    p: ConnectPrincipal,
    method: 'hrms' | 'app_credentials' | 'email',
    meta: RequestMeta,
    check: () => Promise<boolean>,
  ): Promise<{ proven: true }> {
    const ok = (await attempt(p, method, meta, async () => ((await check()) ? 'proven' : 'failed'))) === 'proven';
    deps.log.info({ clientOrgId: p.orgId, connectionId: p.connect.connectionId, method, proven: ok }, 'connect: proof of control');
    if (!ok) throw new AppError('PROOF_FAILED');
    return { proven: true };
  }

  return { audit, attempt, prove };
}
