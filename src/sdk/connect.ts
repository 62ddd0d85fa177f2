/**
 * The Connect flow behind its session (docs/connect.md "Who may approve", Connect session):
 * exchanging an SDK token once for a session, what the page shows, the HRMS step, proof of
 * control, approval and rejection.
 *
 * An org is *established* once it has an HRMS configuration or any employee row. Approving a
 * connection to an established org needs proof of control given in the same session: (a) the
 * HRMS step with credentials equal to the stored ones that the HRMS still accepts, or (b) the
 * org's `app_key`/`app_secret`. The flow never creates, replaces or extends an established org's
 * configuration; a new org's first configuration, entered in a session, lets that session
 * approve while it is still the org's configuration, and may be entered only by a session whose
 * holder verified the token's e-mail ("Establishing an org", ./email-verify.ts). The one
 * replacement it makes: new credentials for the same tenant while the HRMS refuses the stored
 * ones (./connect-reauth.ts). Failed proofs (and wrong e-mail codes) lock the vendor/client
 * pair's approval, and every proof, code and approval attempt is audited (./connect-attempts.ts).
 * The token-for-session exchange is ./connect-session.ts; what the page shows, ./connect-view.ts.
 */
import type { AuthFailureGuard } from '../auth/failure-guard';
import type { ConnectGrant, ConnectPrincipal } from '../auth/principal';
import { requestSplit } from '../connections/requested-points';
import type { ConnectionService } from '../connections/service';
import type { Connection } from '../db/entities';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { HrmsError } from '../hrms/connector';
import type { OrgService } from '../orgs/service';
import type { HrmsSetupInput, SetupConfigResult, SetupService } from '../setup/service';
import type { Mailer } from '../mail/mailer';
import { createAttempts, type RequestMeta } from './connect-attempts';
import { createSessionExchange } from './connect-session';
import type { ConnectStore } from './connect-store';
import { listsOf, sessionView, type ConnectHrmsProduct, type ConnectSession, type DataPointLists } from './connect-view';
import type { EmailCodeStore } from './email-code-store';
import { createEmailVerification, emailNeeded, EMAIL_CODE_POLICY } from './email-verify';
import { codeCannotEstablish, codeEstablishes } from './establish-rule';
import { createReauthStep } from './connect-reauth';
import type { SdkStore, SdkTokenView } from './store';

export type { ConnectHrmsProduct, ConnectSession, DataPointLists } from './connect-view';
export { PROOF_LOCK, type RequestMeta } from './connect-attempts';
export type { OpenedSession } from './connect-session';

/** The answer to a decision. */
export interface ConnectOutcome extends DataPointLists {
  connection_id: string;
  status: 'approved' | 'rejected';
}

/** What the flow is built over. */
export interface ConnectFlowDeps {
  store: SdkStore;
  sessions: ConnectStore;
  orgs: OrgService;
  connections: ConnectionService;
  setup: SetupService;
  supportedHrms: readonly string[];
  /** The active row of an SDK token hrx issued and still honours, else null (service.ts). */
  verifyToken: (token: string) => Promise<SdkTokenView | null>;
  log: Logger;
  /** The failed-authentication limit (docs/behaviour.md "Failed authentications") on the session exchange; absent: none. */
  failures?: AuthFailureGuard | undefined;
  /** The HRMS step's products (src/hrms/products.ts), one per `supportedHrms` entry, in its order. */
  products: readonly ConnectHrmsProduct[];
  /** E-mail codes (docs/connect.md "What an e-mail code can set up"). */
  codes: EmailCodeStore;
  /** Null without `HRX_SMTP_URL`. */
  mailer: Mailer | null;
  /** Key of the codes' keyed hash. */
  emailCodeKey: Buffer;
  /** `HRX_OPERATOR_NAME`, `HRX_OPERATOR_CONTACT`. */
  operator: { name: string; contact: string | null };
}

/**
 * Whether `err` is the setup service's refusal because the HRMS refused the credentials (its
 * `auth` kind, a product's own second key included), as opposed to a host it could not reach.
 */
function refusedByHrms(err: unknown): err is AppError {
  return err instanceof AppError && err.cause instanceof HrmsError && err.cause.kind === 'auth';
}

/** Builds the Connect flow. */
export function createConnectFlow(deps: ConnectFlowDeps) {
  const { sessions } = deps;

  /** The grant's connection, which must still be pending for any change. */
  async function pendingConnection(g: ConnectGrant): Promise<Connection> {
    const c = await deps.connections.get(g.connectionId);
    if (!c) throw new AppError('NOT_FOUND');
    if (c.status === 'terminated') throw new AppError('CONNECTION_ALREADY_TERMINATED');
    if (c.status !== 'pending') throw new AppError('CONNECTION_DECIDED', { params: { status: c.status } });
    return c;
  }

  const { audit, attempt, prove } = createAttempts({ sessions, log: deps.log });

  /**
   * Whether this session may approve: it proved control, or it entered the org's current
   * configuration. `yes` carries the Connect session whose configuration the approval rests on
   * (this one entered it, or proved control against it with the HRMS step), else null: proof (b)
   * or a configuration from setup-config (squat-then-replace, docs/connect.md "Reference: the SDK token and the Connect endpoints").
   */
  async function mayApprove(
    p: ConnectPrincipal,
    g: ConnectGrant,
  ): Promise<{ yes: { configSession: string | null } } | 'needs-hrms' | 'needs-owner' | 'needs-proof'> {
    const state = await deps.setup.establishment(p.orgId);
    const [session, enteredBy] = await Promise.all([sessions.findSessionById(g.sessionId), deps.setup.configSessionId(p.orgId)]);
    if (!state.established) {
      // docs/connect.md "What an e-mail code can set up": proof (b) approves a new org, which stays without a configuration.
      if (session?.proofMethod === 'app_credentials') return { yes: { configSession: null } };
      return (await codeMayEstablish(p, g)) ? 'needs-hrms' : 'needs-owner';
    }
    if (!session?.provenAt && enteredBy !== g.sessionId) return 'needs-proof';
    return { yes: { configSession: session?.proofMethod === 'app_credentials' ? null : enteredBy } };
  }

  const established = async (orgId: number) => {
    const state = await deps.setup.establishment(orgId);
    return state.established;
  };
  const emailVerified = async (sessionId: string) => (await sessions.findSessionById(sessionId))?.emailVerifiedAt != null;
  const provenByApp = async (sessionId: string) => (await sessions.findSessionById(sessionId))?.proofMethod === 'app_credentials';
  /** Whether the token's address is on the org's own e-mail domain (./establish-rule.ts). */
  async function codeMayEstablish(p: ConnectPrincipal, g: ConnectGrant): Promise<boolean> {
    const [org, user] = await Promise.all([deps.orgs.byId(p.orgId), deps.store.findUser(g.userId)]);
    return org !== null && user !== null && codeEstablishes(org, user.email);
  }
  const reauth = createReauthStep({
    connections: deps.connections,
    sessions,
    setup: deps.setup,
    log: deps.log,
    audit,
    attempt,
    refusedByHrms,
    provenByApp,
    emailVerified,
    codeMayEstablish,
  });
  /** The grant's connection: pending, or approved while the org waits for new credentials (./connect-reauth.ts). */
  const openConnection = async (g: ConnectGrant): Promise<Connection> => (await reauth.reauthConnection(g)) ?? pendingConnection(g);
  /**
   * The e-mail step of an org that no code can set up (a new org, or one waiting for new
   * credentials, whose token's address is not on its own domain): 400 before any code is sent or checked.
   */
  async function codeAllowed(p: ConnectPrincipal): Promise<void> {
    await openConnection(p.connect);
    const open = !(await established(p.orgId)) || (await reauth.reauthOf(p.orgId)) !== null;
    if (open && !(await codeMayEstablish(p, p.connect))) throw codeCannotEstablish(await deps.orgs.byId(p.orgId));
  }
  const email = createEmailVerification(
    {
      pendingConnection: openConnection,
      // An org waiting for new credentials takes a code as proof (docs/connect.md "Updating refused credentials").
      established: async (orgId) => (await established(orgId)) && (await reauth.reauthOf(orgId)) === null,
      verified: emailVerified,
      prove,
      audit,
      locked: (p, g) => sessions.isLocked(g.vendorOrgId, p.orgId),
      async parties(p, g) {
        const [vendor, org, user] = await Promise.all([deps.orgs.byId(g.vendorOrgId), deps.orgs.byId(p.orgId), deps.store.findUser(g.userId)]);
        if (!vendor || !org || !user) throw new AppError('NOT_FOUND');
        return { vendorName: vendor.orgName, orgName: org.orgName, email: user.email };
      },
    },
    { codes: deps.codes, mailer: deps.mailer, codeKey: deps.emailCodeKey, operatorName: deps.operator.name, log: deps.log },
  );

  return {
    ...createSessionExchange(deps),

    /** What the page shows of the session (see {@link ConnectSession}). Throws NOT_FOUND. */
    async session(p: ConnectPrincipal): Promise<ConnectSession> {
      const g = p.connect;
      const [c, vendor, org, user, fullName, configured, state, session, enteredBy, lockedUntil, code, refused] = await Promise.all([
        deps.connections.get(g.connectionId),
        deps.orgs.byId(g.vendorOrgId),
        deps.orgs.byId(p.orgId),
        deps.store.findUser(g.userId),
        // The name this session's own token gave: the user row keeps the first vendor's words for the address.
        deps.store.tokenFullName(g.jti),
        deps.setup.configuredHrms(p.orgId),
        deps.setup.establishment(p.orgId),
        sessions.findSessionById(g.sessionId),
        deps.setup.configSessionId(p.orgId),
        sessions.lockedUntil(g.vendorOrgId, p.orgId),
        deps.codes.current(g.sessionId, EMAIL_CODE_POLICY),
        reauth.reauthOf(p.orgId),
      ]);
      if (!c || !vendor || !org || !user) throw new AppError('NOT_FOUND');
      // docs/connect.md "What a pending connection sees": the org's HRMS and a refusal of its
      // credentials (when, which HRMS) are the employer's; a vendor can open a pending connection
      // alone, so its page shows them only once this session proved control or entered them.
      const disclosed = c.status === 'approved' || session?.provenAt != null || enteredBy === g.sessionId;
      return sessionView({
        connection: c,
        vendor,
        org,
        user: { email: user.email, fullName },
        supported: deps.supportedHrms,
        products: [...deps.products],
        configured: disclosed ? configured : null,
        established: state.established,
        codeEstablishes: codeEstablishes(org, user.email),
        entered: enteredBy === g.sessionId,
        session,
        lockedUntil,
        codeExpiresAt: code?.expiresAt ?? null,
        mailer: deps.mailer !== null,
        operator: deps.operator,
        refused: disclosed && (c.status === 'pending' || c.status === 'approved') ? refused : null,
      });
    },

    ...email,
    /** See `sendEmailCode` of ./email-verify.ts; also VALIDATION `email` when no code can set this org up (./establish-rule.ts). */
    sendEmailCode: async (p: ConnectPrincipal, meta: RequestMeta) => (await codeAllowed(p), email.sendEmailCode(p, meta)),
    /** See `verifyEmail` of ./email-verify.ts; also VALIDATION `email` when no code can set this org up (./establish-rule.ts). */
    verifyEmail: async (p: ConnectPrincipal, code: string, meta: RequestMeta) => (await codeAllowed(p), email.verifyEmail(p, code, meta)),

    /**
     * The HRMS step: a new org's credentials are checked and stored (the setup service, atomic
     * with the "not established" check) once this session verified its e-mail; for an established
     * org it is proof (a), compared and never stored. Either way it is one attempt under the
     * pair's lock (docs/connect.md "Lockout"): credentials the HRMS refuses count a failure, and
     * once the pair is locked the HRMS is not called at all. Throws 409 (decided), PROOF_FAILED
     * (wrong or locked), VALIDATION `email` (a new org, e-mail not verified), the setup service's
     * 400s (HRMS_CREDENTIALS_REJECTED for a new org's refused credentials, counted). While the
     * org's HRMS refuses its stored credentials, new ones replace them instead, after this
     * session's proof (b) or own-domain e-mail code, for a pending or approved connection
     * (./connect-reauth.ts; docs/connect.md "Updating refused credentials").
     */
    async hrms(p: ConnectPrincipal, input: HrmsSetupInput, meta: RequestMeta): Promise<SetupConfigResult | { proven: true }> {
      const g = p.connect;
      // An org whose HRMS refuses the stored credentials: new ones replace them, after proof (./connect-reauth.ts).
      if (await reauth.reauthConnection(g)) return reauth.replace(p, input, meta);
      await pendingConnection(g);
      if (await sessions.isLocked(g.vendorOrgId, p.orgId)) {
        await audit(p, 'hrms', 'locked', meta);
        throw new AppError('PROOF_FAILED');
      }
      // A new org's first configuration needs the e-mail verified, on the org's own domain, or proof (b)
      // (docs/connect.md "What an e-mail code can set up").
      if (!(await established(p.orgId)) && !(await provenByApp(g.sessionId))) {
        if (!(await codeMayEstablish(p, g))) throw codeCannotEstablish(await deps.orgs.byId(p.orgId));
        if (!(await emailVerified(g.sessionId))) throw emailNeeded(deps.mailer !== null);
      }
      // What the check saw besides its outcome: the stored configuration, or the HRMS's refusal (its 400).
      const seen: { stored?: SetupConfigResult; refused?: AppError } = {};
      const outcome = await attempt(p, 'hrms', meta, async () => {
        let out: Awaited<ReturnType<SetupService['connectHrms']>>;
        try {
          out = await deps.setup.connectHrms(p.orgId, input, g.sessionId);
        } catch (err) {
          if (!refusedByHrms(err)) throw err;
          seen.refused = err;
          return 'failed';
        }
        if ('stored' in out) {
          seen.stored = out.stored;
          return 'configured';
        }
        // Recorded only while the compared configuration is still stored (setup-config racing this check voids it).
        const basis = await deps.setup.proveHrms(p.orgId, input);
        return basis ? { outcome: 'proven', basis } : 'failed';
      });
      if (seen.stored) {
        deps.log.info({ clientOrgId: p.orgId, connectionId: g.connectionId, hrmsId: input.hrms_id }, 'connect: hrms configured');
        return seen.stored;
      }
      deps.log.info({ clientOrgId: p.orgId, connectionId: g.connectionId, method: 'hrms', proven: outcome === 'proven' }, 'connect: proof of control');
      if (seen.refused) throw seen.refused;
      if (outcome !== 'proven') throw new AppError('PROOF_FAILED');
      return { proven: true };
    },

    /**
     * Proof (b): the client org's application credentials, also a failed authentication of the
     * source and the `app_key` when wrong (docs/api.md "Credentials": the same budget as the update webhook
     * and setup-config; it may run scrypt for a credential made before keyed hashes). Throws 409
     * (decided), PROOF_FAILED, THROTTLED (over the failure limit: not counted against the pair).
     */
    async proof(p: ConnectPrincipal, creds: { app_key: string; app_secret: string }, meta: RequestMeta): Promise<{ proven: true }> {
      await openConnection(p.connect);
      // The stored hash the secret matched goes with the proof: it is recorded only while the org
      // still holds that secret (a rotation racing this check voids it, docs/connect.md).
      const check = async () => {
        const org = await deps.orgs.verifyAppCredentials(creds.app_key, creds.app_secret);
        return org?.isClient && org.id === p.orgId ? { appSecretHash: org.appSecretHash } : null;
      };
      return prove(
        p,
        'app_credentials',
        meta,
        async () =>
          (deps.failures
            ? await deps.failures.run({ source: meta.sourceAddress ?? 'unknown', kind: 'app', presented: creds.app_key }, check)
            : await check()) ?? false,
      );
    },

    /**
     * Approves the connection: required points and `opted_in` shared, the other optional points
     * not shared (an optional point in neither list is opted out); the org's invite accepted.
     * Throws 409 (decided), PROOF_FAILED (established org without proof in this session, or the
     * pair locked), VALIDATION (a new org without credentials entered, a name that is not an
     * optional point of this connection, a point in both lists).
     */
    async approve(p: ConnectPrincipal, choice: { opted_in: string[]; opted_out: string[] }, meta: RequestMeta): Promise<ConnectOutcome> {
      const g = p.connect;
      const c = await pendingConnection(g);
      if (await sessions.isLocked(g.vendorOrgId, p.orgId)) {
        await audit(p, 'approve', 'locked', meta);
        throw new AppError('PROOF_FAILED');
      }
      const may = await mayApprove(p, g);
      if (may === 'needs-hrms') throw AppError.validation([{ field: 'hrms', message: 'enter the HRMS credentials before approving' }]);
      if (may === 'needs-owner') throw codeCannotEstablish(await deps.orgs.byId(p.orgId));
      if (may === 'needs-proof') {
        await audit(p, 'approve', 'refused', meta);
        throw new AppError('PROOF_FAILED');
      }
      const optional = new Set(requestSplit(c.dataModelFlags).optional);
      for (const list of ['opted_in', 'opted_out'] as const) {
        choice[list].forEach((name, i) => {
          if (!optional.has(name)) throw AppError.validation([{ field: `${list}.${i}`, message: 'not an optional data point of this connection' }]);
        });
      }
      const both = choice.opted_out.findIndex((n) => choice.opted_in.includes(n));
      if (both >= 0) throw AppError.validation([{ field: `opted_out.${both}`, message: 'also opted in' }]);
      let done: Connection;
      try {
        done = await deps.connections.decideInConnect(c.id, c.dataModelFlags, {
          to: 'approved',
          optedIn: choice.opted_in,
          configSession: may.yes.configSession,
          stillHonoured: (tx) => deps.store.isHonoured(g.jti, tx),
        });
      } catch (err) {
        // The configuration it rested on was replaced meanwhile (squat-then-replace).
        if (err instanceof AppError && err.code === 'PROOF_FAILED') await audit(p, 'approve', 'refused', meta);
        throw err;
      }
      await audit(p, 'approve', 'approved', meta);
      await deps.orgs.markInviteAccepted(p.orgId);
      deps.log.info({ clientOrgId: p.orgId, connectionId: c.id }, 'connect: connection approved');
      // decideInConnect stored exactly this status (it throws on any other state).
      return { connection_id: done.id, status: 'approved', ...listsOf(done) };
    },

    /** Rejects the connection (no proof needed: it shares nothing). Throws 409 when decided already. */
    async reject(p: ConnectPrincipal): Promise<ConnectOutcome> {
      const g = p.connect;
      const c = await pendingConnection(g);
      const done = await deps.connections.decideInConnect(c.id, c.dataModelFlags, { to: 'rejected', stillHonoured: (tx) => deps.store.isHonoured(g.jti, tx) });
      deps.log.info({ clientOrgId: p.orgId, connectionId: c.id }, 'connect: connection rejected');
      return { connection_id: done.id, status: 'rejected', ...listsOf(done) };
    },
  };
}
