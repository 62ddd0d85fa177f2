/**
 * The Connect page's "update credentials" mode (docs/connect.md "Updating refused credentials"):
 * while a client org's HRMS refuses the stored credentials (health `needs_reauth`, docs/sync.md
 * "Connection health"), a Connect session of a vendor's new SDK token may replace them, once
 * this session gave proof of control: proof (b) (the org's `app_key`/`app_secret`) or an e-mail
 * code to an address on the org's own `email_domain`. Proof (a) cannot serve: the stored
 * credentials are the ones that stopped working. The new credentials must name the same HRMS
 * and tenant; they are checked with the HRMS and stored by the setup service as setup-config
 * stores them (a sync queued at once). Each attempt is one attempt of the pair's lock.
 */
import type { ConnectGrant, ConnectPrincipal } from '../auth/principal';
import type { ConnectionService } from '../connections/service';
import type { Connection } from '../db/entities';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { HrmsSetupInput, SetupConfigResult, SetupService } from '../setup/service';
import type { ConnectStore, ProofOutcome } from './connect-store';

/** What the mode needs of the Connect flow (./connect.ts). */
export interface ReauthKit {
  connections: ConnectionService;
  sessions: ConnectStore;
  setup: SetupService;
  log: Logger;
  audit(p: ConnectPrincipal, method: 'hrms', outcome: ProofOutcome, meta: { requestId: string; sourceAddress: string | null }): Promise<void>;
  /** One attempt under the pair's lock (./connect.ts `attempt`). */
  attempt(
    p: ConnectPrincipal,
    method: 'hrms',
    meta: { requestId: string; sourceAddress: string | null },
    check: () => Promise<'proven' | 'configured' | 'failed'>,
  ): Promise<'proven' | 'configured' | 'failed'>;
  /** Whether the setup service's error is the HRMS refusing the credentials (counted as a failure). */
  refusedByHrms(err: unknown): err is AppError;
  /** Whether this session gave proof (b). */
  provenByApp(sessionId: string): Promise<boolean>;
  /** Whether this session verified its e-mail code. */
  emailVerified(sessionId: string): Promise<boolean>;
  /** Whether the token's address is on the org's own e-mail domain (./establish-rule.ts). */
  codeMayEstablish(p: ConnectPrincipal, g: ConnectGrant): Promise<boolean>;
}

/** The refusal of new credentials before proof of control: says which proofs serve. */
export function reauthProofNeeded(): AppError {
  return AppError.validation([
    {
      field: 'proof',
      message:
        "prove that you manage this organisation first: its application key and secret, or an e-mail code sent to an address on the organisation's own e-mail domain",
    },
  ]);
}

/** Builds the mode over `kit`. */
export function createReauthStep(kit: ReauthKit) {
  /** Whether the org waits for new credentials (the setup service's `reauthNeeded`). */
  const reauthOf = (orgId: number) => kit.setup.reauthNeeded(orgId);

  /**
   * The grant's connection when the org waits for new credentials and the connection is pending
   * or approved (a vendor's new token for an approved connection opens this mode), else null.
   */
  async function reauthConnection(g: ConnectGrant): Promise<Connection | null> {
    const c = await kit.connections.get(g.connectionId);
    if (!c || (c.status !== 'pending' && c.status !== 'approved')) return null;
    return (await reauthOf(c.clientOrgId)) ? c : null;
  }

  /** Whether this session proved control in a way that may replace credentials. */
  async function mayReplace(p: ConnectPrincipal): Promise<boolean> {
    const g = p.connect;
    if (await kit.provenByApp(g.sessionId)) return true;
    return (await kit.emailVerified(g.sessionId)) && (await kit.codeMayEstablish(p, g));
  }

  return {
    reauthOf,
    reauthConnection,

    /**
     * Replaces the org's refused credentials with `input` (the HRMS step in this mode). Refused
     * unchecked while the pair is locked (PROOF_FAILED) and without this session's proof
     * (VALIDATION `proof`, audited `refused`, nothing stored, the HRMS not called). New
     * credentials the HRMS refuses are HRMS_CREDENTIALS_REJECTED and count a failure; another
     * HRMS or tenant is VALIDATION (the setup service's `reauthorise`).
     */
    async replace(p: ConnectPrincipal, input: HrmsSetupInput, meta: { requestId: string; sourceAddress: string | null }): Promise<SetupConfigResult> {
      const g = p.connect;
      if (await kit.sessions.isLocked(g.vendorOrgId, p.orgId)) {
        await kit.audit(p, 'hrms', 'locked', meta);
        throw new AppError('PROOF_FAILED');
      }
      if (!(await mayReplace(p))) {
        await kit.audit(p, 'hrms', 'refused', meta);
        throw reauthProofNeeded();
      }
      const seen: { stored?: SetupConfigResult; refused?: AppError } = {};
      await kit.attempt(p, 'hrms', meta, async () => {
        try {
          seen.stored = await kit.setup.reauthorise(p.orgId, input);
          return 'configured';
        } catch (err) {
          if (!kit.refusedByHrms(err)) throw err;
          seen.refused = err;
          return 'failed';
        }
      });
      kit.log.info({ clientOrgId: p.orgId, connectionId: g.connectionId, hrmsId: input.hrms_id, replaced: !!seen.stored }, 'connect: hrms credentials updated');
      if (seen.refused) throw seen.refused;
      if (!seen.stored) throw new AppError('PROOF_FAILED');
      return seen.stored;
    },
  };
}
