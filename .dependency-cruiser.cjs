/**
 * Dependency rules of hrx (docs/architecture.md), run by `npm run lint:deps` in
 * .ci/run. Layers, top to bottom: bin/ and jobs/ (composition roots) → src/<feature>/routes.ts →
 * service.ts → store.ts → db/, domain/ and the shared helpers. Type-only imports count: a type
 * is a dependency too.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'src-not-to-jobs',
      comment: 'src/ never imports jobs/: the workers are handed to the CLI by bin/hrx.js (jobs/index.ts).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^jobs/' },
    },
    {
      name: 'domain-is-neutral',
      comment: 'src/domain/ (record model, data points, masking) is pure and imports no other folder of src/.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'hrms-knows-no-features',
      comment:
        'HRMS connectors know nothing of stores, routes or HTTP: they may import only the domain, crypto, ' +
        'the outbound guards, the error table, the logger and config types.',
      severity: 'error',
      from: { path: '^src/hrms/' },
      to: {
        path: '^src/',
        pathNot: '^src/(hrms|domain|crypto|outbound)/|^src/(errors|logger|config)\\.ts$',
      },
    },
    {
      name: 'store-not-up',
      comment: 'A store (store.ts, *-store.ts) is the bottom of its feature: it imports no service and no routes.',
      severity: 'error',
      from: { path: 'store\\.ts$' },
      to: { path: '(service|routes)\\.ts$' },
    },
    {
      name: 'service-knows-no-http',
      comment: 'A service (service.ts, *-service.ts) imports no routes and nothing of src/http/: nothing below routes knows HTTP.',
      severity: 'error',
      from: { path: 'service\\.ts$' },
      to: { path: 'routes\\.ts$|^src/http/' },
    },
    {
      name: 'hrms-product-not-to-other-product',
      comment:
        "A product folder (src/hrms/<hrms_id>/) never imports another product's folder: what two products share " +
        'lives beside them in src/hrms/ (decode.ts, cursor.ts, ...) or the simulator kit src/hrms/sim/ (src/hrms/README.md "Shared mechanics").',
      severity: 'error',
      from: { path: '^src/hrms/([^/]+)/' },
      to: { path: '^src/hrms/[^/]+/', pathNot: '^src/hrms/($1|sim)/' },
    },
    {
      name: 'routes-not-to-other-routes',
      comment: "One feature's routes.ts never imports another feature's routes.ts (share a schema module instead).",
      severity: 'error',
      from: { path: '^src/([^/]+)/routes\\.ts$' },
      to: { path: '^src/[^/]+/routes\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: '^(src|jobs|bin)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
