/**
 * Benchmark `credential`, the employment and income credential (docs/credentials.md), against
 * `hrx serve` in a child process (one API process), in one run:
 * - issuance `POST /api/credentials/employment/` (months 0) under autocannon, next to the plain
 *   read `GET /api/employee_details/{id}` of the same employees, and the bare ES256 sign rate of
 *   `openssl speed -seconds 3 ecdsap256` (one core) as the limit: an issuance signs once (ES256);
 * - verifications a second in this process, one core: hrx's verifier (`createVerifier`, status
 *   list fetched and decoded once, kept for its `ttl`), the same built per credential
 *   (`verifyCredential`, the CLI's case: key import and list decode every time) and the `@sd-jwt/sd-jwt-vc` verifier (signature, disclosures, `exp`, the
 *   same status list token);
 * - the status list at 100,000 issued credentials (rows written by SQL, every 7th revoked): the
 *   token's bytes and the time to fetch it over HTTP (median of 20 sequential fetches).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createLocalJWKSet, flattenedVerify, type JWK } from 'jose';
import { createVerifier, verifyCredential } from '../src/credentials/sd-jwt';
import { STATUS_LIST_SIZE } from '../src/credentials/store';
import { dbQuery } from '../test/support/db';
import { benchEnv, cpuSeconds, freePort, openBenchContext, openCpuWindow, round, seedEmployees, seedOrgs, spawnNode, waitForHttp } from './lib';
import { figuresOf, measureLoad, type LoadFigures, type RunResult } from './load';

/** Credentials in the status list measured (docs/benchmarks.md). */
const LIST_CREDENTIALS = 100_000;

export interface CredentialOptions {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
}

export interface CredentialResult {
  employees: number;
  connections: number;
  durationSec: number;
  issue: LoadFigures;
  plainRead: LoadFigures;
  /** `openssl speed -seconds 3 ecdsap256`: ES256 signs a second, one core; null when openssl is missing. */
  opensslEs256SignsPerSec: number | null;
  /** hrx's verifier (status list decoded once, kept for its `ttl`), the same used once per credential (the CLI's case), `@sd-jwt/sd-jwt-vc`'s. */
  verifyPerSec: { hrx: number; hrxOneShot: number; sdJwtVc: number };
  statusList: { credentials: number; revoked: number; tokenBytes: number; fetchMsMedian: number; fetchMsMax: number };
}

type Autocannon = (opts: Record<string, unknown>) => Promise<RunResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** ES256 signs a second of `openssl speed -seconds 3 ecdsap256` (the `sign/s` column), or null. */
function opensslEs256(): number | null {
  try {
    const text = execFileSync('openssl', ['speed', '-seconds', '3', 'ecdsap256'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
    const m = /^\s*256 bits ecdsa \(nistp256\)\s+\S+s\s+\S+s\s+([\d.]+)\s+([\d.]+)\s*$/m.exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Calls `fn` for `seconds` (after one warm-up second); calls a second. */
async function rate(seconds: number, fn: () => Promise<unknown>): Promise<number> {
  for (const end = Date.now() + 1000; Date.now() < end;) await fn();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    await fn();
    n++;
  }
  return round((n * 1000) / (performance.now() - t0), 0);
}

/** Runs the benchmark; `log` prints progress. */
export async function credentialBench(o: CredentialOptions, log: (s: string) => void): Promise<CredentialResult> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const { vendor, apiKey, client } = await seedOrgs(ctx);
  const { generateKeyPairSync } = await import('node:crypto');
  const kp = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await ctx.services.external.addVendorKey(vendor.uuid, { ...kp.publicKey.export({ format: 'jwk' }), kid: 'bench-cnf' });
  const { ids } = await seedEmployees(ctx, client.id, o.employees);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawnNode('hrx-credential', ['bin/hrx.js', 'serve', '--processes', '1'], {
    ...process.env,
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    HRX_PUBLIC_URL: origin,
  });
  try {
    await waitForHttp(`${origin}/healthz`, child, 240_000);
    const headers = { authorization: apiKey, 'content-type': 'application/json' };
    const bodies = ids.map((id) => JSON.stringify({ org: client.uuid, employee_id: id, months: 0 }));
    const probe = await fetch(`${origin}/api/credentials/employment/`, { method: 'POST', headers, body: bodies[0] });
    const issued = (await probe.json()) as { data: { sd_jwt: string } };
    if (probe.status !== 201) throw new Error(`issuance answered ${probe.status}`);

    log(`  plain read, ${o.connections} connections, ${o.durationSec} s...`);
    const plainRead = await measureLoad(
      {
        origin,
        paths: ids.map((id) => `/api/employee_details/${id}?org=${client.uuid}&vendor_org=${vendor.uuid}`),
        // The plain read takes the API key in `username` (docs/api.md "Credentials").
        headers: { username: apiKey },
        connections: o.connections,
        durationSec: o.durationSec,
        warmupSec: o.warmupSec,
      },
      child,
    );
    log(`  issuance, ${o.connections} connections, ${o.durationSec} s...`);
    let next = 0;
    const issueRun = (duration: number) =>
      autocannon({
        url: origin,
        connections: o.connections,
        duration,
        timeout: 10,
        headers,
        requests: [
          { method: 'POST', path: '/api/credentials/employment/', setupRequest: (r: { body?: string }) => ({ ...r, body: bodies[next++ % bodies.length] }) },
        ],
      });
    if (o.warmupSec > 0) await issueRun(o.warmupSec);
    const window = openCpuWindow(() => cpuSeconds(child.pid));
    const issue = figuresOf(await issueRun(o.durationSec), window.close());

    log('  openssl speed -seconds 3 ecdsap256...');
    const opensslEs256SignsPerSec = opensslEs256();

    const jwks = (await (await fetch(`${origin}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const uri = (JSON.parse(Buffer.from(issued.data.sd_jwt.split('.')[1]!, 'base64url').toString()) as { status: { status_list: { uri: string } } }).status
      .status_list.uri;
    const listToken = await (await fetch(uri)).text();
    const sdJwt = issued.data.sd_jwt;
    log('  verifications, 3 s each...');
    const verifier = createVerifier({ jwks, statusList: () => Promise.resolve(listToken) });
    const hrx = await rate(3, async () => {
      const v = await verifier(sdJwt);
      if (!v.ok) throw new Error(`hrx verifier: ${JSON.stringify(v)}`);
    });
    const hrxOneShot = await rate(3, async () => {
      const v = await verifyCredential(sdJwt, { jwks, statusList: () => Promise.resolve(listToken) });
      if (!v.ok) throw new Error(`hrx verifier: ${JSON.stringify(v)}`);
    });
    const keys = createLocalJWKSet(jwks);
    const vc = new SDJwtVcInstance({
      hasher: digest,
      verifier: async (data: string, sig: string) => {
        const [protectedHeader, payload] = data.split('.');
        return flattenedVerify({ protected: protectedHeader!, payload: payload!, signature: sig }, keys, { algorithms: ['ES256'] }).then(
          () => true,
          () => false,
        );
      },
      // The status list fetched once above (as hrx's verifier gets it): the rate is the verifier's own.
      statusListFetcher: () => Promise.resolve(listToken),
      loadTypeMetadataFormat: false,
    });
    const sdJwtVc = await rate(3, () => vc.verify(sdJwt));

    log(`  status list at ${LIST_CREDENTIALS} credentials (rows by SQL)...`);
    const [{ n }] = (await dbQuery<{ n: number }>(ctx, `select count(*)::int as n from credentials`)).rows as [{ n: number }];
    const add = LIST_CREDENTIALS - n;
    await dbQuery(
      ctx,
      `insert into credentials (id, vendor_org_id, client_org_id, employee_id, connection_id, vendor_kid, consent_required,
                                status_list, status_idx, issued_at, expires_at, checked_at, revoked_at, revoked_reason)
       select gen_random_uuid(), c.vendor_org_id, c.client_org_id, c.employee_id, c.connection_id, c.vendor_kid, false,
              0, (select max(status_idx) from credentials where status_list = 0) + g, now(), now() + interval '30 days', now(),
              case when g % 7 = 0 then now() end, case when g % 7 = 0 then 'vendor' end
         from generate_series(1, $1::int) g, (select * from credentials limit 1) c`,
      [add],
    );
    await dbQuery(ctx, `select setval('credential_status_seq', (select max(status_idx) from credentials where status_list = 0))`);
    const [{ revoked }] = (await dbQuery<{ revoked: number }>(ctx, `select count(*)::int as revoked from credentials where revoked_at is not null`)).rows as [
      { revoked: number },
    ];
    const times: number[] = [];
    let tokenBytes = 0;
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(uri);
      tokenBytes = Buffer.byteLength(await res.text());
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    if (LIST_CREDENTIALS > STATUS_LIST_SIZE) throw new Error('the measured credentials must fit one list');
    return {
      employees: o.employees,
      connections: o.connections,
      durationSec: o.durationSec,
      issue,
      plainRead,
      opensslEs256SignsPerSec,
      verifyPerSec: { hrx, hrxOneShot, sdJwtVc },
      statusList: { credentials: LIST_CREDENTIALS, revoked, tokenBytes, fetchMsMedian: round(times[10]!, 1), fetchMsMax: round(times[19]!, 1) },
    };
  } finally {
    await child.stop();
  }
}

/** Prints the figures of {@link credentialBench}. */
export function printCredential(r: CredentialResult, log: (s: string) => void): void {
  const row = (name: string, f: LoadFigures) => `  ${name.padEnd(10)} ${String(f.rps).padStart(6)} req/s   p99 ${f.latencyMs.p99} ms   ${f.non2xx} non-2xx`;
  log(`\ncredential (${r.employees} employees, ${r.connections} connections, ${r.durationSec} s):`);
  log(row('plain read', r.plainRead));
  log(row('issue', r.issue));
  log(`  limit: openssl ES256 ${r.opensslEs256SignsPerSec ?? '?'} signs/s (one core)`);
  log(`  verify: hrx ${r.verifyPerSec.hrx}/s (one-shot ${r.verifyPerSec.hrxOneShot}/s), @sd-jwt/sd-jwt-vc ${r.verifyPerSec.sdJwtVc}/s (one core)`);
  const s = r.statusList;
  log(`  status list at ${s.credentials} credentials (${s.revoked} revoked): ${s.tokenBytes} B, fetch median ${s.fetchMsMedian} ms (max ${s.fetchMsMax})`);
}
