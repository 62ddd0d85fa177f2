/**
 * Summarises a V8 `.cpuprofile` (written by `node --cpu-prof`): self time by function and by
 * module (project file, npm package or Node.js internals), to point at the hot spots.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, round } from './lib';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface HotSpot {
  name: string;
  selfMs: number;
  selfPct: number;
}
export interface ProfileSummary {
  file: string;
  totalMs: number;
  idlePct: number;
  byFunction: HotSpot[];
  byModule: HotSpot[];
  /** Project (src/, jobs/) functions by inclusive time: self plus everything they call. */
  projectInclusive: HotSpot[];
}

/** `node_modules/<pkg>`, a project-relative path, `node:internal`, or a V8 pseudo-frame. */
function moduleOf(url: string, fn: string): string {
  if (!url) return `(${fn || 'native'})`;
  const clean = url.replace(/^file:\/\//, '');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(clean);
  if (nm) return `npm:${nm[1]}`;
  if (clean.startsWith('node:')) return clean.startsWith('node:internal') ? 'node:internal/' + clean.split('/')[1] : clean;
  return path.relative(ROOT, clean) || clean;
}

/** Reads the newest `.cpuprofile` in `dir` and returns its top `top` self-time entries. */
export function summariseProfile(dir: string, top = 15): ProfileSummary | null {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const file = files.at(-1);
  if (!file) return null;
  const prof = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  const fnAgg = new Map<string, number>();
  const modAgg = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') idleUs += us;
    const mod = moduleOf(url, functionName);
    const key = url ? `${functionName || '(anonymous)'} ${mod}${lineNumber > 0 ? `:${lineNumber + 1}` : ''}` : `(${functionName})`;
    fnAgg.set(key, (fnAgg.get(key) ?? 0) + us);
    modAgg.set(mod, (modAgg.get(mod) ?? 0) + us);
  }
  // Inclusive time of project functions: walk the tree once, counting a function once per path.
  const incl = new Map<string, number>();
  const parentOf = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const { functionName, url } = byId.get(cur)!.callFrame;
      const mod = moduleOf(url, functionName);
      if (!/^(src|jobs)\//.test(mod)) continue;
      const key = `${functionName || '(anonymous)'} ${mod}`;
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + us);
    }
  }
  const rank = (m: Map<string, number>): HotSpot[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: round(us / 1000, 0), selfPct: round((100 * us) / totalUs, 1) }));
  return {
    file: path.join(dir, file),
    totalMs: round(totalUs / 1000, 0),
    idlePct: round((100 * idleUs) / totalUs, 1),
    byFunction: rank(fnAgg),
    byModule: rank(modAgg),
    projectInclusive: rank(incl),
  };
}
