#!/usr/bin/env node
// The `hrx` executable: loads TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`hrx needs Node.js 22 or newer (this is ${process.version}). Run it through npm (npm run / npx), which uses the Node.js the project installs.`);
  process.exit(1);
}
register();
const { main } = await import('../src/cli/main.ts');
// The composition root: the job side (jobs/) is handed to the CLI, which never imports it.
const { startJobs } = await import('../jobs/index.ts');
await main(process.argv.slice(2), startJobs);
