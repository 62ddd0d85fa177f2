/**
 * Setup config (docs/api.md "Setup config", "Credentials"): authenticates the client org by
 * its application credentials, checks the HRMS credentials with one call, stores them encrypted,
 * and queues a full sync at once.
 */
import { createHash, timingSafeEqual, type KeyObject } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { AppError } from '../errors';
import { HrmsError, HrmsFieldError, type HrmsAccess, type HrmsConnectorDefinition, type HrmsCredentials, type RequestBudget } from '../hrms/connector';
import { isGrantType, unreachable, type GrantType } from '../hrms/grant-types';
import { BudgetWaitExceeded } from '../hrms/live-source';
import { SUPPORTED_HRMS, type ConnectorLookup } from '../hrms/registry';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { checkAppCredentials } from '../orgs/app-credentials';
import type { OrgStore } from '../orgs/store';
import type { SyncTrigger } from '../sync/queue';
import type { Establishment, HrmsConfigStore } from './store';

/** The validated request body. */
export interface SetupConfigInput {
  client_id: string;
  client_secret: string;
  hrms_id: string;
  access_credentials: HrmsCredentials;
  api_configs?: { api_id: string; access_credentials: HrmsCredentials }[] | undefined;
}

/** The `data` of the response (docs/api.md "Setup config"). */
export interface SetupConfigResult {
  org_id: string;
  hrms_id: string;
  configured_apis: string[];
  next_sync_at: string;
}

export interface SetupServiceDeps {
  orgs: OrgStore;
  hrmsConfigs: HrmsConfigStore;
  connectorFor: ConnectorLookup;
  /** Queues a full sync now and refreshes the org's schedule. */
  syncNow: (orgId: number, trigger: SyncTrigger) => Promise<void>;
  refreshSchedule: (orgId: number) => Promise<void>;
  /** Timeout of the credential check, ms (docs/behaviour.md "Sync": 10 s). */
  verifyTimeoutMs?: number;
  /**
   * The tenant's shared request budget (docs/behaviour.md "Live reads and the HRMS budget"): the
   * credential check's calls are the tenant's calls too, each counted until answered, so the sync
   * setup queues never makes the HRMS see one call over its limit. The budget waits a bounded
   * time (`BudgetWaitExceeded` past it: the check answers 503). Absent: the check is not counted
   * (tests of the service alone).
   */
  budgetFor?: (hrmsId: string, tenant: string, limit: { requests: number; windowMs: number }) => RequestBudget;
  /** Keys of the app_secret keyed hash (context.ts `secretPeppers`): a wrong secret costs no scrypt. */
  secretPeppers?: KeyObject[];
  /** The failed-authentication limit of docs/behaviour.md "Failed authentications" on `client_id` / `client_secret`; absent: none. */
  failures?: AuthFailureGuard;
  /**
   * Announces that connections changed state (the connection service's access-change
   * announcement: every API process clears its connection access cache). Called after a
   * replacement sent connections back to pending (squat-then-replace, docs/connect.md "Reference: the SDK token and the Connect endpoints").
   */
  onAccessChange?: () => Promise<void>;
}

/** What is configured for an org: the HRMS and its access credentials (no application credentials). */
export type HrmsSetupInput = Omit<SetupConfigInput, 'client_id' | 'client_secret'>;

/** The connector's view of a setup input: its main credentials and `api_configs`. */
function accessOf(input: HrmsSetupInput): HrmsAccess {
  return { credentials: input.access_credentials, apiConfigs: input.api_configs ?? [] };
}

/** Whether `host` is an http or https URL (the only schemes hrx calls an HRMS with). */
function isHttpUrl(host: string): boolean {
  try {
    const { protocol } = new URL(host);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The same HRMS: same `hrms_id` and the same host URL as WHATWG URL parsing normalises it
 * (scheme and host lower-cased, default port dropped, dot segments resolved), trailing slashes
 * ignored.
 */
export function sameHrms(a: { hrmsId: string; host: string }, b: { hrmsId: string; host: string }): boolean {
  const norm = (u: string) => {
    try {
      return new URL(u).href.replace(/\/+$/, '');
    } catch {
      return u;
    }
  };
  return a.hrmsId === b.hrmsId && norm(a.host) === norm(b.host);
}

/**
 * A fixed-length digest of the secret part of HRMS credentials, by grant type, for a
 * constant-time comparison (docs/connect.md "Reference: the SDK token and the Connect endpoints" proof (a)). For the reference grants, fields of the other
 * grant type are ignored; the products' grants (docs/hrms/connectors.md) use every field they may carry.
 */
function credentialDigest(c: HrmsCredentials): Buffer {
  return createHash('sha256')
    .update(JSON.stringify(credentialMaterial(c)))
    .digest();
}

/** The secret fields of `c` by its grant type (src/hrms/grant-types.ts), exhaustively: a grant type added there fails `tsc` here until it is handled. */
function credentialMaterial(c: HrmsCredentials): string[] {
  const all = [c.grant_type, c.client_id ?? '', c.client_secret ?? '', c.api_key ?? ''];
  if (!isGrantType(c.grant_type)) return all;
  const grant: GrantType = c.grant_type;
  switch (grant) {
    case 'api_key':
      return [grant, c.api_key ?? ''];
    case 'client_credentials':
      return [grant, c.client_id ?? '', c.client_secret ?? ''];
    case 'refresh_token':
    case 'kekaapi':
    case 'basic':
    case 'saml2_bearer':
      return all;
    default:
      return unreachable(grant);
  }
}

/** The outcome of the Connect flow's HRMS step for a client org (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
export type ConnectHrmsOutcome = { stored: SetupConfigResult } | { established: true };

export type SetupService = ReturnType<typeof createSetupService>;

/** The reason of an `hrms_host` whose scheme is not http(s): read from the text alone, it tells nothing of the network. */
const HOST_NOT_ALLOWED_REASON = 'host not allowed';

/**
 * The reason of a host the host policy refuses, and of one that did not answer: one wording, so
 * that whoever may set the HRMS host cannot tell a refused host or port from a closed one
 * (docs/behaviour.md "HRMS hosts"); the operator's log names the refusal.
 */
const UNREACHABLE_REASON = 'the HRMS could not be reached';

/**
 * The reason of a failed credential check, in the words of docs/behaviour.md "Setup config":
 * what the HRMS answered when an answer came (its status and the standard phrase of that status,
 * RFC 9110 §15; never the HRMS's own text, which hrx does not echo), "could not be reached" only
 * when none came (refused, reset or timed-out connections). `auth` keeps its one wording, which
 * the Connect page and the products' docs rely on.
 */
export function rejectionReason(err: unknown): string {
  if (!(err instanceof HrmsError)) return UNREACHABLE_REASON;
  if (err.kind === 'auth') return 'the HRMS refused the credentials';
  if (err.kind === 'host_not_allowed') return UNREACHABLE_REASON;
  if (err.status !== undefined) {
    const answered = `the HRMS answered ${err.status}${STATUS_CODES[err.status] ? ` ${STATUS_CODES[err.status]}` : ''}`;
    // A success status with a body hrx cannot read (not JSON, no token in it).
    return err.status >= 200 && err.status < 300 ? `${answered} with a body hrx could not read` : answered;
  }
  // An answer came but was unusable before a status could be kept (past the size cap, a link to another host).
  if (err.kind === 'bad_response') return 'the HRMS answered with a body hrx could not read';
  return UNREACHABLE_REASON;
}

/** Builds the setup service. */
export function createSetupService(deps: SetupServiceDeps) {
  /** The input's connector after the checks of docs/api.md "Setup config" (throws the 400s). */
  function checkInput(input: HrmsSetupInput): HrmsConnectorDefinition {
    const definition = deps.connectorFor(input.hrms_id);
    if (!definition) throw AppError.validation([{ field: 'hrms_id', message: `unsupported HRMS "${input.hrms_id}": one of ${SUPPORTED_HRMS.join(', ')}` }]);
    const problems = definition.checkCredentials(accessOf(input));
    if (problems.length) throw AppError.validation(problems);
    // Another scheme is refused as the host policy refuses hosts (the connector would too).
    const hosts = [input.access_credentials, ...(input.api_configs ?? []).map((a) => a.access_credentials)].map((c) => c.hrms_host);
    if (!hosts.every(isHttpUrl)) throw new AppError('HRMS_CREDENTIALS_REJECTED', { params: { reason: HOST_NOT_ALLOWED_REASON } });
    return definition;
  }

  /**
   * One credential check call (10 s, no retry) within the tenant's budget; throws
   * HRMS_CREDENTIALS_REJECTED with the reason, or UNAVAILABLE with `Retry-After` when the budget
   * had no room in time (the HRMS was not asked: nothing is said of the credentials).
   */
  async function verifyWithHrms(definition: HrmsConnectorDefinition, access: HrmsAccess): Promise<void> {
    try {
      const budget = deps.budgetFor?.(definition.hrmsId, definition.tenantOf(access), definition.budget);
      await definition.create(access, { timeoutMs: deps.verifyTimeoutMs ?? 10_000, retries: 0, ...(budget ? { budget } : {}) }).verifyCredentials();
    } catch (err) {
      if (err instanceof BudgetWaitExceeded)
        throw new AppError('UNAVAILABLE', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) }, cause: err });
      // A key of its own refused (Darwinbox's payroll key): name its field, as the Connect page marks it.
      if (err instanceof HrmsFieldError)
        throw new AppError('VALIDATION', { fieldErrors: [{ field: err.field, message: err.message }], message: `${err.field}: ${err.message}`, cause: err });
      throw new AppError('HRMS_CREDENTIALS_REJECTED', { params: { reason: rejectionReason(err) }, cause: err });
    }
  }

  /** Refreshes the schedule, queues a sync and answers (docs/api.md "Setup config"). */
  async function afterStore(org: { id: number; uuid: string }, input: HrmsSetupInput): Promise<SetupConfigResult> {
    const apiConfigs = input.api_configs ?? [];
    await deps.refreshSchedule(org.id);
    await deps.syncNow(org.id, 'setup');
    return {
      org_id: org.uuid,
      hrms_id: input.hrms_id,
      configured_apis: apiConfigs.length ? apiConfigs.map((a) => a.api_id) : ['employees'],
      next_sync_at: new Date().toISOString(),
    };
  }

  /** Checks `input` with the HRMS, stores it in place of the org's configuration and queues a sync (setup-config's path). */
  async function checkAndReplace(
    org: { id: number; uuid: string },
    definition: HrmsConnectorDefinition,
    input: HrmsSetupInput,
    sameTenant = false,
  ): Promise<SetupConfigResult> {
    await verifyWithHrms(definition, accessOf(input));
    const { revoked } = await deps.hrmsConfigs.save({
      orgId: org.id,
      hrmsId: input.hrms_id,
      credentials: input.access_credentials,
      apiConfigs: input.api_configs ?? [],
      sameTenant,
    });
    // Approvals that rested on a Connect-entered configuration this one replaced are gone.
    if (revoked.length > 0) await deps.onAccessChange?.();
    return afterStore(org, input);
  }

  async function clientOrg(orgId: number) {
    const org = await deps.orgs.findById(orgId);
    if (!org?.isClient) throw new AppError('NOT_FOUND');
    return org;
  }

  return {
    /**
     * `POST setup-config`: checks the client org's app credentials (through the failed-authentication
     * guard), the input and the HRMS credentials with the HRMS (a refusal: 400
     * `HRMS credentials rejected: <reason>`, {@link rejectionReason}), stores them encrypted and
     * queues a full sync.
     */
    async configure(input: SetupConfigInput, opts: { source?: string } = {}): Promise<SetupConfigResult> {
      // docs/api.md "Credentials": the credentials are a client org's; a vendor-only org has no HRMS to set up.
      const check = async () => {
        const found = await checkAppCredentials(deps.orgs, input.client_id, input.client_secret, deps.secretPeppers);
        return found?.isClient ? found : null;
      };
      const org = deps.failures ? await deps.failures.run({ source: opts.source ?? 'unknown', kind: 'app', presented: input.client_id }, check) : await check();
      if (!org) {
        throw new AppError('CLIENT_CREDENTIALS_INVALID');
      }
      const { client_id: _id, client_secret: _secret, ...setup } = input;
      return checkAndReplace(org, checkInput(setup), setup);
    },

    /**
     * The Connect flow's "update credentials" step (docs/connect.md "Updating refused
     * credentials"): while the org's HRMS refuses its stored credentials ({@link reauthNeeded}),
     * new ones for the SAME `hrms_id` and HRMS tenant (`hrms_host`, every `api_configs` host too)
     * are checked with the HRMS and replace the stored ones exactly as setup-config does (a sync
     * queued at once). The caller has checked proof of control. Throws VALIDATION
     * (`hrms_id`/`access_credentials.hrms_host`: another HRMS or tenant; `hrms`: the org no
     * longer needs new credentials), NOT_FOUND, and the 400s of {@link configure}. Unlike setup-config,
     * approvals given on a Connect-entered configuration stay: the tenant they rested on is unchanged.
     */
    async reauthorise(orgId: number, input: HrmsSetupInput): Promise<SetupConfigResult> {
      const org = await clientOrg(orgId);
      const definition = checkInput(input);
      const [current, needed] = await Promise.all([deps.hrmsConfigs.load(org.id), deps.hrmsConfigs.reauthNeeded(org.id)]);
      if (!current || !needed) throw AppError.validation([{ field: 'hrms', message: 'this organisation does not need new HRMS credentials' }]);
      if (input.hrms_id !== current.hrmsId) throw AppError.validation([{ field: 'hrms_id', message: `must be the HRMS already set up (${current.hrmsId})` }]);
      const stored = { hrmsId: current.hrmsId, host: current.credentials.hrms_host };
      const hosts = [input.access_credentials, ...(input.api_configs ?? []).map((a) => a.access_credentials)].map((c) => c.hrms_host);
      // Another tenant would redirect the employer's sync (and its employees' data) to someone else's HRMS.
      if (!hosts.every((host) => sameHrms(stored, { hrmsId: input.hrms_id, host })))
        throw AppError.validation([{ field: 'access_credentials.hrms_host', message: 'must be the HRMS address already set up for this organisation' }]);
      // The tenant stays, so whoever entered it (a Connect session) stays its record and its approvals stay (the store's `sameTenant`).
      return checkAndReplace(org, definition, input, true);
    },

    /** Whether org `orgId` waits for new HRMS credentials, and since when (see the store's `reauthNeeded`). */
    reauthNeeded: (orgId: number) => deps.hrmsConfigs.reauthNeeded(orgId),

    /**
     * The Connect flow's HRMS step (docs/connect.md "The session") for client org `orgId` in Connect session
     * `sessionId`. An established org is answered `{established: true}` at once: nothing is
     * stored and its HRMS is not called (the caller compares with {@link proveHrms}). A new org's
     * credentials are checked with the HRMS, then stored, atomically with a last check that the
     * org is still not established (else `{established: true}` too), and a sync is queued.
     * Throws NOT_FOUND (no such client org) and the 400s of {@link configure}.
     */
    async connectHrms(orgId: number, input: HrmsSetupInput, sessionId: string): Promise<ConnectHrmsOutcome> {
      const org = await clientOrg(orgId);
      const definition = checkInput(input);
      const state = await deps.hrmsConfigs.establishment(org.id);
      if (state.established) return { established: true };
      await verifyWithHrms(definition, accessOf(input));
      const stored = await deps.hrmsConfigs.saveIfUnestablished(
        { orgId: org.id, hrmsId: input.hrms_id, credentials: input.access_credentials, apiConfigs: input.api_configs ?? [] },
        sessionId,
      );
      if (!stored) return { established: true };
      return { stored: await afterStore(org, input) };
    },

    /**
     * Proof of control (a) (docs/connect.md "Reference: the SDK token and the Connect endpoints"): whether `input` names the org's configured `hrms_id`
     * and host, carries credentials equal to the stored ones (SHA-256 digests compared with
     * `timingSafeEqual`), and the HRMS still accepts them. `api_configs` are not compared (the
     * stored ones are used for the check). Returns the compared configuration's `version` (the
     * proof holds only while it is stored), or null for any mismatch, for an org without a
     * configuration, and when the HRMS refuses the credentials; throws HRMS_CREDENTIALS_REJECTED
     * when the HRMS could not be reached (not a failed proof), VALIDATION for malformed input.
     */
    async proveHrms(orgId: number, input: HrmsSetupInput): Promise<{ hrmsConfigVersion: string } | null> {
      const definition = checkInput(input);
      const current = await deps.hrmsConfigs.load(orgId);
      const given = credentialDigest(input.access_credentials);
      const stored = current ? credentialDigest(current.credentials) : createHash('sha256').update('\0no configuration').digest();
      const credsEqual = timingSafeEqual(given, stored);
      if (
        !current ||
        !credsEqual ||
        !sameHrms({ hrmsId: current.hrmsId, host: current.credentials.hrms_host }, { hrmsId: input.hrms_id, host: input.access_credentials.hrms_host })
      ) {
        return null;
      }
      try {
        // The stored credentials (equal to the given ones), against the stored host.
        await verifyWithHrms(definition, { credentials: current.credentials, apiConfigs: current.apiConfigs });
      } catch (err) {
        if (err instanceof AppError && (err.cause as HrmsError | undefined)?.kind === 'auth') return null;
        throw err;
      }
      return { hrmsConfigVersion: current.version };
    },

    /** Whether `orgId` is established (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
    establishment: (orgId: number): Promise<Establishment> => deps.hrmsConfigs.establishment(orgId),

    /** The Connect session that entered the org's current configuration, or null (none, or setup-config's). */
    async configSessionId(orgId: number): Promise<string | null> {
      return (await deps.hrmsConfigs.load(orgId))?.connectSessionId ?? null;
    },

    /** The `hrms_id` configured for `orgId`, or null (never the credentials). */
    async configuredHrms(orgId: number): Promise<string | null> {
      return (await deps.hrmsConfigs.load(orgId))?.hrmsId ?? null;
    },
  };
}
