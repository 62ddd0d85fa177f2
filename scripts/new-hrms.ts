/**
 * `npm run new:hrms -- <hrms_id>`: starts a new HRMS product (docs/hrms/adding-a-product.md
 * "The scaffold"). Writes the product folder `src/hrms/<hrms_id>/` (definition, connector, mapping
 * rows, product info, simulator on the kit, README with the generated-table markers) and its test
 * `test/integration/hrms/<hrms_id>.integration.test.ts`, adds the id to `HRMS_IDS`
 * (src/hrms/hrms-ids.ts) and runs `npm run docs`, which writes the catalog and every list of
 * products. Nothing else outside the folder is touched. Refuses (exit 1, nothing written) an id
 * that is not lower-case letters, digits and `_` (2 to 31, starting with a letter), one already
 * listed, or one whose folder or test exists. `--no-docs` skips `npm run docs` (run it yourself).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAPPING_MARKERS } from './docs/hrms-mapping';
import { namesOf, productFiles } from './new-hrms/templates';

const root = path.resolve(import.meta.dirname, '..');
const IDS_FILE = 'src/hrms/hrms-ids.ts';

function fail(message: string): never {
  process.stderr.write(`new:hrms: ${message}\n`);
  process.exit(1);
}

/** `hrms-ids.ts` with `id` appended to `HRMS_IDS`; throws when the list is not found. */
function withId(source: string, id: string): string {
  const m = /export const HRMS_IDS = \[([^\]]*)\] as const;/.exec(source);
  if (!m) throw new Error(`no HRMS_IDS list in ${IDS_FILE}`);
  return source.replace(m[0], `export const HRMS_IDS = [${m[1]!.trimEnd()}, '${id}'] as const;`);
}

const args = process.argv.slice(2);
const id = args.find((a) => !a.startsWith('--'));
if (!id) fail('usage: npm run new:hrms -- <hrms_id> [--no-docs]');
if (!/^[a-z][a-z0-9_]{1,30}$/.test(id)) fail(`${JSON.stringify(id)} is not an hrms_id (lower-case letters, digits and _, starting with a letter)`);
const idsSource = readFileSync(path.join(root, IDS_FILE), 'utf8');
if (new RegExp(`'${id}'`).test(idsSource)) fail(`${id} is already in HRMS_IDS`);
const files = productFiles(namesOf(id), MAPPING_MARKERS);
for (const file of Object.keys(files)) if (existsSync(path.join(root, file))) fail(`${file} exists already`);
if (existsSync(path.join(root, 'src/hrms', id))) fail(`src/hrms/${id}/ exists already`);

for (const [file, content] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
}
writeFileSync(path.join(root, IDS_FILE), withId(idsSource, id));
// The templates are laid out by hand; Prettier gives them the repository's layout.
const code = Object.keys(files).filter((f) => f.endsWith('.ts'));
execFileSync(path.join(root, 'node_modules/.bin/prettier'), ['--log-level', 'warn', '--write', ...code], { cwd: root, stdio: 'inherit' });
process.stdout.write(`wrote ${Object.keys(files).join(', ')}; added ${id} to ${IDS_FILE}\n`);
if (!args.includes('--no-docs')) execFileSync('npm', ['run', '--silent', 'docs'], { cwd: root, stdio: 'inherit' });
process.stdout.write(`next: replace every TODO(new:hrms) in src/hrms/${id}/ (docs/hrms/adding-a-product.md)\n`);
