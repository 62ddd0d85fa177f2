/**
 * `npm ci` on an older system Node (20, the npm that installs the project) prints no EBADENGINE
 * warning, while hrx itself still runs on Node 22+ only. npm warns for every
 * installed package whose `engines.node` the running Node does not satisfy, the root included,
 * except optional ones (skipped quietly) and the root when it declares `devEngines` (npm then
 * checks those instead; `onFail: ignore` makes them silent). So: the root declares devEngines
 * (node >=22, ignore) beside `engines` (what it needs), every non-optional package of the lock
 * accepts Node 20.19, and bin/hrx.js refuses Node < 22 before loading anything.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const json = (f: string) => JSON.parse(readFileSync(path.join(ROOT, f), 'utf8')) as Record<string, any>;
/** The oldest Node 20 on which npm ci must be silent (our machines have 20.20). */
const NPM_NODE = '20.19.0';

describe('engines', () => {
  it('the root declares devEngines (ignored on failure) and still needs Node 22+', () => {
    const pkg = json('package.json');
    expect(pkg.engines).toEqual({ node: '>=22' });
    expect(pkg.devEngines).toEqual({ runtime: { name: 'node', version: '>=22', onFail: 'ignore' } });
  });

  it(`every non-optional package in package-lock.json accepts Node ${NPM_NODE}`, () => {
    const refused = Object.entries(json('package-lock.json').packages as Record<string, { engines?: { node?: string }; optional?: boolean }>)
      .filter(([p, v]) => p !== '' && !v.optional && v.engines?.node && !semver.satisfies(NPM_NODE, v.engines.node))
      .map(([p, v]) => `${p} ${v.engines!.node}`);
    expect(refused).toEqual([]);
  });

  it('bin/hrx.js checks the Node version before importing anything', () => {
    const bin = readFileSync(path.join(ROOT, 'bin/hrx.js'), 'utf8');
    expect(bin).not.toMatch(/^import /m);
    expect(bin.indexOf('if (major < 22)')).toBeGreaterThan(0);
    expect(bin.indexOf('if (major < 22)')).toBeLessThan(bin.indexOf("await import('tsx/esm/api')"));
  });
});
