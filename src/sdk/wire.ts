/** Wiring of the SDK (Connect) feature (see `context.ts`). */
import type { AuthFailureGuard } from '../auth/failure-guard';
import { operatorContact } from '../config';
import type { ConnectionService } from '../connections/service';
import type { ServiceKeyring } from '../external/keyring';
import { hrmsProduct, type HrmsProductInfo } from '../hrms/products';
import { SUPPORTED_HRMS } from '../hrms/registry';
import type { Infra } from '../infra';
import type { OrgService } from '../orgs/service';
import type { SetupService } from '../setup/service';
import { createSmtpMailer } from '../mail/mailer';
import { createConnectStore, type ConnectStore } from './connect-store';
import { productView } from './connect-view';
import { createEmailCodeStore } from './email-code-store';
import { createSdkService } from './service';
import { createSdkStore } from './store';

/** A supported connector without an entry in src/hrms/products.ts: its id and the fields of docs/behaviour.md "Sync". */
const genericProduct = (hrmsId: string): HrmsProductInfo => ({ ...hrmsProduct('reference')!, hrmsId, displayName: hrmsId });

/**
 * Builds the SDK token store (`store`), the Connect session store (`sessions`) and the SDK
 * service. Takes the org, connection and setup services (Connect resolves the employer's org,
 * requests the connection and saves the HRMS setup) and the service keyring (SDK tokens are
 * signed with the service's `sig` key; the JWKS is reloaded on an unknown kid) and the
 * failed-authentication guard, if any (session exchange and proof (b), docs/api.md "Credentials").
 */
export function wireSdk(
  infra: Infra,
  deps: {
    orgs: OrgService;
    connections: ConnectionService;
    setup: SetupService;
    keyring: ServiceKeyring;
    failures: AuthFailureGuard | undefined;
    /** The Connect sessions' store, when the context built it first (see context.ts). */
    sessions?: ConnectStore;
  },
) {
  const { keyring } = deps;
  const store = createSdkStore(infra.db.orm, infra.cipher, infra.blindIndexKeys);
  const sessions = deps.sessions ?? createConnectStore(infra.db.orm);
  const service = createSdkService({
    store,
    transactor: infra.transactor,
    creationsPerDay: infra.config.HRX_SDK_CREATIONS_PER_DAY,
    sessions,
    orgs: deps.orgs,
    connections: deps.connections,
    setup: deps.setup,
    log: infra.log,
    failures: deps.failures,
    supportedHrms: SUPPORTED_HRMS,
    commonEmailDomains: infra.config.HRX_COMMON_EMAIL_DOMAINS,
    connect: {
      products: SUPPORTED_HRMS.map((id) => productView(hrmsProduct(id) ?? genericProduct(id))),
      codes: createEmailCodeStore(infra.db.orm),
      // loadConfig refuses HRX_SMTP_URL without HRX_SMTP_FROM.
      mailer: infra.config.HRX_SMTP_URL ? createSmtpMailer({ url: infra.config.HRX_SMTP_URL, from: infra.config.HRX_SMTP_FROM ?? '' }) : null,
      emailCodeKey: infra.derivedKey('connect-email-code'),
      operator: { name: infra.config.HRX_OPERATOR_NAME, contact: operatorContact(infra.config) },
    },
    signingKey: () => keyring.signingKey(),
    jwks: async (o) => {
      if (o?.reload) keyring.invalidate();
      return keyring.jwks();
    },
  });
  return { service, store, sessions };
}
