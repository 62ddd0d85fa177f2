#!/usr/bin/env node
// `npm run bench`: loads the TypeScript benchmarks through tsx and runs them (see bench/main.ts).
import { register } from 'tsx/esm/api';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `the benchmarks need Node.js 22 or newer (this is ${process.version}). Run them with npm run bench, which uses the Node.js the project installs.`,
  );
  process.exit(1);
}
register();
const { main } = await import('../bench/main.ts');
process.exit(await main(process.argv.slice(2)));
