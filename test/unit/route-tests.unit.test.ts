/**
 * Every route of the route table has its integration test file, named after the route
 * (test/README.md "Layout"): `test/integration/<feature>/<operation-id>.integration.test.ts`, where
 * `<feature>` is the `src/` folder that declares the route and `<operation-id>` its OpenAPI
 * `operationId` in kebab case (`listConsents` → `list-consents`); more files of the same route add
 * a suffix (`get-employee-details-batch`). In a folder that owns routes, every other file is one of
 * the suites test/README.md lists under "Suites beside the route files"; in any other folder, no
 * file is named after a route (a route test in the wrong folder, or one whose route is gone).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeTable, type RouteServices } from '../../src/app';
import { loadConfig } from '../../src/config';

const root = path.resolve(import.meta.dirname, '../..');
const integration = path.join(root, 'test/integration');
const SUFFIX = '.integration.test.ts';

/** `listConsents` → `list-consents`, `getOpenApiDocument` → `get-open-api-document`. */
function kebab(operationId: string): string {
  return operationId.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) yield* tsFiles(p);
    else if (name.endsWith('.ts')) yield p;
  }
}

/** operationId → the `src/` folder whose code declares it (`operationId: 'x'` in a route's `doc`). */
function owners(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of tsFiles(path.join(root, 'src'))) {
    const feature = path.relative(path.join(root, 'src'), file).split(path.sep)[0]!;
    for (const [, id] of readFileSync(file, 'utf8').matchAll(/\boperationId:\s*'(\w+)'/g)) out.set(id!, [...(out.get(id!) ?? []), feature]);
  }
  return out;
}

/** `<folder>/<name>` of every integration test file (name without `.integration.test.ts`). */
function testFiles(): string[] {
  return readdirSync(integration)
    .filter((d) => statSync(path.join(integration, d)).isDirectory())
    .flatMap((d) =>
      readdirSync(path.join(integration, d))
        .filter((n) => n.endsWith(SUFFIX))
        .map((n) => `${d}/${n.slice(0, -SUFFIX.length)}`),
    );
}

/** The suites test/README.md lists under "Suites beside the route files", as `<folder>/<name>`. */
function listedSuites(): string[] {
  const md = readFileSync(path.join(root, 'test/README.md'), 'utf8');
  const start = md.indexOf('\n## Suites beside the route files');
  expect(start, 'test/README.md has a section "Suites beside the route files"').toBeGreaterThan(0);
  const end = md.indexOf('\n## ', start + 1);
  const section = md.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/`([a-z_]+\/[a-z0-9_-]+)`/g)].map((m) => m[1]!);
}

const routes = routeTable({} as RouteServices, loadConfig({}));
const declared = owners();
/** Each route as `{ feature, file }`: `file` is `<feature>/<operation-id>`. */
const expected = routes.map((r) => {
  const id = r.doc?.operationId ?? '';
  const where = declared.get(id) ?? [];
  return { route: `${r.method} ${r.path}`, id, where, file: `${where[0]}/${kebab(id)}` };
});

describe('route test files by operationId', () => {
  it('finds each operationId declared in exactly one src/ folder', () => {
    expect(expected.filter((e) => e.where.length !== 1).map((e) => `${e.route} (${e.id}): ${e.where.join(', ') || 'nowhere'}`)).toEqual([]);
    expect(kebab('listConsents')).toBe('list-consents');
    expect(kebab('getOpenApiDocument')).toBe('get-open-api-document');
  });

  it('has a test file for every route of the table', () => {
    const files = new Set(testFiles());
    expect(expected.filter((e) => !files.has(e.file)).map((e) => `${e.route}: test/integration/${e.file}${SUFFIX}`)).toEqual([]);
  });

  it('has no test file named after a route that is not its own, or in the wrong folder', () => {
    const listed = new Set(listedSuites());
    const routeFolders = new Set(expected.map((e) => e.file.split('/')[0]!));
    const orphans = testFiles().filter((f) => {
      const [folder, name] = f.split('/') as [string, string];
      // `<operation-id>` or `<operation-id>-<suffix>` of a route this folder declares.
      const ofRoute = expected.some((e) => e.file === f || (e.file.startsWith(`${folder}/`) && name.startsWith(`${kebab(e.id)}-`)));
      if (ofRoute) return false;
      // Outside a route folder a file only has to keep clear of route names.
      if (!routeFolders.has(folder)) return expected.some((e) => name === kebab(e.id) || name.startsWith(`${kebab(e.id)}-`));
      return !listed.has(f);
    });
    expect(orphans.map((f) => `test/integration/${f}${SUFFIX}`)).toEqual([]);
  });

  it('lists in test/README.md only suites that exist', () => {
    const files = new Set(testFiles());
    expect(listedSuites().filter((s) => !files.has(s))).toEqual([]);
  });
});
