/**
 * `npm run new:hrms -- <hrms_id>` (scripts/new-hrms.ts, docs/hrms/adding-a-product.md "The
 * scaffold"), run in a throwaway copy of the repository (its tracked and untracked files, this
 * checkout's node_modules linked), never in the repository itself: it writes the product folder
 * and its test, adds the id to `HRMS_IDS`, regenerates the docs, and changes nothing else; `tsc`
 * accepts the result and the product's own test passes against its simulator. A bad or taken id
 * writes nothing.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HRMS_IDS } from '../../../src/hrms/hrms-ids';

const root = path.resolve(import.meta.dirname, '../../..');
const ID = 'scaffold_probe';
/** What `npm run docs` writes outside a product folder (scripts/docs/generate.ts). */
const GENERATED = [
  'src/hrms/catalog.ts',
  'README.md',
  'docs/hrms/README.md',
  'docs/hrms/connectors.md',
  'docs/cli.md',
  'docs/openapi.json',
  'test/support/openapi.d.ts',
];
let copy = '';

const git = (...args: string[]): string => execFileSync('git', args, { cwd: copy, encoding: 'utf8' });
/** The paths changed in the copy since its commit (untracked folders listed file by file). */
const changed = (): string[] =>
  git('status', '--porcelain', '--untracked-files=all')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3));
const execFileAsync = promisify(execFile);
/**
 * Runs a tool of the copy's node_modules in the copy: its exit status and output. Asynchronous, so
 * the test worker keeps answering vitest while `tsc` and the nested test run (minutes under load).
 */
async function tool(name: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(path.join(copy, 'node_modules/.bin', name), args, { cwd: copy, encoding: 'utf8', maxBuffer: 64 << 20 });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: unknown; stdout?: string; stderr?: string };
    return { status: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
const scaffold = (...args: string[]) => tool('tsx', ['scripts/new-hrms.ts', ...args]);

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'hrx-new-hrms-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && !f.startsWith('node_modules/') && existsSync(path.join(root, f)));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    cpSync(path.join(root, f), path.join(copy, f));
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=hrx', '-c', 'user.email=hrx@example.invalid', 'commit', '-q', '-m', 'copy');
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('npm run new:hrms', () => {
  it('refuses a malformed id and one already listed, writing nothing', async () => {
    for (const id of ['Bad-Id', HRMS_IDS[1]]) {
      const run = await scaffold(id);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/^new:hrms: /);
    }
    expect(changed()).toEqual([]);
  });

  it('writes a product that type-checks and passes its own test, touching nothing else outside its folder', async () => {
    const run = await scaffold(ID);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const own = `test/integration/hrms/${ID}.integration.test.ts`;
    const outside = changed().filter((f) => !f.startsWith(`src/hrms/${ID}/`) && f !== own);
    expect(outside.filter((f) => f !== 'src/hrms/hrms-ids.ts' && !GENERATED.includes(f))).toEqual([]);
    expect(outside).toContain('src/hrms/hrms-ids.ts');
    expect(changed()).toEqual(
      expect.arrayContaining(
        ['connector.ts', 'definition.ts', 'index.ts', 'mapping.ts', 'product.ts', 'README.md', 'sim/index.ts'].map((f) => `src/hrms/${ID}/${f}`),
      ),
    );
    expect(readFileSync(path.join(copy, 'src/hrms/hrms-ids.ts'), 'utf8')).toMatch(new RegExp(`HRMS_IDS = \\[[^\\]]*'${ID}'\\] as const`));
    expect(readFileSync(path.join(copy, 'src/hrms/catalog.ts'), 'utf8')).toContain(`import { product as ${ID} } from './${ID}';`);
    // The README's table came from the mapping rows (npm run docs ran).
    expect(readFileSync(path.join(copy, `src/hrms/${ID}/README.md`), 'utf8')).toContain('| employeeId | `id` |');
    expect(await tool('tsc', ['--noEmit', '-p', '.'])).toMatchObject({ status: 0, stdout: '' });
    const ownTest = await tool('vitest', ['run', own]);
    expect(ownTest.stdout).toContain('3 passed');
    expect(ownTest.status).toBe(0);
    // The repository itself holds no trace of the product.
    expect(existsSync(path.join(root, 'src/hrms', ID))).toBe(false);
  }, 900_000);
});
