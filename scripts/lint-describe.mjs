#!/usr/bin/env node
/**
 * Fails when a `describe` block in a test file spans more than 150 lines (test/README.md): a long
 * describe hides which setup each test relies on, so split it into nested or sibling describes.
 * Nested describes count toward their parent. Parses with the TypeScript compiler, so a `describe`
 * in a string or comment is not counted; `describe.skip`, `describe.each(...)(...)` etc. are.
 * Usage: node scripts/lint-describe.mjs [dir...]   (default: test). Exit 1 on any hit.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const MAX = 150;
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['test'];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (name.endsWith('.test.ts')) yield p;
  }
}

const hits = [];
let count = 0;
let longest = 0;
for (const root of roots) {
  for (const file of files(root)) {
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const line = (pos) => src.getLineAndCharacterOfPosition(pos).line + 1;
    const visit = (node) => {
      if (ts.isCallExpression(node)) {
        // `describe.each(table)('name', fn)`: the callee of the outer call is itself a call.
        let callee = node.expression;
        while (ts.isCallExpression(callee)) callee = callee.expression;
        if (/^describe(\.|$)/.test(callee.getText(src))) {
          count++;
          const start = line(node.getStart(src));
          const length = line(node.getEnd()) - start + 1;
          longest = Math.max(longest, length);
          if (length > MAX) hits.push(`${file}:${start}: describe of ${length} lines`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
}
if (hits.length) {
  console.error(`lint-describe: ${hits.length} describe block${hits.length === 1 ? '' : 's'} over ${MAX} lines (split into nested or sibling describes):`);
  for (const h of hits) console.error(`  ${h}`);
  process.exit(1);
}
console.log(`lint-describe: ${count} describe blocks in ${roots.join(', ')}, none over ${MAX} lines (longest ${longest})`);
