/**
 * The suite-wide log scan (docs/privacy.md). With `HRX_TEST_LOG_DIR` set, every hrx a test file
 * starts (test/support/harness.ts) writes its log lines at `debug` (or `TEST_LOG_LEVEL`) to
 * `<dir>/<schema>.log`, and once the whole suite has run (the global setup's teardown) every
 * line of every file is scanned for what must never be logged: PAN- and Aadhaar-shaped values,
 * e-mail addresses, hrx API keys and app keys, SQL statements. Hits are reported by file, line
 * and kind, never by value, and fail the run:
 *
 *     HRX_TEST_LOG_DIR=/tmp/hrx-test-logs npx vitest run
 *
 * Pattern-based, so it needs no list of what each test seeded; test/integration/cross/logs-pii checks
 * exact seeded values (names included, which no pattern can find) on every run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['PAN', /(?<![A-Za-z0-9])[A-Z]{5}[0-9]{4}[A-Z](?![A-Za-z0-9])/],
  // 12 digits not inside a longer run, a UUID or a hex string.
  ['Aadhaar', /(?<![0-9A-Fa-f-])[2-9][0-9]{11}(?![0-9A-Fa-f-])/],
  ['e-mail', /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+/],
  ['API key', /hrx_[A-Za-z0-9_-]{20,}/],
  ['app key', /app_[A-Za-z0-9_-]{20,}/],
  ['SQL', /\b(insert into|delete from|select\s.+\sfrom|update\s+"?\w+"?\s+set)\b/i],
];

/** Scans every `*.log` of `dir`; returns one description per hit (file, line, kind). */
export function scanLogDir(dir: string): string[] {
  const hits: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    const lines = readFileSync(path.join(dir, file), 'utf8').split('\n');
    lines.forEach((line, n) => {
      for (const [kind, re] of PATTERNS) if (re.test(line)) hits.push(`${file}:${n + 1}: ${kind}`);
    });
  }
  return hits;
}
