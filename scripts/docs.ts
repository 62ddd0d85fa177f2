/**
 * `npm run docs`: writes the generated documentation (scripts/docs/generate.ts) into the
 * repository. `npm run docs -- --check` writes nothing and exits 1 naming every stale file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG_FILE, catalogSource } from './docs/catalog-source';

const root = path.resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
// The catalog first, from hrms-ids.ts alone: what follows is built from it (a product just added
// to HRMS_IDS is in it). The generated set below compares it again.
if (!check) writeFileSync(path.join(root, CATALOG_FILE), catalogSource());
const { generatedDocs } = await import('./docs/generate');
const stale: string[] = [];
for (const [file, content] of Object.entries(await generatedDocs())) {
  const full = path.join(root, file);
  let current: string | undefined;
  try {
    current = readFileSync(full, 'utf8');
  } catch {
    /* not written yet */
  }
  if (current === content) continue;
  stale.push(file);
  if (!check) writeFileSync(full, content);
}
if (check && stale.length) {
  process.stderr.write(`stale generated docs (run npm run docs): ${stale.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'generated docs are up to date\n');
