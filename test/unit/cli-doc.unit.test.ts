/**
 * docs/cli.md is what `npm run docs:cli` renders from the command definitions (every command's
 * --help, scripts/cli-doc.ts): a changed command or option without the page rewritten fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_DOC, renderCliDoc } from '../../scripts/cli-doc';

describe('docs/cli.md', () => {
  it('is up to date with the commands (run npm run docs:cli)', () => {
    const doc = renderCliDoc();
    expect(readFileSync(CLI_DOC, 'utf8')).toBe(doc);
    const flat = doc.replace(/\s+/g, ' ');
    for (const c of ['### hrx sync run', '### hrx connection create', '### hrx migrate', '"weekly", default: "daily")']) expect(flat).toContain(c);
  });
});
