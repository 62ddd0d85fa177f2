/**
 * SDK token and the Connect flow (docs/api.md "SDK token and the Connect flow";
 * docs/api.md "Vendor connections", docs/connect.md "Reference: the SDK token and the Connect endpoints").
 *
 * - {@link SdkService.issueToken}: resolves the client org (remote_org_id → private e-mail domain
 *   → org_name), makes sure the user and a `pending` connection requesting the flagged data
 *   points exist, and signs a 1-hour Connect-only JWT (see ./token.ts) recorded by its `jti`.
 * - {@link SdkService.verify}: signature, claims, and an active (unrevoked, unexpired) `sdk_tokens`
 *   row; the token is used only to open a Connect session (./connect.ts), once.
 * - The Connect flow behind that session (./connect.ts): what the HR admin sees, the HRMS step,
 *   proof of control, approval or rejection — connection changes through the connection
 *   service, so every API process's connection cache is cleared.
 */
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, type JSONWebKeySet, type CryptoKey, type KeyObject } from 'jose';
import type { Principal } from '../auth/principal';
import type { AuthFailureGuard } from '../auth/failure-guard';
import type { ConnectionService } from '../connections/service';
import type { Transactor } from '../db/tx';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { OrgService } from '../orgs/service';
import type { ClientMatch } from '../orgs/store';
import type { SetupService } from '../setup/service';
import { createConnectFlow, type ConnectFlowDeps } from './connect';
import type { ConnectStore } from './connect-store';
import type { DataModelFlags } from './flags';
import type { SdkStore, SdkTokenView } from './store';
import { SDK_TOKEN_TTL_SEC, signConnectToken, verifyConnectToken } from './token';

/** The validated body of `POST /api/sdk/token/` (e-mail already checked, trimmed). */
export interface SdkTokenRequest {
  email: string;
  org_name: string;
  fullname: string;
  remote_org_id?: string | undefined;
  corporate_reference_data?: Record<string, unknown> | undefined;
  data_model_flags?: DataModelFlags | undefined;
}

/** docs/api.md "SDK token and the Connect flow". */
export interface SdkTokenResult {
  org_id: string;
  access_token: string;
  /** Seconds; SDK_TOKEN_TTL_SEC. */
  exp: typeof SDK_TOKEN_TTL_SEC;
  corporate_reference_data: Record<string, unknown>;
}

export type { ConnectOutcome, ConnectSession, DataPointLists } from './connect';

export interface SdkServiceDeps {
  store: SdkStore;
  /** Opens the transaction a token is issued in. */
  transactor: Transactor;
  /** Client orgs, and users, one vendor's token requests may create in 24 hours (config `HRX_SDK_CREATIONS_PER_DAY`; 0: no limit). */
  creationsPerDay: number;
  /** The failed-authentication limit (docs/behaviour.md "Failed authentications") on the Connect session exchange; absent: none. */
  failures?: AuthFailureGuard | undefined;
  /** Connect sessions, proof locks and their audit (docs/connect.md "The session"). */
  sessions: ConnectStore;
  orgs: OrgService;
  connections: ConnectionService;
  setup: SetupService;
  /** `hrms_id`s of the connectors (src/hrms/registry.ts). */
  supportedHrms: readonly string[];
  /** Lower-cased common e-mail domains (config `HRX_COMMON_EMAIL_DOMAINS`). */
  commonEmailDomains: readonly string[];
  /** The service's current RS256 signing key (docs/v2.md). */
  signingKey: () => Promise<{ kid: string; privateKey: CryptoKey | KeyObject }>;
  /** The service JWKS; `reload` drops the process's key cache first. */
  jwks: (opts?: { reload?: boolean }) => Promise<JSONWebKeySet>;
  log: Logger;
  /** The Connect page's HRMS products, e-mail codes and operator (see `ConnectFlowDeps`). */
  connect: Pick<ConnectFlowDeps, 'products' | 'codes' | 'mailer' | 'emailCodeKey' | 'operator'>;
}

export type SdkService = ReturnType<typeof createSdkService>;

/** Builds the SDK service. */
export function createSdkService(deps: SdkServiceDeps) {
  const common = new Set(deps.commonEmailDomains);
  let lastReload = 0;

  async function jwksFor(token: string): Promise<JSONWebKeySet> {
    let jwks = await deps.jwks();
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return jwks;
    }
    // A key rotated in by another process moments ago: reload, at most once a second.
    if (typeof kid === 'string' && !jwks.keys.some((k) => k.kid === kid) && Date.now() - lastReload > 1000) {
      lastReload = Date.now();
      jwks = await deps.jwks({ reload: true });
    }
    return jwks;
  }

  /** See the `verify` member: the row of a token hrx issued and still honours, else null. */
  async function verify(token: string): Promise<SdkTokenView | null> {
    const claims = await verifyConnectToken(token, await jwksFor(token));
    if (!claims) return null;
    const row = await deps.store.findActive(claims.jti);
    if (
      !row ||
      row.expiresAt.getTime() <= Date.now() ||
      row.connectionId !== claims.connection_id ||
      row.userId !== claims.sub ||
      row.clientOrgUuid !== claims.client_org
    )
      return null;
    return row;
  }

  return {
    ...createConnectFlow({
      store: deps.store,
      sessions: deps.sessions,
      orgs: deps.orgs,
      connections: deps.connections,
      setup: deps.setup,
      supportedHrms: deps.supportedHrms,
      verifyToken: verify,
      log: deps.log,
      failures: deps.failures,
      ...deps.connect,
    }),

    /**
     * Issues an SDK token for the calling vendor (docs/connect.md "Reference: the SDK token and the Connect endpoints"). Throws AUTH_INVALID when the
     * key is not a vendor org's or was revoked since the request was authenticated, VALIDATION
     * when the request resolves to an org that is not a client org or to the caller itself,
     * THROTTLED (with `Retry-After`) when it would create a client org or user past the vendor's
     * daily limit (docs/limits.md "Organisations and users created by SDK tokens"); a refused
     * request stores nothing. `issuedBy.apiKeyId`: the API key the request came
     * with, recorded so that revoking the key revokes the token (and ends its Connect session).
     */
    async issueToken(vendor: Principal, req: SdkTokenRequest, issuedBy: { apiKeyId: string | null } = { apiKeyId: null }): Promise<SdkTokenResult> {
      if (!vendor.isVendor) throw new AppError('AUTH_INVALID');
      const email = req.email.toLowerCase();
      const domain = email.slice(email.lastIndexOf('@') + 1);
      let match: ClientMatch;
      let field: string;
      // docs/connect.md "Org resolution": a remote id is the vendor's own; the name rule finds only orgs it made.
      // A remote id keeps the private domain (so the org is the domain's, and a code to that domain may set it up);
      // the name rule finds the vendor's own remote-id orgs too, so a retry without the id makes no duplicate.
      const privateDomain = common.has(domain) ? undefined : domain;
      if (req.remote_org_id !== undefined)
        [match, field] = [{ remoteOrgId: req.remote_org_id, vendorOrgId: vendor.orgId, emailDomain: privateDomain }, 'remote_org_id'];
      else if (privateDomain !== undefined) [match, field] = [{ emailDomain: privateDomain }, 'email'];
      else [match, field] = [{ orgNameKey: req.org_name.toLowerCase(), vendorOrgId: vendor.orgId }, 'org_name'];
      // One transaction (docs/connect.md "Reference: the SDK token and the Connect endpoints"):
      // the issuing key held FOR SHARE (a revocation waits for this commit and then revokes the
      // token too, or this sees the key revoked and issues nothing), the creations counted
      // against the vendor's daily limit, the connection's request and the revocation of its
      // earlier tokens together, so no approval sees the one without the other.
      // The key before the transaction: the keyring may read it from the store, on a connection of
      // its own, and a transaction waiting for a second connection holds its first (a vendor's
      // concurrent requests could fill the pool with transactions waiting for each other's).
      const signingKey = await deps.signingKey();
      const { org, created, connection, token } = await deps.transactor.transaction(async (tx) => {
        const { org, created } = await deps.orgs.resolveClient(match, { name: req.org_name }, tx);
        if (!org.isClient || org.id === vendor.orgId) {
          throw AppError.validation([{ field, message: 'does not resolve to a client organisation' }]);
        }
        const user = await deps.store.ensureUser(org.id, email, req.fullname, tx);
        const made = [...(created ? (['org'] as const) : []), ...(user.created ? (['user'] as const) : [])];
        const connection = await deps.connections.ensureRequested(vendor.orgId, org.id, req.data_model_flags ?? null, tx);
        const jti = randomUUID();
        const signed = await signConnectToken(
          { sub: user.id, vendor_org: vendor.orgUuid, client_org: org.uuid, connection_id: connection.id, jti },
          signingKey,
        );
        // Counted after the signature, so the vendor's lock on its count is held only for the last
        // statements and the commit (its concurrent requests take it in turn).
        if (deps.creationsPerDay > 0) {
          const waitSec = await deps.store.recordCreations(vendor.orgId, made, deps.creationsPerDay, tx);
          if (waitSec > 0) throw new AppError('THROTTLED', { params: { seconds: waitSec }, headers: { 'retry-after': String(waitSec) } });
        }
        // Checked last, so a revocation waits only for the insert and the commit.
        if (issuedBy.apiKeyId !== null && !(await deps.orgs.holdActiveApiKey(issuedBy.apiKeyId, tx))) throw new AppError('AUTH_INVALID');
        await deps.store.issue(
          {
            jti,
            connectionId: connection.id,
            vendorOrgId: vendor.orgId,
            clientOrgId: org.id,
            userId: user.id,
            issuedAt: new Date(signed.iat * 1000),
            expiresAt: new Date(signed.exp * 1000),
            issuedByApiKeyId: issuedBy.apiKeyId,
            fullName: req.fullname,
          },
          tx,
        );
        return { org, created, connection, token: { jti, value: signed.token } };
      });
      await deps.connections.accessChanged();
      deps.log.info({ vendorOrgId: vendor.orgId, clientOrgId: org.id, orgCreated: created, connectionId: connection.id, jti: token.jti }, 'sdk token issued');
      return { org_id: org.uuid, access_token: token.value, exp: SDK_TOKEN_TTL_SEC, corporate_reference_data: req.corporate_reference_data ?? {} };
    },

    /**
     * The active token row of an SDK token, or null when it is not one hrx issued and still honours:
     * bad signature or claims, expired, revoked (a newer token of the same connection) or unknown.
     * Only the session exchange uses it: the token is no credential of any other endpoint.
     */
    verify,
  };
}
