/**
 * `hrx <command> --help` (docs/cli.md "How every command behaves"), through the real executable: every command and
 * command group answers `--help` with exit code 0 without touching PostgreSQL or Redis (the
 * environment points both at closed ports), and lists each of its options with its default and
 * its allowed values. The commands are walked from the program itself, so a new command or option
 * is checked too; a table of known defaults guards against a program that lost them all.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main';
import { HRMS_IDS } from '../../../src/hrms/hrms-ids';
import { runHrx } from '../../support/cli';
import { freePort } from '../../support/private-services';

/** Every command below the root (groups and leaves), as its path of names. */
function commands(program: Command): { path: string[]; cmd: Command }[] {
  const out: { path: string[]; cmd: Command }[] = [];
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      if (sub.name() === 'help') continue;
      out.push({ path: [...path, sub.name()], cmd: sub });
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return out;
}

const flat = (s: string) => s.replace(/\s+/g, ' ');

/** Texts some commands' help must hold whatever the walk finds (defaults and choices by hand). */
const KNOWN: Record<string, string[]> = {
  'connection create': [
    '--status <status> its status (choices: "pending", "approved", "rejected", default: "approved")',
    '(choices: "hourly", "every_6_hours", "every_12_hours", "daily", "weekly", default: "daily")',
    "--vendor <uuid> the vendor org's uuid (required)",
    '--no-consent-required',
  ],
  'hrms-sim': [
    '(default: 9100)',
    '(default: 100)',
    '(default: "127.0.0.1")',
    '--client-id <id> the client_id hrx must present (required with --dialect reference)',
    // The choices are the one list of products (src/hrms/hrms-ids.ts), in its order.
    `--dialect <hrms_id> which HRMS to simulate (choices: ${HRMS_IDS.map((id) => `"${id}"`).join(', ')}, default: "reference")`,
  ],
  'org update': ['<uuid>', '--purpose <text>', '--privacy-url <url>', '--json'],
  'service-keys rotate': ['(default: 24)'],
  demo: ['(default: 250)', '(default: 9100)', '--exit-after-read'],
  'sync run': ['--org <uuid>', '--follow', '(default: 0)', '--json'],
  'sync status': ['--org <uuid>', '--json'],
  'client employee': ['(choices: "db", "hrms")'],
  migrate: ['--json', 'which database'],
};

describe('hrx <command> --help', () => {
  const program = buildProgram({
    env: () => {
      throw new Error('--help must not load the configuration');
    },
    startJobs: undefined,
    keepRunning: () => undefined,
  });
  const all = commands(program);

  it('walks every command of the program', () => {
    const names = all.map((c) => c.path.join(' '));
    for (const expected of [
      'start',
      'serve',
      'worker',
      'demo',
      'hrms-sim',
      'migrate',
      'org create',
      'org update',
      'apikey revoke',
      'connection approve',
      'sync run',
      'sync status',
      'endpoint add',
      'keys add',
      'basic revoke',
      'service-keys rotate',
      'client employee',
    ]) {
      expect(names).toContain(expected);
    }
    for (const known of Object.keys(KNOWN)) expect(names).toContain(known);
  });

  it('every command answers --help (exit 0) with each option, its default and its choices, touching nothing', async () => {
    const [pg, redis] = [await freePort(), await freePort()];
    // Unreachable services and no master key: --help must need none of them.
    const env = { DATABASE_URL: `postgresql://postgres:pw@127.0.0.1:${pg}/none`, REDIS_URL: `redis://127.0.0.1:${redis}`, HRX_MASTER_KEY: '' };
    const queue = [...all];
    const failures: string[] = [];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { path, cmd } = next;
        const r = await runHrx([...path, '--help'], env);
        const name = path.join(' ');
        const text = flat(r.stdout);
        if (r.code !== 0) failures.push(`${name}: exit ${r.code}: ${r.stderr}`);
        if (!text.includes(`Usage: hrx ${name}`)) failures.push(`${name}: no usage line`);
        for (const sub of cmd.commands) if (sub.name() !== 'help' && !text.includes(sub.name())) failures.push(`${name}: subcommand ${sub.name()} not listed`);
        for (const o of cmd.options) {
          if (!text.includes(o.flags)) failures.push(`${name}: option ${o.flags} not listed`);
          if (o.defaultValue !== undefined && typeof o.defaultValue !== 'boolean' && !text.includes(`default: ${JSON.stringify(o.defaultValue)}`)) {
            failures.push(`${name}: default of ${o.flags} not shown`);
          }
          for (const c of o.argChoices ?? []) if (!text.includes(`"${c}"`)) failures.push(`${name}: choice ${c} of ${o.flags} not shown`);
          if (o.mandatory && !text.includes(flat(`${o.flags} ${o.description} (required)`))) failures.push(`${name}: ${o.flags} not marked required`);
        }
        for (const must of KNOWN[name] ?? []) if (!text.includes(flat(must))) failures.push(`${name}: missing "${must}"`);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(failures).toEqual([]);
  }, 300_000);

  it('--version prints package.json version, and CHANGELOG.md has a section for it', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    for (const flag of ['--version', '-V']) {
      const r = await runHrx([flag], {});
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(pkg.version);
    }
    expect(readFileSync(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8')).toContain(`## ${pkg.version} `);
  }, 60_000);

  it('the root help points to docs/settings.md for the settings; the worker help names no port', async () => {
    expect(flat((await runHrx(['--help'], {})).stdout)).toContain('docs/settings.md lists every setting');
    const worker = flat((await runHrx(['worker', '--help'], {})).stdout);
    expect(worker).toContain('listens on no port');
    expect(worker).not.toContain('HOST:PORT');
  }, 60_000);

  it('the root help lists the commands and the environment; no argument prints it too', async () => {
    for (const args of [['--help'], []]) {
      const r = await runHrx(args, {});
      expect(r.code).toBe(0);
      for (const c of ['migrate', 'org', 'apikey', 'connection', 'sync', 'demo', 'DATABASE_URL', 'REDIS_URL']) expect(r.stdout).toContain(c);
    }
  }, 60_000);
});
