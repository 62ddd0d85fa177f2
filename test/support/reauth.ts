/**
 * An org whose HRMS refuses its stored credentials (docs/sync.md "Connection health":
 * `needs_reauth`), made the real way for the "update credentials" tests of the Connect flow
 * (docs/connect.md "Updating refused credentials"): setup-config and a good sync against the
 * reference simulator, then the simulator restarts on its port with another secret (the
 * employer's password changed) and a sync on demand is refused.
 */
import { ormQuery, storesOf } from './db';
import type { client, vendor } from './factories';
import { setupBody } from './factories';
import { call, startSim, waitFor, type TestApp } from './harness';
import type { Receiver } from './receiver';

type Sim = Awaited<ReturnType<typeof startSim>>;

/** The simulator's credentials before and after the employer's password change. */
export const OLD = { clientId: 'reauth-client', clientSecret: 'reauth-secret-1' };
export const NEW = { clientId: 'reauth-client', clientSecret: 'reauth-secret-2' };

/** The Connect page's HRMS body (setup-config's without the app credentials) for the reference HRMS at `url`. */
export const hrmsBody = (url: string, creds: { clientId: string; clientSecret: string }) => {
  const { client_id: _i, client_secret: _s, ...body } = setupBody({ org: { appKey: '' }, appSecret: '' }, { url }, creds);
  return body;
};

/** The client secret stored for `orgId` (decrypted), or undefined. */
export const storedSecret = async (app: TestApp, orgId: number) => (await storesOf(app).hrmsConfigs.load(orgId))?.credentials.client_secret;

/** setup-config of client org `c` with OLD at `sim`; throws unless it answers 200. */
async function setupConfig(app: TestApp, c: Awaited<ReturnType<typeof client>>, sim: { url: string }): Promise<void> {
  const setup = await call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(setupBody(c, sim, OLD)),
  });
  if (setup.status !== 200) throw new Error(`setup-config: ${setup.status} ${JSON.stringify(setup.body)}`);
}

/**
 * Client org `c` (an approved connection with `v`, whose events reach `rx` at `path`) set up with
 * OLD at a fresh simulator (by setup-config unless `setUp` does it otherwise) and synced; then the simulator accepts NEW only, the vendor asks for a
 * sync, and the org is `needs_reauth`. Returns the simulator and when the refused run ended (ISO).
 */
export async function needsReauth(
  app: TestApp,
  rx: Receiver,
  path: string,
  v: Awaited<ReturnType<typeof vendor>>,
  c: Awaited<ReturnType<typeof client>>,
  seed: string,
  setUp: (sim: Sim) => Promise<void> = (sim) => setupConfig(app, c, sim),
): Promise<{ sim: Sim; refusedAt: string }> {
  let sim = await startSim({ employees: 3, seed, ...OLD });
  const port = sim.port;
  await setUp(sim);
  await waitFor(async () => (await ormQuery(app, `select 1 from org_health where org_id = ? and state = 'healthy'`, [c.org.id])).length > 0, 60_000);
  await sim.close();
  sim = await startSim({ employees: 3, seed, ...NEW, port });
  const asked = await call(`${app.url}/api/vendor/connections/${c.org.uuid}/sync/`, { method: 'POST', headers: { authorization: v.apiKey } });
  if (asked.status !== 202) throw new Error(`sync on demand: ${asked.status} ${JSON.stringify(asked.body)}`);
  await rx.waitForCount(path, 1, 'connection.needs_reauth', 60_000);
  // The promised run ends as a run either way (docs/api.md "Sync on demand"): refused by the HRMS
  // (failed), or skipped when a sync queued before it (setup-config's, the approval's) was the one
  // the HRMS refused. Its end is not the refusal's moment then: that is the failed run's.
  await waitFor(
    async () => (await ormQuery(app, `select 1 from sync_runs where id = ? and finished_at is not null`, [asked.body.data.sync_id])).length > 0,
    60_000,
  );
  const [run] = await ormQuery(app, `select finished_at from sync_runs where org_id = ? and status = 'failed' order by finished_at desc limit 1`, [c.org.id]);
  return { sim, refusedAt: new Date(run.finished_at).toISOString() };
}
