#!/usr/bin/env node
// The `hrx` executable: loads TypeScript sources through tsx and runs the CLI.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `hrx needs Node.js 22 or newer (this is ${process.version}). Run ./hrx after npm ci (which installs Node.js 24, the "node" package, a development dependency), or run it on Node.js 22 or newer.`,
  );
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../src/cli/main.ts');
// The composition root: the job side (jobs/) is handed to the CLI, which never imports it. It is
// loaded only by the commands that run workers (`--help` and one-shot commands never load it).
const startJobs = async (ctx) => (await import('../jobs/index.ts')).startJobs(ctx);
await main(process.argv.slice(2), startJobs);
