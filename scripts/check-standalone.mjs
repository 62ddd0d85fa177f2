#!/usr/bin/env node
/**
 * Fails when a comment or doc in the repository cites a file a clone does not have: the design
 * notes and the interface notes the project was built from (by their file names or as
 * "decisions" followed by a section sign), a developers' guide, a tracker's issue number
 * ("issue" and a digit), or the research notes on HRMS products (cited by section: a
 * product's sources are in its own README, src/hrms/<product>/README.md). A rule is cited by the docs/ section that states it, e.g.
 * `docs/connect.md "Who may approve"`, so every reference can be followed in a clone.
 * Vendors' own API descriptions (src/hrms/<product>/openapi/) are not ours and are skipped.
 * Usage: node scripts/check-standalone.mjs [path...]   (default: DEFAULT_ROOTS). Exit 1 listing
 * file:line of every hit. `npm run lint:standalone`, run by .ci/run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What is checked by default, relative to the repository root. */
export const DEFAULT_ROOTS = ['src', 'jobs', 'bin', 'scripts', 'test', 'docs', 'bench', 'README.md', '.ci', '.dependency-cruiser.cjs'];

// Built from pieces so this file does not cite what it forbids.
const SECTION = '\u00a7';
const PATTERNS = [
  { what: 'design notes', re: new RegExp(`\\bdecisions(?:\\.md)?\\s*${SECTION}`) },
  { what: 'design notes', re: new RegExp('\\bdecisions\\.md\\b') },
  { what: 'interface notes', re: new RegExp('\\binterface\\.md\\b') },
  { what: 'developers guide', re: new RegExp('\\bDEVELOPERS\\.md\\b') },
  { what: 'issue number', re: new RegExp('\\b[Ii]ssue #?[0-9]') },
  { what: 'research notes', re: new RegExp(`\\bresearch (?:hrms-dialects\\.md )?(?:${SECTION}|section [0-9])|\\bhrms-dialects\\.md\\b`) },
];
/** A citation split over two lines: "decisions" ending one line, the section sign opening the next. */
const WRAPPED = new RegExp(`\\bdecisions(?:\\.md)?\\s*\\n\\s*(?:\\*|//|#)?\\s*${SECTION}`, 'g');

/** True for paths the check skips: dependencies, git's own files and vendors' API descriptions. */
export function isExcluded(path) {
  const p = path.split(sep).join('/');
  return /(^|\/)(node_modules|\.git)(\/|$)/.test(p) || /(^|\/)src\/hrms\/[^/]+\/openapi\//.test(p);
}

/**
 * The citations in `files` (each `{ path, text }`), as `{ path, line, what, text }` with `line`
 * 1-based and `text` the offending line trimmed. Pure: no file system, so a test can plant one.
 */
export function findCitations(files) {
  const hits = [];
  for (const { path, text } of files) {
    if (isExcluded(path)) continue;
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      const p = PATTERNS.find(({ re }) => re.test(line));
      if (p) hits.push({ path, line: i + 1, what: p.what, text: line.trim() });
    });
    for (const m of text.matchAll(WRAPPED)) {
      const line = text.slice(0, m.index).split('\n').length;
      if (!hits.some((h) => h.path === path && h.line === line)) {
        hits.push({ path, line, what: 'design notes', text: (lines[line - 1] ?? '').trim() });
      }
    }
  }
  return hits.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
}

/** Text files under `roots` (directories or files, relative to `cwd`), as `{ path, text }`. */
export function readTree(roots = DEFAULT_ROOTS, cwd = process.cwd()) {
  const out = [];
  const walk = (abs) => {
    const rel = relative(cwd, abs);
    if (isExcluded(rel)) return;
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(abs)) walk(join(abs, name));
      return;
    }
    const buf = readFileSync(abs);
    if (buf.includes(0)) return; // binary
    out.push({ path: rel, text: buf.toString('utf8') });
  };
  for (const root of roots) walk(join(cwd, root));
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const roots = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT_ROOTS;
  const files = readTree(roots);
  const hits = findCitations(files);
  if (hits.length) {
    console.error(`check-standalone: ${hits.length} citation${hits.length === 1 ? '' : 's'} of files outside the repository (cite the docs/ section instead):`);
    for (const h of hits) console.error(`  ${h.path}:${h.line}: [${h.what}] ${h.text}`);
    process.exit(1);
  }
  console.log(`check-standalone: no citation of files outside the repository in ${files.length} files (${roots.join(', ')})`);
}
