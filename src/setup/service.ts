/**
 * Setup config (interface.md "Setup config"; decisions §2, §5): authenticates the client org by
 * its application credentials, checks the HRMS credentials with one call, stores them encrypted,
 * and queues a full sync at once.
 */
import type { KeyObject } from 'node:crypto';
import { AppError } from '../errors';
import { HrmsError, type ConnectorFactory, type HrmsCredentials } from '../hrms/connector';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { checkAppCredentials } from '../orgs/app-credentials';
import type { OrgStore } from '../orgs/store';
import type { HrmsConfigStore } from './store';

/** The validated request body. */
export interface SetupConfigInput {
  client_id: string;
  client_secret: string;
  hrms_id: string;
  access_credentials: HrmsCredentials;
  api_configs?: { api_id: string; access_credentials: HrmsCredentials }[] | undefined;
}

/** The `data` of the response (decisions §5). */
export interface SetupConfigResult {
  org_id: string;
  hrms_id: string;
  configured_apis: string[];
  next_sync_at: string;
}

export interface SetupServiceDeps {
  orgs: OrgStore;
  configs: HrmsConfigStore;
  connectorFor: (hrmsId: string) => ConnectorFactory | undefined;
  /** Queues a full sync now and refreshes the org's schedule. */
  syncNow: (orgId: number, trigger: string) => Promise<void>;
  refreshSchedule: (orgId: number) => Promise<void>;
  /** Timeout of the credential check, ms (decisions §5: 10 s). */
  verifyTimeoutMs?: number;
  /** Keys of the app_secret keyed hash (context.ts `secretPeppers`): a wrong secret costs no scrypt. */
  secretPeppers?: KeyObject[];
  /** The failed-authentication limit of decisions §2 on `client_id` / `client_secret`; absent: none. */
  failures?: AuthFailureGuard;
}

/** Checks the grant-specific fields of decisions §5; returns the first problem or null. */
export function missingGrantField(c: HrmsCredentials, path: string): { field: string; message: string } | null {
  if (c.grant_type === 'client_credentials') {
    if (!c.client_id) return { field: `${path}.client_id`, message: 'required for grant_type client_credentials' };
    if (!c.client_secret) return { field: `${path}.client_secret`, message: 'required for grant_type client_credentials' };
  } else if (c.grant_type === 'api_key') {
    if (!c.api_key) return { field: `${path}.api_key`, message: 'required for grant_type api_key' };
  } else {
    return { field: `${path}.grant_type`, message: 'must be client_credentials or api_key' };
  }
  return null;
}

/** What is configured for an org: the HRMS and its access credentials (no application credentials). */
export type HrmsSetupInput = Omit<SetupConfigInput, 'client_id' | 'client_secret'>;

/** Whether `host` is an http or https URL (the only schemes hrx calls an HRMS with). */
function isHttpUrl(host: string): boolean {
  try {
    const { protocol } = new URL(host);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The same HRMS: same `hrms_id` and the same host URL (trailing slashes ignored). */
function sameHrms(a: { hrmsId: string; host: string }, b: { hrmsId: string; host: string }): boolean {
  const norm = (u: string) => {
    try {
      return new URL(u).href.replace(/\/+$/, '');
    } catch {
      return u;
    }
  };
  return a.hrmsId === b.hrmsId && norm(a.host) === norm(b.host);
}

export type SetupService = ReturnType<typeof createSetupService>;

/** The reason of a refused host: never its resolved addresses, nor which rule refused it. */
const HOST_NOT_ALLOWED_REASON = 'host not allowed';

/** Builds the setup service. */
export function createSetupService(deps: SetupServiceDeps) {
  /**
   * Checks and stores `input` for `org`, then queues a sync. `keepValidHrms`: an org whose stored
   * configuration is valid may only be given credentials of that same HRMS (Connect flow).
   */
  async function store(org: { id: number; uuid: string }, input: HrmsSetupInput, opts: { keepValidHrms?: boolean } = {}): Promise<SetupConfigResult> {
    const factory = deps.connectorFor(input.hrms_id);
    if (!factory) throw AppError.validation([{ field: 'hrms_id', message: `unsupported HRMS "${input.hrms_id}"` }]);
    const problem = missingGrantField(input.access_credentials, 'access_credentials')
      ?? (input.api_configs ?? []).map((a, i) => missingGrantField(a.access_credentials, `api_configs.${i}.access_credentials`)).find(Boolean)
      ?? null;
    if (problem) throw AppError.validation([problem]);
    // Another scheme is refused as the host policy refuses hosts (the connector would too).
    const hosts = [input.access_credentials, ...(input.api_configs ?? []).map((a) => a.access_credentials)].map((c) => c.hrms_host);
    if (!hosts.every(isHttpUrl)) throw new AppError('HRMS_CREDENTIALS_REJECTED', { params: { reason: HOST_NOT_ALLOWED_REASON } });
    if (opts.keepValidHrms) {
      const current = await deps.configs.load(org.id);
      // Checked before the HRMS is contacted: credentials typed in the Connect page go nowhere
      // but the HRMS the org already syncs from.
      if (current?.valid && !sameHrms({ hrmsId: current.hrmsId, host: current.credentials.hrms_host }, { hrmsId: input.hrms_id, host: input.access_credentials.hrms_host })) {
        throw AppError.validation([{ field: 'access_credentials.hrms_host', message: 'must be the HRMS this organisation already syncs from' }]);
      }
    }
    try {
      await factory(input.access_credentials, { timeoutMs: deps.verifyTimeoutMs ?? 10_000, retries: 0 }).verifyCredentials();
    } catch (err) {
      const reason = !(err instanceof HrmsError) ? 'the HRMS could not be reached'
        : err.kind === 'auth' ? 'the HRMS refused the credentials'
          : err.kind === 'host_not_allowed' ? HOST_NOT_ALLOWED_REASON
            : `the HRMS could not be reached (${err.kind})`;
      throw new AppError('HRMS_CREDENTIALS_REJECTED', { params: { reason }, cause: err });
    }
    const apiConfigs = input.api_configs ?? [];
    await deps.configs.save({ orgId: org.id, hrmsId: input.hrms_id, credentials: input.access_credentials, apiConfigs });
    await deps.refreshSchedule(org.id);
    await deps.syncNow(org.id, 'setup');
    return {
      org_id: org.uuid,
      hrms_id: input.hrms_id,
      configured_apis: apiConfigs.length ? apiConfigs.map((a) => a.api_id) : ['employees'],
      next_sync_at: new Date().toISOString(),
    };
  }

  return {
    /**
     * Stores a configuration. Throws 401 CLIENT_CREDENTIALS_INVALID, 400 VALIDATION (unknown
     * `hrms_id`, missing grant fields), 400 HRMS_CREDENTIALS_REJECTED (the HRMS said no or could
     * not be reached within the timeout, or its host is not an http(s) URL or is refused by the
     * host policy: `host not allowed`), 429 THROTTLED past the failed-authentication limit of
     * `opts.source` or of `client_id` (decisions §2), whatever the credentials.
     */
    async configure(input: SetupConfigInput, opts: { source?: string } = {}): Promise<SetupConfigResult> {
      // decisions §2: the credentials are a client org's; a vendor-only org has no HRMS to set up.
      const check = async () => {
        const found = await checkAppCredentials(deps.orgs, input.client_id, input.client_secret, deps.secretPeppers);
        return found?.isClient ? found : null;
      };
      const org = deps.failures
        ? await deps.failures.run({ source: opts.source ?? 'unknown', kind: 'app', presented: input.client_id }, check)
        : await check();
      if (!org) {
        throw new AppError('CLIENT_CREDENTIALS_INVALID');
      }
      const { client_id: _id, client_secret: _secret, ...setup } = input;
      return store(org, setup);
    },

    /**
     * Stores an HRMS configuration for client org `orgId` authenticated otherwise (the Connect
     * flow's SDK token, decisions §8): same checks, storage and sync as {@link configure}, and an
     * org whose stored configuration is valid keeps its HRMS (another `hrms_id` or host is a 400
     * validation failure). Throws NOT_FOUND for an unknown org.
     */
    async configureForOrg(orgId: number, input: HrmsSetupInput): Promise<SetupConfigResult> {
      const org = await deps.orgs.findById(orgId);
      if (!org?.isClient) throw new AppError('NOT_FOUND');
      return store(org, input, { keepValidHrms: true });
    },

    /** The `hrms_id` configured for `orgId`, or null (never the credentials). */
    async configuredHrms(orgId: number): Promise<string | null> {
      return (await deps.configs.load(orgId))?.hrmsId ?? null;
    },
  };
}
