/**
 * ADP Workforce Now's mutual TLS and payroll currency (src/hrms/adp_wfn/README.md "Mutual TLS",
 * "Pay history"), through hrx over HTTP: setup-config checks the client certificate and its key
 * (unreadable PEM, a key of another certificate, an expired certificate: a 400 naming the field,
 * never quoting it); against a simulator serving HTTPS that requires a client certificate (a test
 * CA made with the openssl command line, trusted by this test process only through node's default
 * CA list), setup and a sync succeed with the certificate, through the host policy's agents, and
 * setup fails naming the certificate field without it; the certificate and key reach no response,
 * no log line and no stored plaintext. The payroll currency field: only INR, and with it the pay
 * history carries amounts.
 */
import { Writable } from 'node:stream';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADP_WFN_DEFINITION } from '../../../src/hrms/adp_wfn/definition';
import { hrmsProduct } from '../../../src/hrms/products';
import { connectorFor, SUPPORTED_HRMS } from '../../../src/hrms/registry';
import { createLogger } from '../../../src/logger';
import { startAdpWfnSim, type AdpWfnSim } from '../../../src/hrms/adp_wfn/sim';
import { dbQuery } from '../../support/db';
import { invalid } from '../../support/expect-error';
import { client, connection, vendor } from '../../support/factories';
import { call, startTestApp, type TestApp } from '../../support/harness';
import { hasOpenssl, makeTestPki, type TestPki } from '../../support/test-pki';

let pki: TestPki;
let app: TestApp;
const lines: string[] = [];
let sim: AdpWfnSim | undefined;
let n = 0;

const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

beforeAll(async () => {
  if (!hasOpenssl()) throw new Error('these tests need the openssl command line (apt-get install openssl)');
  pki = makeTestPki();
  // The simulator's CA is trusted by this process only: hrx's own trust stays the system's.
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), pki.ca]);
  app = await startTestApp({ worker: false, env: { LOG_LEVEL: 'debug' }, logStream: sink });
});
afterAll(async () => {
  await app?.stop();
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(employees: number): Promise<AdpWfnSim> {
  sim = await startAdpWfnSim({ employees, seed: 'adp_wfn-mtls', throttle: false });
  return sim;
}
/** The simulator's setup body with `extra` in its `access_credentials`. */
const withCreds = (s: AdpWfnSim, extra: Record<string, string>) => {
  const setup = s.setup();
  return { ...setup, access_credentials: { ...setup.access_credentials, ...extra } };
};
async function setupConfig(body: object, on: TestApp = app) {
  const v = await vendor(on.ctx, `ADP mTLS vendor ${++n}`);
  const c = await client(on.ctx, `ADP mTLS client ${n}`);
  await connection(on.ctx, v.org.uuid, c.org.uuid);
  const res = await call(`${on.url}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: c.org.appKey, client_secret: c.appSecret, ...body }),
  });
  return { res, c, v };
}
/** The base64 lines of a PEM (what must never be echoed, logged or stored in clear). */
const pemLines = (pem: string): string[] => pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
const leaks = (text: string): boolean => [pki.client.cert, pki.client.key, pki.expired.key, pki.strayKey].flatMap(pemLines).some((l) => text.includes(l));

describe('adp_wfn: the client certificate at setup-config', () => {
  it('an unreadable certificate or key, a key of another certificate, an expired certificate: 400 naming the field, quoting nothing; ADP is not asked', async () => {
    const s = await start(3);
    const good = { tls_client_cert: pki.client.cert, tls_client_key: pki.client.key };
    const garbled = pki.client.cert.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!notbase64!!!!!!!');
    const cases: [Record<string, string>, string, string | RegExp][] = [
      [{ ...good, tls_client_cert: 'not a certificate' }, 'access_credentials.tls_client_cert', 'must be a PEM certificate (-----BEGIN CERTIFICATE-----)'],
      [{ ...good, tls_client_cert: garbled }, 'access_credentials.tls_client_cert', 'is not a readable PEM certificate'],
      [
        { ...good, tls_client_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' },
        'access_credentials.tls_client_key',
        'is not a readable PEM private key',
      ],
      [{ ...good, tls_client_key: pki.strayKey }, 'access_credentials.tls_client_key', 'is not the private key of tls_client_cert'],
      [{ tls_client_cert: pki.expired.cert, tls_client_key: pki.expired.key }, 'access_credentials.tls_client_cert', /^expired on \d{4}-\d\d-\d\d$/],
      [{ tls_client_cert: pki.client.cert }, 'access_credentials.tls_client_key', 'required with tls_client_cert'],
    ];
    for (const [extra, field, message] of cases) {
      const { res } = await setupConfig(withCreds(s, extra));
      expect(res.status).toBe(400);
      expect(res.body.data.errors).toEqual([{ field, message: typeof message === 'string' ? message : expect.stringMatching(message) }]);
      expect(leaks(JSON.stringify(res.body))).toBe(false);
    }
    // A certificate in an api_configs entry is refused: the connector presents the main one everywhere.
    const entry = { ...s.setup(), api_configs: [{ api_id: 'token', access_credentials: { hrms_host: s.url, grant_type: 'client_credentials', ...good } }] };
    const { res } = await setupConfig(entry);
    expect(res.body.data.errors).toEqual([
      { field: 'api_configs.0.access_credentials.tls_client_cert', message: 'only in the main access_credentials' },
      { field: 'api_configs.0.access_credentials.tls_client_key', message: 'only in the main access_credentials' },
    ]);
    expect(s.stats().requests).toBe(0);
  });

  it('every other product refuses a certificate and a payroll currency, naming the field', () => {
    const ok = { hrms_host: 'https://api.adp.com', grant_type: 'client_credentials', client_id: 'id-1', client_secret: 's' };
    expect(
      ADP_WFN_DEFINITION.checkCredentials({ credentials: { ...ok, tls_client_cert: pki.client.cert, tls_client_key: pki.client.key }, apiConfigs: [] }),
    ).toEqual([]);
    for (const id of SUPPORTED_HRMS.filter((h) => h !== 'adp_wfn')) {
      const grant = hrmsProduct(id)!.grantType;
      const credentials = { ...ok, grant_type: grant, api_key: 'k', tls_client_cert: pki.client.cert, tls_client_key: pki.client.key, payroll_currency: 'INR' };
      const fields = connectorFor(id)!
        .checkCredentials({ credentials, apiConfigs: [] })
        .map((p) => `${p.field}: ${p.message}`);
      expect(fields, id).toContain(`access_credentials.tls_client_cert: not used by ${id}`);
    }
  });
});

describe('adp_wfn: a simulator that requires a client certificate, behind the host policy', () => {
  let guarded: TestApp;
  let mtls: AdpWfnSim;
  beforeAll(async () => {
    mtls = await startAdpWfnSim({ employees: 25, seed: 'adp_wfn-mtls', throttle: false, tls: { ...pki.server, clientCa: pki.ca } });
    // The host policy's own agents and lookup carry every call (one named loopback host allowed): got's
    // `https` options must reach them.
    const env = { LOG_LEVEL: 'debug', HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0', HRX_HRMS_ALLOWED_HOSTS: new URL(mtls.url).host };
    guarded = await startTestApp({ worker: false, env, logStream: sink });
  });
  afterAll(async () => {
    await guarded?.stop();
    await mtls?.close();
  });

  it('setup-config and a sync succeed with the certificate; without it setup-config names the certificate field', async () => {
    expect(mtls.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const without = await setupConfig(mtls.setup(), guarded);
    expect(without.res.status).toBe(400);
    expect(without.res.body).toMatchObject(
      invalid('access_credentials.tls_client_cert', 'the HRMS asks for a TLS client certificate on token request: enter it with its private key'),
    );
    expect(mtls.stats().tokenRequests).toBe(0);

    const { res, c } = await setupConfig(withCreds(mtls, { tls_client_cert: pki.client.cert, tls_client_key: pki.client.key }), guarded);
    expect(res.status).toBe(200);
    expect(leaks(JSON.stringify(res.body))).toBe(false);
    expect(await guarded.ctx.services.sync.run(c.org.id, 'setup', `adp-mtls-${n}`)).toMatchObject({ status: 'succeeded', kind: 'full', employees: 25 });
    expect(mtls.stats().tokenRequests).toBe(1);

    // Stored encrypted: neither the certificate nor the key is in the row in clear.
    const row = (await dbQuery(guarded, `select credentials_enc from hrms_configs where org_id = $1`, [c.org.id])).rows[0] as { credentials_enc: string };
    expect(row.credentials_enc.length).toBeGreaterThan(pki.client.key.length);
    expect(leaks(row.credentials_enc)).toBe(false);
  });

  it('no log line carries the certificate or a key: none of this file, and none of credentials logged whole', () => {
    expect(lines.some((l) => l.includes('hrx API listening'))).toBe(true);
    expect(lines.filter(leaks)).toEqual([]);
    const logged: string[] = [];
    const log = createLogger(
      'debug',
      'hrx',
      new Writable({
        write(chunk: Buffer, _enc, done) {
          logged.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const creds = { tls_client_cert: pki.client.cert, tls_client_key: pki.client.key };
    log.info({ access_credentials: creds, ...creds }, 'credentials logged whole');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('credentials logged whole');
    expect(leaks(logged[0]!)).toBe(false);
  });
});

describe('adp_wfn: the payroll currency field', () => {
  it('only INR: another currency is a 400 naming the field; with INR the pay history read serves amounts', async () => {
    const s = await start(4);
    for (const currency of ['USD', 'rupees']) {
      const { res } = await setupConfig(withCreds(s, { payroll_currency: currency }));
      expect(res.body).toMatchObject(invalid('access_credentials.payroll_currency', 'must be INR: hrx stores pay amounts only in rupees'));
    }
    expect(s.stats().requests).toBe(0);

    const { res, c, v } = await setupConfig(withCreds(s, { payroll_currency: 'INR' }));
    expect(res.status).toBe(200);
    expect(await app.ctx.services.sync.run(c.org.id, 'test', `adp-inr-${n}`, { full: true })).toMatchObject({ status: 'succeeded', employees: 4 });
    const truth = s.payMonths(3, true).filter((e) => e.employeeId === s.employeeIds()[0]);
    expect(truth.every((e) => typeof e.month.grossPay === 'number')).toBe(true);
    const read = await call(`${app.url}/api/employee_details/${s.employeeIds()[0]}/pay_history/?org=${c.org.uuid}&vendor_org=${v.org.uuid}`, {
      headers: { username: v.apiKey },
    });
    expect(read.status).toBe(200);
    const months = (read.body.data.months as { year: number; month: number; grossPay?: number; netPay?: number }[]).slice(0, 3);
    expect(months.map((m) => [m.year, m.month, m.grossPay, m.netPay])).toEqual(
      [...truth]
        .sort((a, b) => b.month.year * 12 + b.month.month - (a.month.year * 12 + a.month.month))
        .map((e) => [e.month.year, e.month.month, e.month.grossPay, e.month.netPay]),
    );
  });
});
