#!/usr/bin/env node
/**
 * Fails when `as unknown as` appears in src/ or jobs/ outside a documented seam
 * (docs/architecture.md). A seam is a line holding `seam:` in a comment, on the line itself or in the comment
 * lines right above it, saying why the types cannot carry the value there.
 * Usage: node scripts/check-casts.mjs [dir...]   (default: src jobs). Exit 1 on any hit.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'jobs'];
const CAST = /\bas\s+unknown\s+as\b/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|mts|cts|tsx|js|mjs)$/.test(name)) yield p;
  }
}

/** True when line `i` or the comment block right above it marks a seam. */
function isSeam(lines, i) {
  if (/\/\/.*\bseam:|\/\*.*\bseam:/.test(lines[i])) return true;
  for (let j = i - 1; j >= 0 && /^\s*(\/\/|\*|\/\*)/.test(lines[j]); j--) {
    if (/\bseam:/.test(lines[j])) return true;
  }
  return false;
}

const hits = [];
let seams = 0;
for (const root of roots) {
  for (const file of files(root)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!CAST.test(line)) return;
      if (isSeam(lines, i)) seams++;
      else hits.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
}
if (hits.length) {
  console.error(`check-casts: ${hits.length} \`as unknown as\` outside a documented seam (mark one with a \`// seam: why\` comment, or type it):`);
  for (const h of hits) console.error(`  ${h}`);
  process.exit(1);
}
console.log(`check-casts: no \`as unknown as\` outside a documented seam (${seams} seam${seams === 1 ? '' : 's'}) in ${roots.join(', ')}`);
