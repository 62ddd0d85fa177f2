/**
 * `hrx serve --processes 2` (docs/operations.md "Several processes on one machine"), the real
 * executable: two child processes answer on the one port, `/metrics` (whichever child the scrape
 * reaches) sums their request counts and reports the workers' figures once, a child killed from
 * outside is replaced, and SIGTERM to the primary stops every process (exit 0) and frees the port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HRX_BIN } from '../../support/cli';
import { startTestApp, waitFor, type TestApp } from '../../support/harness';
import { freePort } from '../../support/private-services';
import { parseExposition, sampleValue, type Sample } from '../../support/prom';

let app: TestApp;
let primary: ChildProcess | undefined;
let out = '';
let port: number;

beforeAll(async () => {
  app = await startTestApp({ worker: false });
  port = await freePort();
}, 90_000);
afterAll(async () => {
  if (primary && primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
  for (const pid of listeningPids()) killQuietly(pid);
  await app?.stop();
});

/** The pids the primary logged as listening, in order. */
function listeningPids(): number[] {
  const pids: number[] = [];
  for (const line of out.split('\n')) {
    if (!line.includes('"msg":"API process listening"')) continue;
    pids.push((JSON.parse(line) as { pid: number }).pid);
  }
  return pids;
}

function killQuietly(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One GET on a connection of its own (no keep-alive: the primary hands each connection to the next child). */
function getOnce(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: { ...headers, connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function scrape(): Promise<Sample[]> {
  const res = await getOnce('/metrics', { authorization: `Bearer ${app.env.HRX_ADMIN_TOKEN}` });
  expect(res.status, res.body.slice(0, 300)).toBe(200);
  return parseExposition(res.body);
}

const perProcess = (samples: Sample[]) =>
  new Map(samples.filter((s) => s.name === 'hrx_process_requests_total').map((s) => [Number(s.labels.pid), s.value] as const));

describe('hrx serve --processes 2', () => {
  it('two children share the port, /metrics sums them, a killed child is replaced, SIGTERM stops them all', async () => {
    primary = spawn(process.execPath, [HRX_BIN, 'serve', '--processes', '2'], {
      env: { ...process.env, ...app.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    primary.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    primary.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) => primary!.once('exit', (code, signal) => r({ code, signal })));
    // A primary that exits (a child could not start: PostgreSQL or Redis did not answer in time) ends the wait at once.
    await waitFor(() => listeningPids().length === 2 || primary!.exitCode !== null, 180_000, 200);
    if (listeningPids().length < 2) throw new Error(`two API processes did not listen:\n${out}`);
    const children = listeningPids();
    expect(new Set(children).size).toBe(2);
    expect(children).not.toContain(primary.pid);

    // 20 requests, each on a new connection: both children answer some.
    for (let i = 0; i < 20; i++) expect((await getOnce('/readyz')).status).toBe(200);
    let samples = await scrape();
    const spread = perProcess(samples);
    expect([...spread.keys()].sort()).toEqual([...children].sort());
    for (const pid of children) expect(spread.get(pid), `requests answered by ${pid}`).toBeGreaterThan(0);
    // Summed over the children: every request counted once, whichever child answered it.
    expect(sampleValue(samples, 'hrx_http_requests_total', { route: '/readyz', status: '200' })).toBe(20);
    const total = samples.filter((s) => s.name === 'hrx_http_requests_total').reduce((a, s) => a + s.value, 0);
    expect([...spread.values()].reduce((a, b) => a + b, 0)).toBe(total);
    // The scrape-time figures are read once, not once per child (sampleValue throws on duplicates).
    expect(sampleValue(samples, 'hrx_queue_jobs', { queue: 'sync', state: 'waiting' })).toBe(0);
    expect(sampleValue(samples, 'hrx_metrics_source_up', { source: 'processes' })).toBe(1);
    expect(sampleValue(samples, 'hrx_metrics_source_up', { source: 'postgresql' })).toBe(1);

    // A child killed from outside is replaced; the survivor and the newcomer answer.
    process.kill(children[0]!, 'SIGKILL');
    await waitFor(() => listeningPids().length === 3, 180_000, 200).catch(() => {
      throw new Error(`no API process replaced the killed one:\n${out}`);
    });
    const replacement = listeningPids()[2]!;
    for (let i = 0; i < 10; i++) expect((await getOnce('/readyz')).status).toBe(200);
    samples = await scrape();
    expect([...perProcess(samples).keys()].sort()).toEqual([children[1]!, replacement].sort());
    expect(out).toContain('an API process exited unexpectedly: starting another');

    // SIGTERM to the primary: every process exits, the primary with 0, and the port is free.
    primary.kill('SIGTERM');
    expect(await exited, out).toEqual({ code: 0, signal: null });
    for (const pid of [children[1]!, replacement]) await waitFor(() => !alive(pid), 10_000);
    await new Promise<void>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
    });
    expect(out).toContain('every API process has exited');
  }, 420_000);
});
