/**
 * Readers of /proc for the benchmarks: a process's memory and CPU, PostgreSQL's CPU and the
 * machine's, and the measuring window of a load run over them (all re-exported by bench/lib.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** A `kB` line of /proc/<pid>/status (VmRSS, VmHWM) in MiB, or null when the process is gone. */
export function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) used so far by `pid`, or null when it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** CPU seconds used so far by every process named `postgres` (the server and its backends), by pid. */
export function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      /* gone */
    }
  }
  return out;
}

/** CPU seconds PostgreSQL processes used between two `postgresCpu()` snapshots (new processes counted whole). */
export function postgresCpuDelta(a: Map<number, number>, b: Map<number, number>): number {
  let sum = 0;
  for (const [pid, s] of b) sum += s - (a.get(pid) ?? 0);
  return sum;
}

/** Whole-machine CPU counters; `busyFraction(a, b)` is the share of all cores busy between two snapshots. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = line.reduce((a, b) => a + b, 0);
  const idle = (line[3] ?? 0) + (line[4] ?? 0);
  return { busy: total - idle, total };
}
export const busyFraction = (a: { busy: number; total: number }, b: { busy: number; total: number }): number =>
  b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;

/** The CPU figures of one measured run, as `figuresOf` (bench/load.ts) takes them. */
export interface CpuWindow {
  wallSec: number;
  /** The server's CPU seconds (its own reading) at the start and the end; null when unreadable. */
  cpu0: number | null;
  cpu1: number | null;
  m0: ReturnType<typeof machineCpu>;
  m1: ReturnType<typeof machineCpu>;
  /** This (load-generating) process's CPU use during the run. */
  own: NodeJS.CpuUsage;
  /** PostgreSQL's CPU seconds during the run. */
  pgSec: number;
  cores: number;
}

/**
 * Opens a measuring window: the server's CPU (`serverCpu`, seconds), the machine's, this
 * process's and PostgreSQL's, and the wall time, read now; `close()` reads them again and
 * returns both readings (shared by `employee_details`, `external` and `tail_latency`).
 */
export function openCpuWindow(serverCpu: () => number | null): { close(): CpuWindow } {
  const cpu0 = serverCpu();
  const m0 = machineCpu();
  const own0 = process.cpuUsage();
  const pg0 = postgresCpu();
  const t0 = process.hrtime.bigint();
  return {
    close: () => ({
      wallSec: Number(process.hrtime.bigint() - t0) / 1e9,
      cpu0,
      cpu1: serverCpu(),
      m0,
      m1: machineCpu(),
      own: process.cpuUsage(own0),
      pgSec: postgresCpuDelta(pg0, postgresCpu()),
      cores: cpus().length,
    }),
  };
}
