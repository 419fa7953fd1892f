// The import rules of docs/architecture.md, checked by `npm run check:imports` (and so by .ci/run).
// A capability is any folder of src/ that is not one of the shared rooms below: a new capability is covered the
// day its folder exists.
const SHARED = 'platform|context|rails|cards|links|events|scheduler|http|web|cli';
const CAPABILITY = `^src/(?!(?:${SHARED})/)[^/]+/`;
const ROOTS = '^src/(modules|server|upkeep|paygate)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No file reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-is-the-ground',
      comment: 'platform/ (config, clocks, tenants, database, errors, money) imports nothing of src/ above it.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'rails-know-no-capability',
      comment: 'The rails (the outside world and the two-phase operation) build on the platform and card handling only.',
      severity: 'error',
      from: { path: '^src/(rails|cards)/' },
      to: { path: '^src/', pathNot: '^src/(platform|cards|rails)/' },
    },
    {
      name: 'mechanisms-know-no-capability',
      comment: 'The shared mechanisms (context, links, outbox, due work) serve every capability and name none.',
      severity: 'error',
      from: { path: '^src/(context|links|events|scheduler)/' },
      to: { path: [CAPABILITY, ROOTS, '^src/module\\.ts$', '^src/(http|web|cli)/'] },
    },
    {
      name: 'transports-know-no-capability',
      comment: 'HTTP, the hosted pages and the command line share what every route, page or command needs; modules bring the rest.',
      severity: 'error',
      from: { path: '^src/(http|web|cli)/' },
      to: { path: [CAPABILITY, ROOTS, '^src/module\\.ts$'] },
    },
    {
      name: 'domain-knows-no-transport',
      comment: "Verbs, stores and presenters never import http/, web/ or the CLI: only a module's routes, pages and commands do.",
      severity: 'error',
      from: { path: CAPABILITY, pathNot: `${CAPABILITY}([a-z-]*routes\\.ts|[a-z-]+/routes\\.ts|module\\.ts|cli\\.ts|[a-z-]+/cli\\.ts|pages/|cli/)` },
      to: { path: '^src/(http|web|cli)/' },
    },
    {
      name: 'stores-are-private',
      comment: 'One capability reaches another through its verbs, never its store.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: ['^src/[^/]+/[a-z-]*store\\.ts$', '^src/[^/]+/[a-z-]+/[a-z-]*store\\.ts$'], pathNot: ['^src/$1/', `^src/(${SHARED})/`] },
    },
    {
      name: 'capabilities-meet-through-their-face',
      comment: "A capability (or a root) enters another capability only through its index.ts: its manifest, verbs and read models.",
      severity: 'error',
      from: { path: '^src/([^/]+)' },
      to: { path: CAPABILITY, pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'only-the-roots-compose',
      comment: 'The module list, the server, the upkeep and the CLI entry compose everything; nothing imports them back.',
      severity: 'error',
      from: { path: '^src/.+/' },
      to: { path: ROOTS },
    },
    {
      name: 'client-stands-alone',
      comment: 'The SDK (@paygate/client) is its own package: it imports nothing of the server.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
