/**
 * SAP SuccessFactors' OAuth 2.0 sign-in with a SAML assertion (src/hrms/sap_sf/README.md
 * "Signing in"): the sap_sf connector against its simulator (switch `oauth`) over real HTTP on
 * 127.0.0.1, no mocks. The simulator's `/oauth/token` checks what hrx signs by a path of its own
 * (sim/oauth.ts): a tampered, expired, mis-addressed or foreign-key assertion gets no token; a
 * full listing runs on one token, renewed once when refused; a token endpoint answering HTML or
 * an error body is a clear refusal, never quoting the key.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeRecord, type PartialEmployeeRecord } from '../../../src/domain/record';
import { HrmsError, type ConnectorOptions, type HrmsConnector } from '../../../src/hrms/connector';
import type { DialectSim } from '../../../src/hrms/sim/dialect';
import { product } from '../../../src/hrms/sap_sf';
import { assertionXml, SAML2_BEARER, signXml } from '../../../src/hrms/sap_sf/oauth';
import { startSapSfSim } from '../../../src/hrms/sap_sf/sim';
import { rejectionReason } from '../../../src/setup/service';
import { listAll } from '../../support/dialect';

const fast: ConnectorOptions = { pageSize: 40, retries: 3, minRetryDelayMs: 2, maxRetryDelayMs: 2_000, timeoutMs: 5_000 };
let sim: DialectSim | undefined;
let fake: Server | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  fake?.close();
  fake = undefined;
});

async function start(employees: number): Promise<DialectSim> {
  sim = await startSapSfSim({ employees, seed: 'sap_sf-oauth', throttle: false, variants: { oauth: true } });
  return sim;
}
type Setup = ReturnType<DialectSim['setup']>;
const connect = (setup: Setup, o: ConnectorOptions = fast): HrmsConnector =>
  product.definition.create({ credentials: setup.access_credentials, apiConfigs: setup.api_configs }, o);
const norm = (rs: PartialEmployeeRecord[]) => rs.map((r) => normalizeRecord(r, 'x')).sort((a, b) => a.employeeId.localeCompare(b.employeeId));
/** The parts of the simulator's OAuth setup: company, user, API key, private key. */
function partsOf(setup: Setup) {
  const c = setup.access_credentials;
  return { company: c.client_id!, user: c.api_key!, apiKey: setup.api_configs[0]!.access_credentials.client_id!, pem: c.client_secret! };
}
/** POSTs a token request with `xml` (base64) as the assertion; the answer's status and JSON. */
async function tokenCall(s: DialectSim, xml: string, form: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const p = partsOf(s.setup());
  const res = await fetch(`${s.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      company_id: p.company,
      client_id: p.apiKey,
      grant_type: SAML2_BEARER,
      assertion: Buffer.from(xml).toString('base64'),
      ...form,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
/** Starts the one fake token server of a test on 127.0.0.1; its base URL. */
async function fakeServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  fake = createServer(handler);
  fake.listen(0, '127.0.0.1');
  await once(fake, 'listening');
  return `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
}
/** `setup` with its token requests sent to `host` (the `oauth` entry's `hrms_host`), its data calls still to the simulator. */
const pointedAt = (setup: Setup, host: string): Setup => ({
  ...setup,
  api_configs: [{ ...setup.api_configs[0]!, access_credentials: { ...setup.api_configs[0]!.access_credentials, hrms_host: host } }],
});
/** An unsigned assertion for the simulator's user and API key, issued at `now`. */
function unsigned(s: DialectSim, now = Date.now()): string {
  const p = partsOf(s.setup());
  return assertionXml({ userId: p.user, apiKey: p.apiKey, tokenUrl: `${s.url}/oauth/token`, now });
}

describe('sap_sf OAuth: the simulator checks the assertion', () => {
  it("a good signed assertion gets SAP's token JSON; the token reads OData, Basic does not", async () => {
    const s = await start(3);
    const good = await tokenCall(s, signXml(unsigned(s), partsOf(s.setup()).pem));
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ token_type: 'Bearer', expires_in: 86_399 });
    const read = (authorization: string) =>
      fetch(`${s.url}/odata/v2/PerPerson?$select=personIdExternal&$top=1`, { headers: { authorization, accept: 'application/json' } });
    expect((await read(`Bearer ${String(good.body.access_token)}`)).status).toBe(200);
    expect((await read(`Basic ${Buffer.from('hrx_api@ACMEINDIA:sf-sim-password-7c2e').toString('base64')}`)).status).toBe(401);
    expect((await read('Bearer not-a-token')).status).toBe(401);
  });

  it('refuses a tampered, expired, foreign-key, mis-addressed or wrapped assertion, and a wrong company or API key', async () => {
    const s = await start(3);
    const { pem, apiKey, company } = partsOf(s.setup());
    const signed = signXml(unsigned(s), pem);
    const refused = async (xml: string, reason: string, form: Record<string, string> = {}) => {
      const r = await tokenCall(s, xml, form);
      expect([r.status, r.body.error_description]).toEqual([expect.any(Number), reason]);
      expect(r.status === 400 || r.status === 401).toBe(true);
      expect(r.body.access_token).toBeUndefined();
    };
    // Tampered after signing: another user.
    await refused(signed.replace('>hrx_api<', '>sfadmin<'), 'signature does not verify');
    // Signed well, but expired 11 minutes after it was issued (10 minutes of validity).
    await refused(signXml(unsigned(s, Date.now() - 11 * 60_000), pem), 'expired or not yet valid');
    // Signed with a key the company never registered.
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await refused(signXml(unsigned(s), stranger), 'signature does not verify');
    // Signed with the right key, but for another audience, user or API key.
    await refused(signXml(unsigned(s).replace('www.successfactors.com', 'www.example.com'), pem), 'audience');
    await refused(signXml(unsigned(s).replace('>hrx_api<', '>sfadmin<'), pem), 'unknown user');
    await refused(signXml(unsigned(s).replace(`xs:string">${apiKey}<`, 'xs:string">another-key<'), pem), 'api_key attribute');
    // A second, unsigned assertion wrapped around the signed one is not what the signature covers.
    await refused(`<saml2:Assertion xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion">${signed}</saml2:Assertion>`, 'not one enveloped signature');
    // Unsigned.
    await refused(unsigned(s), 'not one enveloped signature');
    await refused(signed, 'unknown client_id or company_id', { company_id: `${company}X` });
    await refused(signed, 'unknown client_id or company_id', { client_id: `${apiKey}X` });
    await refused(signed, 'grant_type', { grant_type: 'client_credentials' });
    expect(s.stats().tokenRequests).toBe(11);
  });
});

describe('sap_sf OAuth: the connector', () => {
  it('lists every person over OAuth on one token, equal to the ground truth', async () => {
    const s = await start(90);
    const { pages, employees } = await listAll(connect(s.setup()));
    expect(pages.map((p) => p.employees.length)).toEqual([40, 40, 10]);
    expect(norm(employees)).toEqual(norm(s.expected()));
    // Six OData calls and one token request for the whole listing (cached per process), no refusal.
    expect(s.stats()).toMatchObject({ requests: 7, tokenRequests: 1, authFailures: 0 });
  });

  it('a token refused mid-listing is renewed once and the listing goes on; refused again, the connector fails with auth', async () => {
    const s = await start(90);
    const c = connect(s.setup());
    const seen: string[] = [];
    let n = 0;
    for await (const page of c.listEmployees()) {
      seen.push(...page.employees.map((e) => e.employeeId));
      if (++n === 1) s.revokeTokens();
    }
    expect(seen).toHaveLength(90);
    expect(s.stats()).toMatchObject({ tokenRequests: 2, authFailures: 1 });
    // A token endpoint whose every token the API refuses: renewed once per call, then auth.
    let issued = 0;
    const host = await fakeServer((_req, res) => {
      issued += 1;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: `bogus-${issued}`, token_type: 'Bearer', expires_in: 3600 }));
    });
    const err = await connect(pointedAt(s.setup(), host))
      .getEmployee(s.employeeIds()[0]!)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HrmsError);
    expect((err as HrmsError).kind).toBe('auth');
    expect(issued).toBe(2);
  });

  it('a private key the company never registered is refused as credentials, the key never quoted', async () => {
    const s = await start(3);
    const err = await connect(s.wrongSetup())
      .verifyCredentials()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HrmsError);
    expect(rejectionReason(err)).toBe('the HRMS refused the credentials');
    expect((err as Error).message).toBe('SAP SuccessFactors refused the OAuth token request (HTTP 401)');
  });

  it('a token endpoint answering an HTML page or an error body is a clear refusal, never a crash', async () => {
    const s = await start(3);
    let answer = { status: 200, type: 'text/html', body: '<html><body>Sign in to SuccessFactors</body></html>' };
    const setup = s.setup();
    const pointed = pointedAt(setup, await fakeServer((_req, res) => res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body)));
    const failure = async () => {
      const err = await connect(pointed)
        .verifyCredentials()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HrmsError);
      expect((err as Error).message).not.toContain(partsOf(setup).pem.slice(40, 80));
      return rejectionReason(err);
    };
    expect(await failure()).toBe('the HRMS answered 200 OK with a body hrx could not read');
    answer = { status: 200, type: 'application/json', body: '{"errorMessage":"no token here"}' };
    expect(await failure()).toBe('the HRMS answered 200 OK with a body hrx could not read');
    answer = { status: 400, type: 'application/json', body: '{"error":"invalid_grant"}' };
    expect(await failure()).toBe('the HRMS refused the credentials');
    answer = { status: 503, type: 'text/html', body: '<html>down</html>' };
    expect(await failure()).toBe('the HRMS answered 503 Service Unavailable');
  });
});
