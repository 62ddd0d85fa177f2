/** Wiring of the SDK (Connect) feature (see `context.ts`). */
import type { AuthFailureGuard } from '../auth/failure-guard';
import type { ConnectionService } from '../connections/service';
import type { ServiceKeyring } from '../external/keyring';
import { SUPPORTED_HRMS } from '../hrms/registry';
import type { Infra } from '../infra';
import type { OrgService } from '../orgs/service';
import type { SetupService } from '../setup/service';
import { createConnectStore } from './connect-store';
import { createSdkService } from './service';
import { createSdkStore } from './store';

/**
 * Builds the SDK token store (`store`), the Connect session store (`sessions`) and the SDK
 * service. Takes the org, connection and setup services (Connect resolves the employer's org,
 * requests the connection and saves the HRMS setup) and the service keyring (SDK tokens are
 * signed with the service's `sig` key; the JWKS is reloaded on an unknown kid) and the
 * failed-authentication guard, if any (session exchange and proof (b), decisions §2).
 */
export function wireSdk(infra: Infra, deps: {
  orgs: OrgService; connections: ConnectionService; setup: SetupService; keyring: ServiceKeyring; failures: AuthFailureGuard | undefined;
}) {
  const { keyring } = deps;
  const store = createSdkStore(infra.db.orm);
  const sessions = createConnectStore(infra.db.orm);
  const service = createSdkService({
    store, sessions, orgs: deps.orgs, connections: deps.connections, setup: deps.setup, log: infra.log, failures: deps.failures,
    supportedHrms: SUPPORTED_HRMS, commonEmailDomains: infra.config.HRX_COMMON_EMAIL_DOMAINS,
    signingKey: () => keyring.signingKey(),
    jwks: async (o) => {
      if (o?.reload) keyring.invalidate();
      return keyring.jwks();
    },
  });
  return { service, store, sessions };
}
