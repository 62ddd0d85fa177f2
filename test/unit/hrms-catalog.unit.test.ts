/**
 * One list of products (src/hrms/hrms-ids.ts) drives every list hrx keeps of them: the folders on
 * disk, the registry, the product table, the simulators and the CLI's dialects all name the same
 * products in the same order, and each product's parts agree on its `hrms_id`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIM_DIALECTS } from '../../src/cli/long';
import { HRMS_CATALOG } from '../../src/hrms/catalog';
import { HRMS_IDS } from '../../src/hrms/hrms-ids';
import { HRMS_PRODUCTS } from '../../src/hrms/products';
import { SUPPORTED_HRMS } from '../../src/hrms/registry';
import { DIALECT_SIMS } from '../../src/hrms/sim/dialects';

const root = path.resolve(import.meta.dirname, '../..');
const hrmsDir = path.join(root, 'src/hrms');

describe('the HRMS catalog', () => {
  it('lists exactly the product folders of src/hrms (a folder with a definition.ts)', () => {
    const folders = readdirSync(hrmsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(hrmsDir, d.name, 'definition.ts')))
      .map((d) => d.name);
    expect([...HRMS_IDS].sort()).toEqual(folders.sort());
    for (const id of HRMS_IDS) expect(existsSync(path.join(hrmsDir, id, 'index.ts')), `${id}/index.ts`).toBe(true);
  });

  it('builds the registry, the product table, the simulators and the CLI dialects from that one list, in its order', () => {
    const ids = [...HRMS_IDS];
    expect(HRMS_CATALOG.map((p) => p.hrmsId)).toEqual(ids);
    expect(SUPPORTED_HRMS).toEqual(ids);
    expect(HRMS_PRODUCTS.map((p) => p.hrmsId)).toEqual(ids);
    expect([...DIALECT_SIMS.keys()]).toEqual(ids);
    expect(SIM_DIALECTS).toEqual(ids);
  });

  it("gives each product's definition and product info its folder's hrms_id, and a page in its folder", () => {
    for (const p of HRMS_CATALOG) {
      expect(p.definition.hrmsId).toBe(p.hrmsId);
      expect(p.info.hrmsId).toBe(p.hrmsId);
      expect(DIALECT_SIMS.get(p.hrmsId)).toBe(p.startSim);
      if (p.hrmsId === 'reference') continue;
      expect(p.docsPage).toBe(`src/hrms/${p.hrmsId}/README.md`);
      expect(readFileSync(path.join(root, p.docsPage!), 'utf8')).toMatch(new RegExp(`^# ${p.info.displayName}\\n`));
    }
  });

  it('keeps the one list free of imports, so `hrx --help` loads no connector or simulator', () => {
    expect(readFileSync(path.join(hrmsDir, 'hrms-ids.ts'), 'utf8')).not.toMatch(/^import /m);
    const long = readFileSync(path.join(root, 'src/cli/long.ts'), 'utf8');
    expect(long.match(/^import (?!type ).* from '(.*)';$/gm)?.filter((l) => l.includes('hrms'))).toEqual(["import { HRMS_IDS } from '../hrms/hrms-ids';"]);
  });
});
