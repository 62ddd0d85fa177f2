/** Wiring of the orgs feature (see `context.ts`). */
import type { RevocationFeed } from '../auth/revocations';
import type { ConnectionStore } from '../connections/store';
import type { Tx } from '../db/tx';
import type { Infra } from '../infra';
import { createOrgListStore } from './list-store';
import { createOrgListing } from './list-service';
import { createOrgService } from './service';
import { createOrgStore } from './store';

/**
 * Builds the org store and service. Takes the connection store (an org's profile is visible to
 * the orgs it is connected to), the revocation feed (a revoked API key is announced to every
 * process) and what withdraws the proofs of a replaced app_secret.
 */
export function wireOrgs(
  infra: Infra,
  deps: {
    connections: Pick<ConnectionStore, 'connectedAs'>;
    revocations: RevocationFeed;
    /** Withdraws what an org's replaced app_secret proved (the Connect sessions' proof of control). */
    onAppSecretRotated?: (orgId: number, tx: Tx) => Promise<void>;
    /** Revokes what a revoked API key issued (the SDK tokens, and with them their Connect sessions). */
    onApiKeyRevoking?: (keyId: string, tx: Tx) => Promise<void>;
  },
) {
  const { config } = infra;
  const store = createOrgStore(infra.db.orm);
  const publicUrl = (config.HRX_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`) + config.HRX_BASE_PATH;
  const service = createOrgService({
    orgs: store,
    apiKeyPepper: infra.apiKeyPeppers[0]!,
    defaultLogoUrl: `${publicUrl}/static/org-logo.svg`,
    connectedAs: (a, b) => deps.connections.connectedAs(a, b),
    secretPeppers: infra.secretPeppers,
    onApiKeyRevoked: (keyId) => deps.revocations.publish(keyId),
    onAppSecretRotated: deps.onAppSecretRotated,
    onApiKeyRevoking: deps.onApiKeyRevoking,
    transactor: infra.transactor,
  });
  // The operator's list (`hrx org list`).
  const listing = createOrgListing(createOrgListStore(infra.db.orm));
  return { service, store, listing };
}
