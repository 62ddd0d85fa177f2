/**
 * The README's "Running it for real" walk, run as a newcomer would paste it: every ```sh block
 * of that section, parsed from README.md itself, in order, in one bash, on a fresh database
 * schema and Redis prefix, with the real `hrx` executable (the `./hrx` launcher), the reference HRMS simulator,
 * curl and jq. Only the values of a few `export NAME=...` lines are replaced (the test's
 * database, Redis and two free ports); the ids travel between commands in the README's own shell
 * variables. The walk must reach the first employee read and the first V2 read, and every answer
 * the README shows under a block (a ```json block) must have the shape the real answer has (the
 * same keys, nested, with values of the same types) and the same values, but for those that differ
 * from run to run (ids, keys, secrets, times; VARYING below). A shown array is the whole array, or
 * its first items followed by "…". So the README cannot rot. The last block is the README's Stop
 * block, as written: after it no process the walk started may still run, and hrx's port is free.
 *
 * Prints the walk's wall time and number of commands (the "fresh database to first read" figure);
 * with `HRX_README_WALK_PRINT=1` also every block's output, to paste as the README's answers.
 * Needs bash, curl and jq: skipped, saying so, without them, except under CI (`CI` set), where
 * their absence fails the test rather than hiding the walk.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, dropSchema, REDIS_URL } from '../../support/harness';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const missing = ['bash', 'curl', 'jq'].filter((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0);
const skip = missing.length > 0 && !process.env.CI;
if (skip) console.warn(`readme-walk test skipped: ${missing.join(', ')} not installed`);

/** One ```sh block of the section and the answer shown under it (a ```json block), if any. */
interface Step {
  sh: string;
  answer?: string;
}

/** The ```sh blocks of README's "Running it for real", each with the ```json block that follows it. */
export function walkSteps(readme: string): Step[] {
  const start = readme.indexOf('\n## Running it for real');
  if (start < 0) throw new Error('README has no "## Running it for real" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const steps: Step[] = [];
  for (const m of section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)) {
    if (m[1] === 'sh') steps.push({ sh: m[2]! });
    else if (m[1] === 'json' && steps.length) steps[steps.length - 1]!.answer = m[2]!;
  }
  return steps;
}

/** Counts the commands a person types: lines of the blocks, without comments, heredoc bodies or continuations. */
function countCommands(steps: Step[]): number {
  let n = 0;
  for (const { sh } of steps) {
    let heredoc: string | undefined;
    let continued = false;
    let quoted = false;
    for (const line of sh.split('\n')) {
      if (heredoc) {
        if (line.trim() === heredoc) heredoc = undefined;
        continue;
      }
      if (!continued && !quoted && line.trim() && !line.trim().startsWith('#')) n++;
      // A single-quoted text spread over lines (node -e '...') is one command.
      if ((line.match(/'/g) ?? []).length % 2 === 1) quoted = !quoted;
      continued = line.trimEnd().endsWith('\\');
      heredoc = /<<-?\s*'?(\w+)'?/.exec(line)?.[1] ?? undefined;
    }
  }
  return n;
}

/** True when `actual` has every key of `shown` (nested; array items against the first shown item) with a value of the same type. */
function shapeProblems(shown: unknown, actual: unknown, at = '$'): string[] {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(shown) !== kind(actual)) return [`${at}: shown ${kind(shown)}, got ${kind(actual)}`];
  if (Array.isArray(shown) && Array.isArray(actual)) {
    if (!shown.length) return [];
    if (!actual.length) return [`${at}: shown items, got []`];
    return actual.flatMap((item, i) => shapeProblems(shown[0], item, `${at}[${i}]`));
  }
  if (kind(shown) === 'object') {
    const a = actual as Record<string, unknown>;
    return Object.entries(shown as Record<string, unknown>).flatMap(([k, v]) => (k in a ? shapeProblems(v, a[k], `${at}.${k}`) : [`${at}.${k}: missing`]));
  }
  return [];
}

/** Keys whose values differ from run to run (or with the reader's database): only their shape is compared. */
const VARYING = new Set([
  'requestId',
  'id',
  'uuid',
  'org_id',
  'vendor_org',
  'client_org',
  'created_at',
  'status_changed_at',
  'app_key',
  'app_secret',
  'database',
  'next_sync_at',
  'last_successful_sync',
  'application_status_timestamp',
  'iat',
  'jti',
  'as_of',
]);
/** Marks a shown array as shortened: the items before it are the first items of the real one. */
const MORE = '…';

/** The shown values `actual` does not have (keys missing or of another type are shapeProblems' part). */
export function valueProblems(shown: unknown, actual: unknown, at = '$'): string[] {
  if (VARYING.has(at.slice(at.lastIndexOf('.') + 1))) return [];
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [];
    const more = shown.at(-1) === MORE;
    const items = more ? shown.slice(0, -1) : shown;
    if (more ? actual.length < items.length : actual.length !== items.length)
      return [`${at}: shown ${items.length}${more ? ' or more' : ''} items, got ${actual.length}`];
    return items.flatMap((item, i) => valueProblems(item, actual[i], `${at}[${i}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object') return [];
    const a = actual as Record<string, unknown>;
    return Object.entries(shown as Record<string, unknown>).flatMap(([k, v]) => (k in a ? valueProblems(v, a[k], `${at}.${k}`) : []));
  }
  return shown === actual ? [] : [`${at}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Whether any process of process group `pgid` still runs. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `port` on 127.0.0.1 can be listened on. */
async function portFree(port: number): Promise<boolean> {
  const srv = createServer();
  const ok = await new Promise<boolean>((r) => {
    srv.once('error', () => r(false));
    srv.listen(port, '127.0.0.1', () => r(true));
  });
  if (ok) await new Promise<void>((r) => srv.close(() => r()));
  return ok;
}

/**
 * Runs `script` in bash in `dir` (made, with the `./hrx` launcher linked in: the walk's folder
 * inside the checkout), as its own process group, on `dbSchema` and a Redis prefix of its own;
 * the group is killed after `timeoutMs`. Resolves when bash exits, with what it printed.
 */
async function runWalk(script: string, dir: string, dbSchema: string, timeoutMs: number) {
  mkdirSync(dir, { recursive: true });
  symlinkSync(path.join(ROOT, 'hrx'), path.join(dir, 'hrx'));
  const child = spawn('bash', ['-c', script], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The test's own schema and Redis prefix; the README sets everything else. Neither HRMS
    // host setting comes from outside: the README's own allows the simulator's host.
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'HRX_HRMS_ALLOW_PRIVATE_HOSTS' && k !== 'HRX_HRMS_ALLOWED_HOSTS')),
      HRX_DB_SCHEMA: dbSchema,
      HRX_REDIS_PREFIX: `hrxtest:walk:${dbSchema}`,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { child, code, stdout, stderr };
}

/** The README's blocks up to `last` (an index of `steps`) in one `set -e` script, as written but for the `export` lines of `overrides`. */
function walkScript(steps: Step[], last: number, overrides: Record<string, string>): string {
  return [
    'set -euo pipefail',
    ...steps
      .slice(0, last + 1)
      .map((s) => s.sh.replace(/^export (\w+)=.*$/gm, (line, name: string) => (overrides[name] ? `export ${name}=${overrides[name]}` : line))),
  ].join('\n');
}

const id = randomBytes(5).toString('hex');
const schema = `t_walk_${id}`;
// Inside the checkout (npx finds hrx from any folder of it), git-ignored, removed afterwards.
const workDir = path.join(ROOT, `.readme-walk-${id}`);
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  rmSync(`${workDir}-nostart`, { recursive: true, force: true });
  rmSync(`${workDir}-nosync`, { recursive: true, force: true });
  await dropSchema(schema);
  await dropSchema(`${schema}_nostart`);
  await dropSchema(`${schema}_nosync`);
});

describe.skipIf(skip)('README "Running it for real"', () => {
  it('walks from an empty database to the first employee read and the first V2 read', async () => {
    expect(missing, 'CI must have bash, curl and jq: the walk may not be skipped there').toEqual([]);
    const steps = walkSteps(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(steps.length).toBeGreaterThanOrEqual(8);
    const overrides: Record<string, string> = {
      DATABASE_URL,
      REDIS_URL,
      PORT: String(await freePort()),
      HRMS_PORT: String(await freePort()),
    };
    const script = [
      'set -euo pipefail',
      ...steps.map((s, i) => {
        const sh = s.sh.replace(/^export (\w+)=.*$/gm, (line, name: string) => (overrides[name] ? `export ${name}=${overrides[name]}` : line));
        return `printf '\\n@@step ${i} %s@@\\n' "$(date +%s.%N)"\n${sh}`;
      }),
      `printf '\\n@@step end %s@@\\n' "$(date +%s.%N)"`,
    ].join('\n');

    const started = performance.now();
    const { child, code, stdout, stderr } = await runWalk(script, workDir, schema, 240_000);
    const seconds = (performance.now() - started) / 1000;
    // The README's Stop block ran last: nothing the walk started may still run (every process of
    // the walk is in the bash's process group), and hrx's port must be free again.
    // (A helper process, such as esbuild's service under tsx, exits a moment after its parent.)
    for (let waited = 0; groupAlive(child.pid!) && waited < 5000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    const leftRunning = groupAlive(child.pid!);
    if (leftRunning) console.log(spawnSync('ps', ['-o', 'pid,pgid,stat,args', '-g', String(child.pid)], { encoding: 'utf8' }).stdout);
    // Whatever the walk left running (it stops hrx and the simulator itself when it gets that far).
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* the group is gone */
    }
    const log = (): string => {
      try {
        return readFileSync(path.join(workDir, 'trial/hrx.log'), 'utf8').slice(-4000);
      } catch {
        return '';
      }
    };
    expect(code, `the walk failed:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}\nhrx.log:\n${log()}`).toBe(0);
    expect(stdout).toMatch(/@@step end /);
    expect(steps.at(-1)!.sh, 'the last block is the Stop block').toMatch(/^kill \$HRX_PID \$SIM_PID/m);
    expect(leftRunning, 'processes of the walk still running after its Stop block').toBe(false);
    expect(await portFree(Number(overrides.PORT))).toBe(true);

    // [text, step, time, text, step, time, ...]: each step's output and when it started.
    const pieces = stdout.split(/\n@@step (\d+|end) ([\d.]+)@@\n/);
    const times = pieces.filter((_, i) => i % 3 === 2).map(Number);
    const outputs = pieces.filter((_, i) => i % 3 === 0).slice(1, steps.length + 1);
    const took = steps.map((_, i) => times[i + 1]! - times[i]!);
    if (process.env.HRX_README_WALK_PRINT === '1') outputs.forEach((o, i) => console.log(`--- step ${i + 1} (${took[i]!.toFixed(1)} s)\n${o}`));
    steps.forEach((s, i) => {
      if (!s.answer) return;
      const shown: unknown = JSON.parse(s.answer);
      const actual: unknown = JSON.parse(outputs[i]!);
      expect(shapeProblems(shown, actual), `step ${i + 1}: the README shows another answer than:\n${outputs[i]}`).toEqual([]);
      expect(valueProblems(shown, actual), `step ${i + 1}: the README shows other values than:\n${outputs[i]}`).toEqual([]);
    });
    // The two reads: the plain one masked, the V2 one unmasked, the same employee.
    const reads = outputs.map((o) => {
      try {
        return JSON.parse(o) as Record<string, any>;
      } catch {
        return undefined;
      }
    });
    const plain = reads.find((r) => r?.data?.employeeId === 'EMP00001' && typeof r.data.pan === 'string');
    const v2 = reads.find((r) => r?.employee?.employeeId === 'EMP00001');
    expect(plain?.data.pan).toMatch(/^\*{10}$/);
    expect(v2?.employee.pan).toMatch(/^[A-Z]{5}\d{4}[A-Z]$/);
    expect(v2?.employee.name).toBe(plain?.data.name);

    const commands = countCommands(steps);
    console.log(
      `README walk, empty database → first employee read and first V2 read: ${commands} commands in ${steps.length} blocks, ` +
        `${seconds.toFixed(1)} s (per block: ${took.map((t) => t.toFixed(1)).join(', ')} s)`,
    );
  }, 300_000);
});

describe.skipIf(skip)('README "Running it for real" when hrx cannot start', () => {
  it("the wait for /healthz is bounded: it prints the end of hrx's log and fails", async () => {
    const steps = walkSteps(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    const start = steps.findIndex((s) => /\/healthz/.test(s.sh));
    expect(steps[start]!.sh, 'the wait is bounded by a number of tries').toMatch(/\$\(seq 60\)/);
    // hrx's port is held by a listener that closes every connection: `hrx start` fails (address in use), curl gets no answer.
    const holder = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    const overrides: Record<string, string> = { DATABASE_URL, REDIS_URL, PORT: String(port), HRMS_PORT: String(await freePort()) };
    // The README's blocks up to the wait, as written (60 tries: time enough for hrx to fail and log why).
    const script = walkScript(steps, start, overrides);
    const started = performance.now();
    const { child, code, stderr } = await runWalk(script, `${workDir}-nostart`, `${schema}_nostart`, 170_000);
    const seconds = (performance.now() - started) / 1000;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* the group is gone */
    }
    await new Promise<void>((r) => holder.close(() => r()));
    expect(code, stderr).not.toBe(0);
    expect(stderr).toContain('hrx did not answer in 60 s; the end of trial/hrx.log:');
    expect(stderr).toMatch(/port \d+ on 127\.0\.0\.1 is in use/);
    console.log(`README walk when hrx cannot start: failed after ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(150);
  }, 200_000);
});

describe.skipIf(skip)('README "Running it for real" when the first sync never completes', () => {
  it("the wait for the first sync is bounded: it prints the client org's sync status and the end of hrx's log, and fails", async () => {
    const steps = walkSteps(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    const wait = steps.findIndex((s) => /last_successful_sync/.test(s.sh));
    expect(steps[wait]!.sh, 'the wait is bounded by a number of tries').toMatch(/\$\(seq 60\)/);
    const overrides: Record<string, string> = { DATABASE_URL, REDIS_URL, PORT: String(await freePort()), HRMS_PORT: String(await freePort()) };
    // The README's blocks up to the wait, but `hrx serve` (the API alone) in place of `hrx start`:
    // setup-config queues the first sync and no worker ever runs it.
    const script = walkScript(steps, wait, overrides).replace(/^\.\/hrx start /m, './hrx serve ');
    expect(script).toMatch(/^\.\/hrx serve 2> trial\/hrx\.log &/m);
    const started = performance.now();
    const { child, code, stderr } = await runWalk(script, `${workDir}-nosync`, `${schema}_nosync`, 270_000);
    const seconds = (performance.now() - started) / 1000;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* the group is gone */
    }
    expect(code, stderr).not.toBe(0);
    expect(stderr).toContain("no successful sync in 60 s; the client org's sync status and the end of trial/hrx.log:");
    // The status says why: the first sync is still on its way (SYNCING), none has run.
    expect(stderr).toMatch(/^Globex Industries \([0-9a-f-]{36}\): SYNCING$/m);
    expect(stderr).toMatch(/^ {2}last sync attempt +never$/m);
    console.log(`README walk when the first sync never completes: failed after ${seconds.toFixed(1)} s`);
  }, 300_000);
});
