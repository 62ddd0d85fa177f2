/**
 * SDK token and the Connect flow (interface.md "Generate SDK token", "SDK token result";
 * decisions §4, §8).
 *
 * - {@link SdkService.issueToken}: resolves the client org (remote_org_id → private e-mail domain
 *   → org_name), makes sure the user and a `pending` connection requesting the flagged data
 *   points exist, and signs a 1-hour Connect-only JWT (see ./token.ts) recorded by its `jti`.
 * - {@link SdkService.verify}: the authenticator's check of `Authorization: Bearer <token>` on the
 *   Connect endpoints: signature, claims, and a live (unrevoked, unexpired) `sdk_tokens` row.
 * - The Connect session: what the HR admin sees, HRMS credentials (through the setup service),
 *   approval with optional points opted in or out, or rejection — connection changes through the
 *   connection service, so every API process's connection cache is cleared.
 */
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, type JSONWebKeySet, type CryptoKey, type KeyObject } from 'jose';
import type { ConnectGrant, Principal } from '../auth/principal';
import { dataPointLists, requestSplit, type ConnectionService } from '../connections/service';
import type { Connection } from '../db/entities';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { OrgService } from '../orgs/service';
import type { ClientMatch } from '../orgs/store';
import type { HrmsSetupInput, SetupConfigResult, SetupService } from '../setup/service';
import type { DataModelFlags } from './flags';
import type { SdkStore } from './store';
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

/** interface.md "SDK token result". */
export interface SdkTokenResult {
  org_id: string;
  access_token: string;
  exp: number;
  corporate_reference_data: Record<string, unknown>;
}

/** The three data point lists of a connection (decisions §4). */
export interface DataPointLists {
  shared_data_points: string[];
  not_shared_data_points: string[];
  not_requested_data_points: string[];
}

/** What the Connect page shows (`GET /api/sdk/connect/`). */
export interface ConnectSession extends DataPointLists {
  connection_id: string;
  status: string;
  vendor: { org_id: string; org_name: string };
  org: { org_id: string; org_name: string; invite_status: string };
  user: { email: string; fullname: string };
  required_data_points: string[];
  optional_data_points: string[];
  /** `supported`: the connectors to choose from; `configured`: the org's `hrms_id` or null; `entered`: credentials stored in this session. */
  hrms: { supported: string[]; configured: string | null; entered: boolean };
}

/** The answer to a decision. */
export interface ConnectOutcome extends DataPointLists {
  connection_id: string;
  status: string;
}

export interface SdkServiceDeps {
  store: SdkStore;
  orgs: OrgService;
  connections: ConnectionService;
  setup: SetupService;
  /** `hrms_id`s of the connectors (src/hrms/registry.ts). */
  supportedHrms: readonly string[];
  /** Lower-cased common e-mail domains (config `HRX_COMMON_EMAIL_DOMAINS`). */
  commonEmailDomains: readonly string[];
  /** The service's current RS256 signing key (decisions §9). */
  signingKey: () => Promise<{ kid: string; privateKey: CryptoKey | KeyObject }>;
  /** The service JWKS; `reload` drops the process's key cache first. */
  jwks: (opts?: { reload?: boolean }) => Promise<JSONWebKeySet>;
  log: Logger;
}

export type SdkService = ReturnType<typeof createSdkService>;

const listsOf = (c: Connection): DataPointLists => {
  const l = dataPointLists(c);
  return { shared_data_points: l.shared, not_shared_data_points: l.notShared, not_requested_data_points: l.notRequested };
};

/** Builds the SDK service. */
export function createSdkService(deps: SdkServiceDeps) {
  const common = new Set(deps.commonEmailDomains);
  let lastReload = 0;

  function grantOf(p: Principal): ConnectGrant {
    // Only the sdkToken credential yields a grant; a route wired to another kind is a bug.
    if (!p.connect) throw new Error('Connect endpoint without an SDK token principal');
    return p.connect;
  }

  /** The grant's connection, which must still be pending for any change. */
  async function pendingConnection(g: ConnectGrant): Promise<Connection> {
    const c = await deps.connections.get(g.connectionId);
    if (!c) throw new AppError('NOT_FOUND');
    if (c.status === 'terminated') throw new AppError('CONNECTION_ALREADY_TERMINATED');
    if (c.status !== 'pending') throw new AppError('CONNECTION_DECIDED', { params: { status: c.status } });
    return c;
  }

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

  /** See the `verify` member: the principal of a token hrx issued and still honours, else null. */
  async function verify(token: string): Promise<Principal | null> {
    const claims = await verifyConnectToken(token, await jwksFor(token));
    if (!claims) return null;
    const row = await deps.store.findLive(claims.jti);
    if (!row || row.expiresAt.getTime() <= Date.now() || row.connectionId !== claims.connection_id
      || row.userId !== claims.sub || row.clientOrgUuid !== claims.client_org) return null;
    return {
      orgId: row.clientOrgId, orgUuid: row.clientOrgUuid, isVendor: false, isClient: true, credentialId: row.jti,
      connect: { jti: row.jti, connectionId: row.connectionId, vendorOrgId: row.vendorOrgId, userId: row.userId, hrmsConfigured: row.hrmsConfiguredAt !== null },
    };
  }

  return {
    /**
     * Issues an SDK token for the calling vendor (decisions §8). Throws AUTH_INVALID when the
     * key is not a vendor org's, VALIDATION when the request resolves to an org that is not a
     * client org or to the caller itself.
     */
    async issueToken(vendor: Principal, req: SdkTokenRequest): Promise<SdkTokenResult> {
      if (!vendor.isVendor) throw new AppError('AUTH_INVALID');
      const email = req.email.toLowerCase();
      const domain = email.slice(email.lastIndexOf('@') + 1);
      let match: ClientMatch;
      let field: string;
      if (req.remote_org_id !== undefined) [match, field] = [{ remoteOrgId: req.remote_org_id }, 'remote_org_id'];
      else if (!common.has(domain)) [match, field] = [{ emailDomain: domain }, 'email'];
      else [match, field] = [{ orgNameKey: req.org_name.toLowerCase() }, 'org_name'];
      const { org, created } = await deps.orgs.resolveClient(match, {
        name: req.org_name,
        ...('emailDomain' in match ? { emailDomain: domain } : {}),
        ...(req.remote_org_id !== undefined ? { remoteOrgId: req.remote_org_id } : {}),
      });
      if (!org.isClient || org.id === vendor.orgId) {
        throw AppError.validation([{ field, message: 'does not resolve to a client organisation' }]);
      }
      const user = await deps.store.ensureUser(org.id, email, req.fullname);
      const connection = await deps.connections.ensureRequested(vendor.orgId, org.id, req.data_model_flags ?? null);
      const jti = randomUUID();
      const { token, iat, exp } = await signConnectToken(
        { sub: user.id, vendor_org: vendor.orgUuid, client_org: org.uuid, connection_id: connection.id, jti },
        await deps.signingKey(),
      );
      await deps.store.issue({
        jti, connectionId: connection.id, vendorOrgId: vendor.orgId, clientOrgId: org.id, userId: user.id,
        issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000),
      });
      deps.log.info({ vendorOrgId: vendor.orgId, clientOrgId: org.id, orgCreated: created, connectionId: connection.id, jti }, 'sdk token issued');
      return { org_id: org.uuid, access_token: token, exp: SDK_TOKEN_TTL_SEC, corporate_reference_data: req.corporate_reference_data ?? {} };
    },

    /**
     * The principal of an SDK token, or null when it is not one hrx issued and still honours:
     * bad signature or claims, expired, revoked (a newer token of the same connection) or unknown.
     */
    verify,

    /** What the page shows of the session (see {@link ConnectSession}). Throws NOT_FOUND. */
    async session(p: Principal): Promise<ConnectSession> {
      const g = grantOf(p);
      const c = await deps.connections.get(g.connectionId);
      const [vendor, org, user, configured] = await Promise.all([
        deps.orgs.byId(g.vendorOrgId), deps.orgs.byId(p.orgId), deps.store.findUser(g.userId), deps.setup.configuredHrms(p.orgId),
      ]);
      if (!c || !vendor || !org || !user) throw new AppError('NOT_FOUND');
      const { required, optional } = requestSplit(c.dataModelFlags);
      return {
        connection_id: c.id, status: c.status,
        vendor: { org_id: vendor.uuid, org_name: vendor.orgName },
        org: { org_id: org.uuid, org_name: org.orgName, invite_status: org.inviteStatus },
        user: { email: user.email, fullname: user.fullName },
        required_data_points: required, optional_data_points: optional,
        hrms: { supported: [...deps.supportedHrms], configured, entered: g.hrmsConfigured },
        ...listsOf(c),
      };
    },

    /**
     * Stores the HRMS credentials the HR admin entered (checked against the HRMS, stored
     * encrypted, a sync queued: the setup service). Throws 409 when the connection is decided,
     * the setup service's 400s otherwise.
     */
    async configureHrms(p: Principal, input: HrmsSetupInput): Promise<SetupConfigResult> {
      const g = grantOf(p);
      await pendingConnection(g);
      const result = await deps.setup.configureForOrg(p.orgId, input);
      await deps.store.markHrmsConfigured(g.jti);
      deps.log.info({ clientOrgId: p.orgId, connectionId: g.connectionId, hrmsId: input.hrms_id }, 'connect: hrms configured');
      return result;
    },

    /**
     * Approves the connection: required points and `opted_in` shared, the other optional points
     * not shared (an optional point in neither list is opted out); the org's invite accepted.
     * Throws 409 (decided), VALIDATION (credentials not entered in this session, a name that is
     * not an optional point of this connection, a point in both lists).
     */
    async approve(p: Principal, choice: { opted_in: string[]; opted_out: string[] }): Promise<ConnectOutcome> {
      const g = grantOf(p);
      const c = await pendingConnection(g);
      if (!g.hrmsConfigured) throw AppError.validation([{ field: 'hrms', message: 'enter the HRMS credentials before approving' }]);
      const optional = new Set(requestSplit(c.dataModelFlags).optional);
      for (const list of ['opted_in', 'opted_out'] as const) {
        choice[list].forEach((name, i) => {
          if (!optional.has(name)) throw AppError.validation([{ field: `${list}.${i}`, message: 'not an optional data point of this connection' }]);
        });
      }
      const both = choice.opted_out.findIndex((n) => choice.opted_in.includes(n));
      if (both >= 0) throw AppError.validation([{ field: `opted_out.${both}`, message: 'also opted in' }]);
      const done = await deps.connections.decideInConnect(c.id, c.dataModelFlags, { to: 'approved', optedIn: choice.opted_in });
      await deps.orgs.markInviteAccepted(p.orgId);
      deps.log.info({ clientOrgId: p.orgId, connectionId: c.id }, 'connect: connection approved');
      return { connection_id: done.id, status: done.status, ...listsOf(done) };
    },

    /** Rejects the connection. Throws 409 when it is decided already. */
    async reject(p: Principal): Promise<ConnectOutcome> {
      const g = grantOf(p);
      const c = await pendingConnection(g);
      const done = await deps.connections.decideInConnect(c.id, c.dataModelFlags, { to: 'rejected' });
      deps.log.info({ clientOrgId: p.orgId, connectionId: c.id }, 'connect: connection rejected');
      return { connection_id: done.id, status: done.status, ...listsOf(done) };
    },

    /** The names the Connect page renders for `token`, or null when the token is not honoured. */
    async page(token: string): Promise<{ vendorName: string; orgName: string } | null> {
      const p = await verify(token);
      if (!p?.connect) return null;
      const [vendor, org] = await Promise.all([deps.orgs.byId(p.connect.vendorOrgId), deps.orgs.byId(p.orgId)]);
      return vendor && org ? { vendorName: vendor.orgName, orgName: org.orgName } : null;
    },
  };
}
