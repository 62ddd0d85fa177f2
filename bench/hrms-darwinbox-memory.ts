/**
 * Darwinbox memory figure (docs/benchmarks.md): peak RSS of a process listing a whole Darwinbox dataset
 * through the darwinbox connector (streamed, docs/hrms/connectors.md "A whole dataset in one answer is read as a stream"), for a 10,000- and a 100,000-employee
 * dataset. The simulator runs in this process; the connector in a child process that maps and
 * normalises every page (as the sync does before writing it) and reports its VmHWM. Flat memory
 * means the two peaks are close although the second answer is ten times larger.
 *
 *   npx tsx bench/hrms-darwinbox-memory.ts [sizes, default 10000,100000]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createDarwinboxConnector } from '../src/hrms/darwinbox/connector';
import { normalizeRecord } from '../src/domain/record';
import { startDarwinboxSim } from '../src/hrms/darwinbox/sim';

/** What the child reports. */
export interface DarwinboxMemoryRun {
  employees: number;
  pages: number;
  wallMs: number;
  peakRssMiB: number;
  responseMiB: number;
}

const vm = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

/** The child: lists every employee of the dataset in `HRX_BENCH_SETUP` and prints one JSON line. */
async function child(): Promise<void> {
  const setup = JSON.parse(process.env.HRX_BENCH_SETUP!) as ReturnType<Awaited<ReturnType<typeof startDarwinboxSim>>['setup']>;
  const connector = createDarwinboxConnector(
    { credentials: setup.access_credentials, apiConfigs: setup.api_configs },
    { pageSize: 200, maxResponseBytes: 1024 ** 3 },
  );
  const t0 = performance.now();
  let employees = 0,
    pages = 0;
  for await (const page of connector.listEmployees()) {
    employees += page.employees.map((e) => normalizeRecord(e, 'bench')).length;
    pages += 1;
  }
  process.stdout.write(`${JSON.stringify({ employees, pages, wallMs: Math.round(performance.now() - t0), peakRssMiB: Math.round(vm('VmHWM') * 10) / 10 })}\n`);
}

/** One size: simulator here, connector in a child; the response size counted at the simulator's socket. */
export async function darwinboxMemoryRun(size: number): Promise<DarwinboxMemoryRun> {
  const sim = await startDarwinboxSim({ employees: size, seed: 'hrx-bench', throttle: false });
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
        env: { ...process.env, HRX_BENCH_CHILD: '1', HRX_BENCH_SETUP: JSON.stringify(sim.setup()) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      p.stdout.on('data', (c: Buffer) => {
        text += c.toString();
      });
      p.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`child exited ${code}`))));
    });
    const run = JSON.parse(out.trim().split('\n').at(-1)!) as Omit<DarwinboxMemoryRun, 'responseMiB'>;
    // The body's size, from one rendering of the dataset (the simulator streams it; nothing is kept).
    const res = await fetch(`${sim.url}/masterapi/employee`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${sim.setup().access_credentials.client_id}:${sim.setup().access_credentials.client_secret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ api_key: sim.setup().access_credentials.api_key, datasetKey: sim.setup().api_configs[0]!.access_credentials.api_key }),
    });
    let bytes = 0;
    for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
    return { ...run, responseMiB: Math.round(bytes / 1024 / 102.4) / 10 };
  } finally {
    await sim.close();
  }
}

if (process.env.HRX_BENCH_CHILD === '1') {
  await child();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
  for (const size of sizes) console.log(JSON.stringify(await darwinboxMemoryRun(size)));
}
