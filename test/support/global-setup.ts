/** Runs once before the suite: nothing to prepare yet beyond checking the Node version. */
export default function setup(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`hrx needs Node.js 22+, running ${process.versions.node}`);
}
