/**
 * SAP SuccessFactors' OAuth sign-in through hrx (docs/api.md "Setup config", src/hrms/sap_sf/README.md
 * "Signing in"): setup-config with `grant_type` `saml2_bearer` checks the private key before any
 * call (a 400 naming `access_credentials.client_secret`, never quoting it), accepts the
 * simulator's, stores the key encrypted, and a full sync reads every employee over OAuth; the
 * key and the token appear in no answer and no log line. Basic setups are unchanged
 * (sap_sf.integration.test.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSapSfSim } from '../../../src/hrms/sap_sf/sim';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { client, connection, vendor } from '../../support/factories';
import { dbQuery } from '../../support/db';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { expectError, invalid } from '../../support/expect-error';

let app: TestApp;
let sim: DialectSim;
const lines: string[] = [];
let n = 0;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await startTestApp({ worker: false, env: { LOG_LEVEL: 'debug' }, logStream: sink });
  sim = await startSapSfSim({ employees: 45, seed: 'sap_sf-oauth-setup', throttle: false, variants: { oauth: true } });
});
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const setup = (c: Awaited<ReturnType<typeof client>>, body: object) =>
  call(`${app.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...body }),
  });
/** The simulator's setup with `client_secret` (the private key) replaced. */
function withKey(key: string) {
  const s = sim.setup();
  return { ...s, access_credentials: { ...s.access_credentials, client_secret: key } };
}
const pem = (type: 'rsa' | 'ec', bits = 2048): string =>
  (type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: bits }).privateKey : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
/** A run of the key's base64 body: present in any text that quotes the key. */
const keyPart = (key: string): string => key.split('\n')[3]!;

describe('setup-config for sap_sf with grant_type saml2_bearer', () => {
  it('a key that cannot sign is a 400 naming access_credentials.client_secret, never quoting it; no call is made', async () => {
    const c = await client(app.ctx, `SF OAuth ${++n}`);
    sim.resetStats();
    const cases: [string, string][] = [
      ['not a key at all', 'must be a PEM private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----), unencrypted'],
      [pem('rsa', 1024), 'must be an RSA key of at least 2048 bits'],
      [pem('ec'), 'must be an RSA private key (SAP signs assertions with RSA-SHA256)'],
    ];
    for (const [key, message] of cases) {
      const res = await setup(c, withKey(key));
      expectError(res, 400, invalid('access_credentials.client_secret', `${message} (the OAuth client's private key)`));
      if (key.includes('\n')) expect(JSON.stringify(res.body)).not.toContain(keyPart(key));
    }
    const s = sim.setup();
    expectError(
      await setup(c, { ...s, api_configs: [] }),
      400,
      invalid('api_configs', 'needs an oauth entry (its access_credentials.client_id is the API key) for grant_type saml2_bearer'),
    );
    expect(sim.stats().requests).toBe(0);
  });

  it('a well-formed key the company never registered: SAP refuses the token request, and setup-config says so', async () => {
    const c = await client(app.ctx, `SF OAuth ${++n}`);
    const res = await setup(c, sim.wrongSetup());
    expectError(res, 400, { code: 400, message: 'HRMS credentials rejected: the HRMS refused the credentials', data: null });
    expect(JSON.stringify(res.body)).not.toContain(keyPart(sim.wrongSetup().access_credentials.client_secret!));
  });

  it("the simulator's key (pasted on one line, as a form field keeps it): configured, stored encrypted, a full sync over OAuth; no secret in answers or logs", async () => {
    const c = await client(app.ctx, `SF OAuth ${++n}`);
    // A sync runs for an org some vendor is connected with.
    await connection(app.ctx, (await vendor(app.ctx, `SF OAuth vendor ${n}`)).org.uuid, c.org.uuid);
    const key = sim.setup().access_credentials.client_secret!;
    sim.resetStats();
    const res = await setup(c, withKey(key.replace(/\n/g, ' ')));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hrms_id: 'sap_sf', configured_apis: ['oauth'] });
    const stored = (await dbQuery(app, 'select credentials_enc from hrms_configs where org_id = $1', [c.org.id])).rows[0] as { credentials_enc: string };
    expect(stored.credentials_enc).toMatch(/^v1\./);
    expect(stored.credentials_enc).not.toContain(keyPart(key));
    expect(await app.ctx.services.sync.run(c.org.id, 'setup', `sf-oauth-${++n}`)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 45 });
    // Setup-config's check and the sync share one token (one process, one token per credentials).
    expect(sim.stats()).toMatchObject({ tokenRequests: 1, authFailures: 0 });
    const count = await dbQuery(app, 'select count(*)::int as n from employees where org_id = $1', [c.org.id]);
    expect((count.rows[0] as { n: number }).n).toBe(45);
    expect(JSON.stringify(res.body)).not.toContain(keyPart(key));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes(keyPart(key)) || l.includes('PRIVATE KEY') || /Bearer\s+\S{20,}/.test(l))).toEqual([]);
  });
});
