/**
 * Benchmark `external`, the encrypted employee details under load: `POST /api/external/employee/` of hrx
 * (`hrx serve` in a child process) with a pool of distinct, pre-built request JWEs (every request
 * carries a fresh `jti`: replays are refused), next to a crypto ceiling measured in the same run:
 * one sequential loop in this process (while it is otherwise idle, so on one core at a time) doing
 * with `jose` what the endpoint's crypto does per request — decrypt the request JWE
 * (RSA-OAEP-256/A256GCM), verify the inner RS256 JWS, sign the response JWS (RS256), encrypt the
 * response JWE to the vendor key. The loop runs twice, before the load (with the API child idle)
 * and after it (API child stopped); the faster run is the ceiling (the other one was slowed by
 * other work on the machine). The load generator (autocannon) runs in this process.
 *
 * The limit hrx is held to: `openssl speed -multi <cores> rsa2048` measured in the same run (while
 * the API child is idle); a V2 request needs two RSA-2048 private operations (decrypt the request's
 * key, sign the response), so the machine allows at most signs/s ÷ 2 requests a second. Beside it,
 * the same private operations through node:crypto (one core, synchronous) and through jose show
 * where the gap between the RSA operation and a V2 request goes. hrx runs as
 * `hrx serve --processes <processes>` (default `auto`: one API process per core).
 */
import { execFileSync } from 'node:child_process';
import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt, randomBytes, randomUUID, sign } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus } from 'node:os';
import { CompactEncrypt, CompactSign, compactDecrypt, compactVerify, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey, JSONWebKeySet, JWK } from 'jose';
import { buildEncryptedRequest, openEncryptedResponse } from '../src/crypto/jose/client';
import {
  benchEnv,
  busyFraction,
  cpuSeconds,
  freePort,
  machineCpu,
  openBenchContext,
  openCpuWindow,
  round,
  seedEmployees,
  spawnNode,
  waitForHttp,
  type Child,
} from './lib';
import { testPool } from '../test/support/db';
import { figuresOf, type LoadFigures } from './load';

const ENDPOINT = '/api/external/employee/';
/** exp − iat of the pre-built requests (the most the endpoint accepts). */
const TTL_SEC = 300;
/** Upper bound on pre-built requests (warm-up + measured). */
const MAX_POOL = 60_000;
/** Responses kept (reservoir sample) to decrypt and verify after the measured run. */
const SAMPLE = 100;

export interface ExternalOptions {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** Seconds each of the two crypto ceiling loops runs (after 1 s of its own warm-up). */
  ceilingSec: number;
  /** `hrx serve --processes` of the API child: a number or `auto`. */
  processes: string;
  /** When set, the hrx child (and its API processes) run with `--cpu-prof` into this directory. */
  profileDir?: string | undefined;
}

/** `openssl speed -multi <processes> rsa2048` and what it allows a V2 request. */
export interface OpensslLimit {
  command: string;
  processes: number;
  /** RSA-2048 private-key signatures a second, all processes together. */
  signsPerSec: number;
  verifiesPerSec: number;
  /** V2 requests a second the machine's RSA allows: two private operations each. */
  v2RequestsPerSec: number;
}

/** The RSA-2048 private operations of a V2 request through node:crypto, synchronous, one core. */
export interface NodeRsa {
  signsPerSec: number;
  oaepDecryptsPerSec: number;
  /** 1 ÷ (1/signs + 1/decrypts): V2 requests a second one core's private operations allow. */
  v2RequestsPerSecOneCore: number;
}

export interface ExternalCeiling {
  /** Iterations (decrypt + verify + sign + encrypt) per second of one sequential loop. */
  opsPerSec: number;
  ops: number;
  seconds: number;
  /** CPU of this process during the loop, in cores (≤ 1: one operation at a time). */
  cpuCores: number;
  cpuMsPerOp: number;
  /** Mean wall time of each step, ms. */
  stepMs: { decryptRequest: number; verifyRequest: number; signResponse: number; encryptResponse: number };
  /** Busy cores not used by this process during the loop: other work on the machine. */
  otherCpuCores: number;
  /** `before` the load (API child idle) or `after` it (API child stopped). */
  when: 'before' | 'after';
}

export interface ExternalResult {
  employees: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  seedSyncMs: number;
  requestBytes: number;
  responseBytes: number;
  pool: {
    /** Distinct requests built for the warm-up and for the measured run. */
    warmup: number;
    measured: number;
    buildMs: number;
    builtPerSec: number;
    ttlSec: number;
    /** Rate the pool was sized for: 1.5 × the larger of ceiling ops/s × cores and the openssl limit. */
    sizedForRps: number;
    /** Seconds left before the first-built request expired, when the measured run ended. */
    secondsToExpiryAtEnd: number;
    /** True when the measured run used up its pool and stopped early (the figures cover the shorter run). */
    exhausted: boolean;
  };
  endpoint: LoadFigures;
  /** Responses of the measured run decrypted with the vendor key and verified against the JWKS. */
  /**
   * The API processes' CPU per measured request, ms, split: main threads (JavaScript, the event
   * loop) and the other threads (libuv's pool: WebCrypto's RSA and AES work); with `--processes N`
   * the primary's own (small) CPU counts as other.
   */
  apiThreads: { mainMsPerReq: number | null; otherMsPerReq: number | null };
  verifiedResponses: { sampled: number; ok: number };
  /** The faster of the two ceiling runs. */
  ceiling: ExternalCeiling;
  ceilingRuns: ExternalCeiling[];
  /** `hrx serve --processes` as given, and the API processes it started. */
  processes: { asked: string; started: number };
  openssl: OpensslLimit | null;
  nodeRsa: NodeRsa;
  ratios: {
    /** endpoint req/s ÷ the openssl limit (signs/s ÷ 2); the target is ≥ 0.5. */
    endpointToOpensslLimit: number | null;
    opensslTarget: number;
    opensslTargetMet: boolean | null;
    /** endpoint req/s ÷ ceiling ops/s (one core). Above 1 is possible: the API's RSA work runs on libuv's thread pool, over every core. */
    endpointToCeilingRps: number;
    /** ceiling CPU ms/op ÷ endpoint server CPU ms/request: share of the API child's CPU that the four RSA operations account for. */
    cryptoShareOfServerCpu: number | null;
  };
  auditRowsWritten: number;
}

/* ------------------------------------------------------------ autocannon */

type Ctx = Record<string, unknown>;
interface CannonRequest {
  method?: string;
  path?: string;
  body?: string | Buffer;
  setupRequest?: (req: CannonRequest, context: Ctx) => CannonRequest;
  onResponse?: (status: number, body: string, context: Ctx) => void;
}
interface Histogram {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
}
interface CannonResult {
  requests: Histogram & { sent: number };
  latency: Histogram;
  throughput: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  headers: Record<string, string>;
  maxOverallRequests: number;
  requests: CannonRequest[];
}) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

interface PoolItem {
  body: Buffer;
  employeeId: string;
  exp: number;
}
interface Sample {
  body: string;
  employeeId: string;
}

/**
 * One autocannon run over `pool`: request i carries pool[i] (never one twice: each connection stops
 * after its share of the pool, `maxOverallRequests`). Keeps a uniform sample (reservoir, SAMPLE of them) of the 200 responses with the employee each one asked for.
 */
function fire(origin: string, headers: Record<string, string>, pool: PoolItem[], connections: number, durationSec: number) {
  let next = 0;
  let seen = 0;
  const samples: Sample[] = [];
  const run = autocannon({
    url: origin,
    connections,
    duration: durationSec,
    timeout: 10,
    headers,
    maxOverallRequests: pool.length,
    requests: [
      {
        setupRequest: (req, context) => {
          // Past the end (cannot happen with maxOverallRequests) the last body is resent: a replay, refused, counted non-2xx.
          const item = pool[Math.min(next++, pool.length - 1)]!;
          context.employeeId = item.employeeId;
          req.method = 'POST';
          req.path = ENDPOINT;
          req.body = item.body;
          return req;
        },
        onResponse: (status, body, context) => {
          if (status !== 200) return;
          seen++;
          const s = { body, employeeId: String(context.employeeId) };
          if (samples.length < SAMPLE) samples.push(s);
          else {
            const j = Math.floor(Math.random() * seen);
            if (j < SAMPLE) samples[j] = s;
          }
        },
      },
    ],
  });
  return run.then((r) => ({ r, samples, used: Math.min(next, pool.length) }));
}

/* ------------------------------------------------------------ the bench */

export async function externalBench(o: ExternalOptions, log: (s: string) => void): Promise<ExternalResult> {
  const env = benchEnv();
  const ctx = await openBenchContext(env);
  const ext = ctx.services.external;

  // Orgs: a vendor with an RSA-2048 key (no use/alg: signs requests, receives responses) and a
  // Basic credential; a client; an approved connection without consent requirement.
  const vendorOrg = (await ctx.services.orgs.create({ name: 'Bench V2 Vendor', vendor: true, client: false })).org;
  const clientOrg = (await ctx.services.orgs.create({ name: 'Bench V2 Client', vendor: false, client: true })).org;
  const kp = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const vendorKid = `bench-${randomBytes(4).toString('hex')}`;
  const vendorPublicJwk = { ...kp.publicKey.export({ format: 'jwk' }), kid: vendorKid } as JWK;
  const vendorPrivateJwk = kp.privateKey.export({ format: 'jwk' }) as JWK;
  await ext.addVendorKey(vendorOrg.uuid, vendorPublicJwk);
  const basic = await ext.basic.create(vendorOrg.uuid);
  const authorization = `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  const connection = await ctx.services.connections.create({
    vendorUuid: vendorOrg.uuid,
    clientUuid: clientOrg.uuid,
    status: 'approved',
    consentRequired: false,
  });
  const vendorSignKey = (await importJWK(vendorPrivateJwk, 'RS256')) as CryptoKey;
  const vendorDecryptKey = (await importJWK(vendorPrivateJwk, 'RSA-OAEP-256')) as CryptoKey;

  const { ids, seedSyncMs } = await seedEmployees(ctx, clientOrg.id, o.employees);
  log(
    `  seeded ${o.employees} employees via the sync service in ${seedSyncMs} ms; vendor key ${vendorKid} (RSA-2048), Basic credential, connection ${connection.id}`,
  );

  // hrx API child (`serve` creates the service keys at start).
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // node:cluster starts the API processes with this process's execArgv: each writes its own profile.
  const profArgs = o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`] : [];
  if (o.profileDir) mkdirSync(o.profileDir, { recursive: true });
  const child: Child = spawnNode('hrx-external', [...profArgs, 'bin/hrx.js', 'serve', '--processes', o.processes], {
    ...process.env,
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  try {
    // Several API processes start side by side: on a busy machine that takes a while.
    await waitForHttp(`${origin}/healthz`, child, 240_000);
    const started = await apiProcesses(child.pid, o.processes);
    const jwksRes = await fetch(`${origin}/.well-known/jwks.json`);
    if (jwksRes.status !== 200) throw new Error(`JWKS answered ${jwksRes.status}`);
    const jwks = (await jwksRes.json()) as JSONWebKeySet;
    const encJwk = jwks.keys.find((k) => k.use === 'enc');
    if (!encJwk || !jwks.keys.some((k) => k.use === 'sig')) throw new Error(`JWKS lacks an enc or sig key: ${JSON.stringify(jwks).slice(0, 300)}`);
    const headers = { 'content-type': 'application/json', authorization };

    let built = 0;
    const buildOne = async (): Promise<PoolItem> => {
      const employeeId = ids[built++ % ids.length]!;
      const now = Math.floor(Date.now() / 1000);
      const jwe = await buildEncryptedRequest({
        connectionId: connection.id,
        employeeId,
        vendorPrivateKey: vendorSignKey,
        vendorKid,
        servicePublicJwk: encJwk,
        now,
        ttlSec: TTL_SEC,
        jti: randomUUID(),
      });
      return { body: Buffer.from(JSON.stringify({ encrypted_payload: jwe })), employeeId, exp: now + TTL_SEC };
    };

    // One request end to end: status, envelope, and a response that decrypts and verifies.
    const probeReq = await buildOne();
    const probe = await fetch(origin + ENDPOINT, { method: 'POST', headers, body: probeReq.body });
    const probeText = await probe.text();
    if (probe.status !== 200) throw new Error(`hrx answered ${probe.status} to the probe request: ${probeText.slice(0, 300)}`);
    const probeOpened = await openExternal(probeText, probeReq.employeeId, vendorDecryptKey, jwks);
    if (typeof probeOpened === 'string') throw new Error(`probe response: ${probeOpened}`);
    const employee = probeOpened.employee;
    const responseBytes = Buffer.byteLength(probeText);

    // Ceiling first (the API child is idle): it also bounds the rate the request pool must cover.
    const ceilingLoop = await prepareCeiling(vendorPrivateJwk, vendorPublicJwk, employee);
    const runCeiling = async (when: 'before' | 'after') => {
      log(`  ceiling (${when} the load): one sequential jose loop in the bench process (decrypt + verify + sign + encrypt, RSA-2048), ${o.ceilingSec} s...`);
      const c = await ceilingLoop(o.ceilingSec, when);
      log(
        `  ceiling (${when}): ${c.opsPerSec} ops/s (${c.cpuMsPerOp} CPU ms/op, other work on the machine ${c.otherCpuCores} cores; steps ms: ${JSON.stringify(c.stepMs)})`,
      );
      return c;
    };
    const ceilingBefore = await runCeiling('before');
    const cores = cpus().length;
    log(`  openssl speed -multi ${availableParallelism()} rsa2048 (the machine's RSA limit, API child idle)...`);
    const openssl = opensslLimit(availableParallelism(), 3);
    log(
      openssl
        ? `  openssl: ${openssl.signsPerSec} signs/s over ${openssl.processes} processes → V2 limit ${openssl.v2RequestsPerSec} req/s`
        : '  openssl: not available (no openssl on PATH, or its output did not parse)',
    );
    const nodeRsa = nodeRsaOps(2);
    log(`  node:crypto, one core: ${nodeRsa.signsPerSec} RS256 signs/s, ${nodeRsa.oaepDecryptsPerSec} RSA-OAEP-256 decrypts/s`);

    // The openssl limit too: a ceiling loop slowed by other work would size the pool below what hrx answers.
    const sizedForRps = Math.ceil(Math.max(ceilingBefore.opsPerSec * cores, openssl?.v2RequestsPerSec ?? 0) * 1.5);
    let warmupN = o.warmupSec > 0 ? Math.ceil(sizedForRps * o.warmupSec) + o.connections : 0;
    let measuredN = Math.ceil(sizedForRps * o.durationSec) + o.connections;
    if (warmupN + measuredN > MAX_POOL) {
      const f = MAX_POOL / (warmupN + measuredN);
      warmupN = warmupN ? Math.max(o.connections, Math.floor(warmupN * f)) : 0;
      measuredN = MAX_POOL - warmupN;
    }
    log(`  building ${warmupN} + ${measuredN} distinct requests (fresh jti each, ttl ${TTL_SEC} s; sized for ${sizedForRps} req/s)...`);
    const tb = performance.now();
    const pool = await buildPool(warmupN + measuredN, buildOne);
    const buildMs = round(performance.now() - tb, 0);
    const firstExp = Math.min(...pool.map((p) => p.exp));
    const needUntil = Date.now() / 1000 + o.warmupSec + o.durationSec + 15;
    if (firstExp <= needUntil) {
      throw new Error(`building ${pool.length} requests took ${buildMs} ms: the first ones would expire during the run (use a shorter --duration)`);
    }
    log(`  built in ${buildMs} ms (${Math.round((pool.length * 1000) / buildMs)}/s)`);
    const warmPool = pool.slice(0, warmupN);
    const measPool = pool.slice(warmupN);

    if (warmPool.length) {
      log(`  hrx: warming up ${o.warmupSec} s with ${warmPool.length} requests of its own...`);
      const w = await fire(origin, headers, warmPool, o.connections, o.warmupSec);
      if (w.r.non2xx + w.r.errors > 0) {
        throw new Error(`warm-up: ${w.r.non2xx} non-2xx, ${w.r.errors} errors (status codes ${JSON.stringify(codes(w.r))})`);
      }
    }
    const auditBefore = await countAudit(testPool(ctx));
    log(`  hrx: measuring ${o.durationSec} s with ${o.connections} connections...`);
    const main0 = mainThreadsCpuSeconds(child.pid, started > 1);
    const window = openCpuWindow(() => treeCpuSeconds(child.pid));
    const { r, samples, used } = await fire(origin, headers, measPool, o.connections, o.durationSec);
    const cpu = window.close();
    const main1 = mainThreadsCpuSeconds(child.pid, started > 1);
    const secondsToExpiryAtEnd = round(firstExp - Date.now() / 1000, 0);
    const auditRowsWritten = (await countAudit(testPool(ctx))) - auditBefore;

    const endpoint = figuresOf(r, cpu);
    log(`  hrx: ${endpoint.rps} req/s, p99 ${endpoint.latencyMs.p99} ms, non-2xx ${endpoint.non2xx}, errors ${endpoint.errors}`);

    // Decrypt and verify a sample of the measured responses.
    let ok = 0;
    const problems: string[] = [];
    for (const s of samples) {
      const res = await openExternal(s.body, s.employeeId, vendorDecryptKey, jwks);
      if (typeof res === 'string') problems.push(res);
      else ok++;
    }
    const exhausted = used >= measPool.length;
    await child.stop(15_000);
    const ceilingRuns = [ceilingBefore, await runCeiling('after')];
    const ceiling = ceilingRuns.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a));
    const result: ExternalResult = {
      employees: o.employees,
      connections: o.connections,
      durationSec: o.durationSec,
      warmupSec: o.warmupSec,
      seedSyncMs,
      requestBytes: probeReq.body.length,
      responseBytes,
      pool: {
        warmup: warmPool.length,
        measured: measPool.length,
        buildMs,
        builtPerSec: Math.round((pool.length * 1000) / buildMs),
        ttlSec: TTL_SEC,
        sizedForRps,
        secondsToExpiryAtEnd,
        exhausted,
      },
      endpoint,
      apiThreads: apiThreadsOf(main0, main1, cpu.cpu0, cpu.cpu1, r.requests.total),
      verifiedResponses: { sampled: samples.length, ok },
      ceiling,
      ceilingRuns,
      processes: { asked: o.processes, started },
      openssl,
      nodeRsa,
      ratios: {
        endpointToOpensslLimit: openssl ? round(endpoint.rps / openssl.v2RequestsPerSec, 3) : null,
        opensslTarget: 0.5,
        opensslTargetMet: openssl ? endpoint.rps / openssl.v2RequestsPerSec >= 0.5 : null,
        endpointToCeilingRps: round(endpoint.rps / ceiling.opsPerSec, 3),
        cryptoShareOfServerCpu: endpoint.serverCpuMsPerRequest ? round(ceiling.cpuMsPerOp / endpoint.serverCpuMsPerRequest, 3) : null,
      },
      auditRowsWritten,
    };
    if (exhausted) log(`  WARNING: the measured run used its whole pool of ${measPool.length} requests and stopped after ${r.duration} s`);
    const bad = endpoint.non2xx + endpoint.errors + endpoint.timeouts;
    if (bad > 0 || endpoint.responses2xx === 0) {
      throw Object.assign(
        new Error(
          `hrx external: ${endpoint.non2xx} non-2xx responses, ${endpoint.errors} errors, ${endpoint.timeouts} timeouts ` +
            `(status codes ${JSON.stringify(endpoint.statusCodes)}) out of ${endpoint.requests} — every response must be 200`,
        ),
        { partial: result },
      );
    }
    if (problems.length > 0 || samples.length === 0) {
      throw Object.assign(
        new Error(
          `hrx external: ${problems.length} of ${samples.length} sampled responses did not decrypt and verify: ${[...new Set(problems)].slice(0, 3).join('; ')}`,
        ),
        { partial: result },
      );
    }
    return result;
  } catch (err) {
    // What the API child said (a process that failed to start, say) belongs with the failure.
    if (err instanceof Error && !err.message.includes('\n')) err.message += `\nhrx child's stderr (tail):\n${child.stderrTail().slice(-2000)}`;
    throw err;
  } finally {
    await child.stop(15_000);
  }
}

/* ------------------------------------------------------------ helpers */

/** CPU seconds of `pid` and its children (the API processes of `hrx serve --processes N`), or null when `pid` is gone. */
function treeCpuSeconds(pid: number): number | null {
  const own = cpuSeconds(pid);
  if (own === null) return null;
  return childPids(pid).reduce((sum, c) => sum + (cpuSeconds(c) ?? 0), own);
}

/**
 * CPU seconds of the API processes' main threads (each process's thread whose id is its pid: the
 * event loop, all JavaScript); the rest of a process's CPU is its other threads, chiefly libuv's
 * pool, where WebCrypto runs the RSA and AES work. The API processes are `pid`'s Node.js children
 * when `multi` (`--processes N`), else `pid` itself (tsx's esbuild helper is a child of either).
 * Null when `pid` is gone.
 */
function mainThreadsCpuSeconds(pid: number, multi: boolean): number | null {
  const isNode = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/comm`, 'utf8').trim() !== 'esbuild';
    } catch {
      return false;
    }
  };
  let sum = 0;
  for (const p of multi ? childPids(pid).filter(isNode) : [pid]) {
    try {
      const stat = readFileSync(`/proc/${p}/task/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
    } catch {
      if (p === pid) return null;
    }
  }
  return sum;
}

/** Main-thread and other-thread CPU ms per request of the API processes (null figures when unmeasured). */
function apiThreadsOf(main0: number | null, main1: number | null, cpu0: number | null, cpu1: number | null, requests: number): ExternalResult['apiThreads'] {
  if (main0 === null || main1 === null || cpu0 === null || cpu1 === null || requests === 0) return { mainMsPerReq: null, otherMsPerReq: null };
  const main = ((main1 - main0) * 1000) / requests;
  return { mainMsPerReq: round(main, 3), otherMsPerReq: round(((cpu1 - cpu0) * 1000) / requests - main, 3) };
}

/** The pids whose parent is `pid` (from /proc). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The API processes answering: `hrx serve --processes N` starts N children (waited for, up to 60 s); one process has none. */
async function apiProcesses(pid: number, asked: string): Promise<number> {
  const want = asked === 'auto' ? availableParallelism() : Number(asked);
  if (want <= 1) return 1;
  const deadline = Date.now() + 60_000;
  while (childPids(pid).length < want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  // Each child listens a moment after it is forked; the probe below goes through whichever is ready.
  await new Promise((r) => setTimeout(r, 3000));
  return childPids(pid).length;
}

/**
 * `openssl speed -seconds <seconds> -multi <processes> rsa2048`, parsed: the summary line
 * `rsa 2048 bits <s/sign> <s/verify> <sign/s> <verify/s>` (with -multi, the sum over the processes).
 * Null when openssl is missing or its output has no such line.
 */
function opensslLimit(processes: number, seconds: number): OpensslLimit | null {
  const args = ['speed', '-seconds', String(seconds), ...(processes > 1 ? ['-multi', String(processes)] : []), 'rsa2048'];
  let text: string;
  try {
    text = execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: (seconds * 2 + 30) * 1000 });
  } catch {
    return null;
  }
  const m = /^rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)\s+([\d.]+)\s*$/m.exec(text);
  if (!m) return null;
  const signsPerSec = Number(m[1]);
  return {
    command: `openssl ${args.join(' ')}`,
    processes,
    signsPerSec,
    verifiesPerSec: Number(m[2]),
    v2RequestsPerSec: round(signsPerSec / 2, 0),
  };
}

/** node:crypto's synchronous RS256 sign and RSA-OAEP-256 decrypt (RSA-2048), each for `seconds` on this core. */
function nodeRsaOps(seconds: number): NodeRsa {
  const kp = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = randomBytes(512);
  const oaep = { key: kp.privateKey, oaepHash: 'sha256', padding: constants.RSA_PKCS1_OAEP_PADDING };
  const wrapped = publicEncrypt({ ...oaep, key: kp.publicKey }, randomBytes(32));
  const rate = (fn: () => unknown) => {
    for (let i = 0; i < 20; i++) fn();
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < seconds * 1000) {
      fn();
      n++;
    }
    return round(n / ((performance.now() - t0) / 1000), 0);
  };
  const signsPerSec = rate(() => sign('sha256', data, kp.privateKey));
  const oaepDecryptsPerSec = rate(() => privateDecrypt(oaep, wrapped));
  return { signsPerSec, oaepDecryptsPerSec, v2RequestsPerSecOneCore: round(1 / (1 / signsPerSec + 1 / oaepDecryptsPerSec), 0) };
}

/** Builds `n` requests, 8 at a time (WebCrypto's RSA work runs on libuv's pool, over every core). */
async function buildPool(n: number, buildOne: () => Promise<PoolItem>): Promise<PoolItem[]> {
  const out: PoolItem[] = new Array<PoolItem>(n);
  let i = 0;
  const worker = async () => {
    while (i < n) {
      const k = i++;
      out[k] = await buildOne();
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, n) }, worker));
  return out;
}

/**
 * Opens one V2 response envelope: 200 envelope, `data` decrypts with the vendor key and verifies
 * against the JWKS, `jti` = the envelope's requestId, the employee is the one asked for.
 * Returns the opened payload, or a reason string.
 */
async function openExternal(text: string, employeeId: string, vendorKey: CryptoKey, jwks: JSONWebKeySet) {
  let env: { requestId?: unknown; status?: unknown; message?: unknown; data?: unknown };
  try {
    env = JSON.parse(text) as typeof env;
  } catch {
    return 'envelope is not JSON';
  }
  if (env.status !== 200 || env.message !== 'success' || typeof env.data !== 'string') return 'envelope is not a success';
  try {
    const opened = await openEncryptedResponse({ data: env.data, vendorPrivateKey: vendorKey, serviceSigningJwks: jwks });
    if (opened.jti !== env.requestId) return 'jti differs from the requestId';
    const got = (opened.employee as { employeeId?: unknown } | null)?.employeeId;
    if (got !== employeeId) return `employee ${String(got)} instead of ${employeeId}`;
    return opened;
  } catch (err) {
    return `response did not open: ${(err as Error).message}${(err as { reason?: string }).reason ? ` (${(err as { reason?: string }).reason})` : ''}`;
  }
}

/**
 * The crypto ceiling: what the endpoint's crypto costs per request, with the same algorithms and
 * key sizes through jose (WebCrypto CryptoKeys, as the service uses), one operation at a time.
 * Service keys are fresh RSA-2048 pairs (like those `serve` creates); the vendor key is the bench
 * vendor's; the response payload is the employee record the probe returned.
 */
async function prepareCeiling(
  vendorPrivateJwk: JWK,
  vendorPublicJwk: JWK,
  employee: unknown,
): Promise<(seconds: number, when: 'before' | 'after') => Promise<ExternalCeiling>> {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const svcEnc = await generateKeyPair('RSA-OAEP-256', { modulusLength: 2048 });
  const svcSig = await generateKeyPair('RS256', { modulusLength: 2048 });
  const svcEncJwk = { ...(await exportJWK(svcEnc.publicKey)), kid: 'ceiling-enc' };
  const { kid: vendorKid, ...vendorMaterial } = vendorPublicJwk;
  const vendorVerify = (await importJWK(vendorMaterial, 'RS256')) as CryptoKey;
  const vendorEncrypt = (await importJWK(vendorMaterial, 'RSA-OAEP-256')) as CryptoKey;
  const vendorSign = (await importJWK(vendorPrivateJwk, 'RS256')) as CryptoKey;
  const jwes = await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      buildEncryptedRequest({
        connectionId: randomUUID(),
        employeeId: `EMP${String(i + 1).padStart(5, '0')}`,
        vendorPrivateKey: vendorSign,
        vendorKid,
        servicePublicJwk: svcEncJwk,
        ttlSec: TTL_SEC,
      }),
    ),
  );
  let step = [0, 0, 0, 0];
  const once = async (jwe: string, timed: boolean) => {
    const a = performance.now();
    const { plaintext } = await compactDecrypt(jwe, svcEnc.privateKey, { keyManagementAlgorithms: ['RSA-OAEP-256'], contentEncryptionAlgorithms: ['A256GCM'] });
    const b = performance.now();
    const { payload } = await compactVerify(dec.decode(plaintext), vendorVerify, { algorithms: ['RS256'] });
    const claims = JSON.parse(dec.decode(payload)) as { jti: string };
    const c = performance.now();
    const jws = await new CompactSign(enc.encode(JSON.stringify({ employee, iat: Math.floor(Date.now() / 1000), jti: claims.jti })))
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'ceiling-sig' })
      .sign(svcSig.privateKey);
    const d = performance.now();
    await new CompactEncrypt(enc.encode(jws)).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: vendorKid }).encrypt(vendorEncrypt);
    const e = performance.now();
    if (timed) {
      step[0]! += b - a;
      step[1]! += c - b;
      step[2]! += d - c;
      step[3]! += e - d;
    }
  };
  return async (seconds, when) => {
    // 1 s warm-up of the loop (JIT), then the measured loop.
    for (let end = performance.now() + 1000, i = 0; performance.now() < end; i++) await once(jwes[i % jwes.length]!, false);
    step = [0, 0, 0, 0];
    let ops = 0;
    const m0 = machineCpu();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    while (performance.now() < end) await once(jwes[ops++ % jwes.length]!, true);
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const busy = busyFraction(m0, machineCpu());
    const cpuSec = (cpu.user + cpu.system) / 1e6;
    const per = (x: number) => round(x / ops, 3);
    return {
      opsPerSec: round(ops / wall, 0),
      ops,
      seconds: round(wall, 2),
      cpuCores: round(cpuSec / wall, 2),
      cpuMsPerOp: round((cpuSec * 1000) / ops, 3),
      stepMs: { decryptRequest: per(step[0]!), verifyRequest: per(step[1]!), signResponse: per(step[2]!), encryptResponse: per(step[3]!) },
      otherCpuCores: round(Math.max(0, busy * cpus().length - cpuSec / wall), 2),
      when,
    };
  };
}

const codes = (r: CannonResult) => Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));

async function countAudit(pool: { query(q: string): Promise<{ rows: { n: number }[] }> }): Promise<number> {
  return (await pool.query('select count(*)::int as n from audit_log')).rows[0]!.n;
}

/** The summary lines of an external result. */
export function printExternal(r: ExternalResult, log: (s: string) => void): void {
  const f = r.endpoint;
  const c = r.ceiling;
  log(
    `\nexternal (POST ${ENDPOINT}, ${r.employees} employees, ${r.connections} connections, ${r.durationSec} s after ${r.warmupSec} s warm-up, ` +
      `${r.pool.measured} + ${r.pool.warmup} distinct pre-built requests):`,
  );
  log(
    `  hrx     ${String(f.rps).padStart(7)} req/s   p50 ${String(f.latencyMs.p50).padStart(4)} ms   p99 ${String(f.latencyMs.p99).padStart(4)} ms   ` +
      `${r.requestBytes} B/request, ${r.responseBytes} B/response   ${f.responses2xx} 2xx, ${f.non2xx} non-2xx, ${f.errors} errors; ` +
      `${r.verifiedResponses.ok}/${r.verifiedResponses.sampled} sampled responses decrypted and verified`,
  );
  log(
    `          CPU (cores): server ${f.serverCpuCores ?? '?'} = ${f.serverCpuMsPerRequest ?? '?'} ms/req, postgres ${f.postgresCpuCores} = ${f.postgresCpuMsPerRequest} ms/req, ` +
      `autocannon ${f.loadgenCpuCores}, other ${f.otherCpuCores}; machine ${Math.round(f.machineBusy * 100)}% busy`,
  );
  log(
    `          API processes per request: main threads ${r.apiThreads.mainMsPerReq ?? '?'} CPU ms (JavaScript), other threads ` +
      `${r.apiThreads.otherMsPerReq ?? '?'} CPU ms (libuv's pool: WebCrypto's RSA and AES)`,
  );
  log(
    `  ceiling ${String(c.opsPerSec).padStart(7)} ops/s  (jose, one core, run ${c.when} the load: decrypt ${c.stepMs.decryptRequest} + verify ${c.stepMs.verifyRequest} ` +
      `+ sign ${c.stepMs.signResponse} + encrypt ${c.stepMs.encryptResponse} ms; ${c.cpuMsPerOp} CPU ms/op; ` +
      `runs: ${r.ceilingRuns.map((x) => `${x.when} ${x.opsPerSec} ops/s with ${x.otherCpuCores} other cores busy`).join(', ')})`,
  );
  const o = r.openssl;
  log(
    o
      ? `  openssl ${String(o.signsPerSec).padStart(7)} signs/s (${o.command}) → limit ${o.v2RequestsPerSec} V2 req/s (two RSA private operations each); ` +
          `hrx/limit ${r.ratios.endpointToOpensslLimit} (target ≥ ${r.ratios.opensslTarget}: ${r.ratios.opensslTargetMet ? 'MET' : 'NOT MET'}) with ${r.processes.started} API process(es) (--processes ${r.processes.asked})`
      : '  openssl: not measured (no openssl on PATH)',
  );
  log(
    `  node:crypto, one core, synchronous: ${r.nodeRsa.signsPerSec} RS256 signs/s, ${r.nodeRsa.oaepDecryptsPerSec} RSA-OAEP-256 decrypts/s → ` +
      `${r.nodeRsa.v2RequestsPerSecOneCore} V2 req/s of private operations per core; jose loop ${c.opsPerSec} ops/s per core (all four operations, WebCrypto)`,
  );
  log(
    `  hrx/ceiling rps ${r.ratios.endpointToCeilingRps}   crypto share of hrx CPU/request ${r.ratios.cryptoShareOfServerCpu ?? '?'}` +
      `   (the API's RSA work runs on libuv's thread pool, over all ${cpus().length} cores: hrx/ceiling can exceed 1)`,
  );
  if (r.pool.exhausted) log(`  WARNING: the measured run used up its ${r.pool.measured} requests and ended early; raise the pool sizing`);
  if (c.otherCpuCores > 0.25) log(`  WARNING: other work on the machine used ${c.otherCpuCores} cores during the best ceiling run; the ceiling is depressed.`);
  if (f.otherCpuCores > 0.25)
    log(`  WARNING: other work on the machine used ${f.otherCpuCores} cores during the measurement; req/s are depressed (CPU ms/req are steadier).`);
  log(`  audit rows written during the measured run: ${r.auditRowsWritten} (warm-up requests still in flight when it ended included)`);
}
