/**
 * The repository stands alone (scripts/check-standalone.mjs, `npm run lint:standalone`): no
 * comment or doc cites the design or interface notes the project was built from, a developers'
 * guide or a tracker's issue number, since a clone has none of them; rules are cited by their
 * docs/ section. The tree is checked as it is, and planted citations (in memory, built from
 * pieces so this file cites nothing itself) prove the check sees each form.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROOTS, findCitations, isExcluded, readTree } from '../../scripts/check-standalone.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const S = '\u00a7';
const file = (text: string, p = 'src/some/feature.ts') => ({ path: p, text });

describe('check-standalone', () => {
  it('finds no citation of a file outside the repository in the tree', () => {
    const files = readTree(DEFAULT_ROOTS, ROOT);
    // The walk really read the tree (this file among them), not an empty list.
    expect(files.length).toBeGreaterThan(300);
    expect(files.map((f) => f.path)).toContain(path.join('test', 'unit', 'standalone.unit.test.ts'));
    expect(findCitations(files)).toEqual([]);
  });

  it('catches each planted form, naming file and line', () => {
    const text = [
      '/**',
      ` * The sync lock (decisions ${S}4): one sync per org.`,
      ' * Masking (decisions' + `.md ${S}3).`,
      ' * As ' + 'interface' + '.md "Setup config" shows.',
      ' * See ' + 'DEVELOPERS' + '.md.',
      ' * Reviewed in ' + 'issue' + ' 7 point 11; also ' + 'Issue' + ' 12.',
      ' * Wrapped (default 64 MiB, decisions',
      ` * ${S}11).`,
      ' * Paging (research ' + `${S}3), the token (research ` + 'section 1), ' + 'hrms-dialects' + '.md.',
      ' */',
    ].join('\n');
    const hits = findCitations([file(text)]);
    expect(hits.map((h) => [h.path, h.line, h.what])).toEqual([
      ['src/some/feature.ts', 2, 'design notes'],
      ['src/some/feature.ts', 3, 'design notes'],
      ['src/some/feature.ts', 4, 'interface notes'],
      ['src/some/feature.ts', 5, 'developers guide'],
      ['src/some/feature.ts', 6, 'issue number'],
      ['src/some/feature.ts', 7, 'design notes'],
      ['src/some/feature.ts', 9, 'research notes'],
    ]);
    expect(hits[0]!.text).toBe(`* The sync lock (decisions ${S}4): one sync per org.`);
  });

  it('passes docs/ citations, RFC sections and ordinary words', () => {
    const text = [
      '// docs/connect.md "Who may approve"; RFC 6749 ' + S + '4.4; DPDP Act 2023 ' + S + '8(7).',
      '// The HR admin decisions are audited; it issues 2 tokens; an issuer; the research says `?`.',
      '# docs/operations.md "Scaling out"',
    ].join('\n');
    expect(findCitations([file(text), file(text, 'docs/x.md')])).toEqual([]);
  });

  it("skips vendors' API descriptions and node_modules, not our own files", () => {
    const planted = `see decisions ${S}14`;
    expect(isExcluded('src/hrms/keka/openapi/keka.yaml')).toBe(true);
    expect(isExcluded('node_modules/x/README.md')).toBe(true);
    expect(isExcluded('src/hrms/keka/connector.ts')).toBe(false);
    expect(findCitations([file(planted, 'src/hrms/keka/openapi/keka.yaml')])).toEqual([]);
    expect(findCitations([file(planted, 'src/hrms/keka/connector.ts')])).toHaveLength(1);
  });
});
