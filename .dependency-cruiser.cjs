/**
 * Layering rules, run by `npm run lint`: dependencies run downward, from the composition
 * roots (src/app.ts, src/main.ts, src/graphql/schema.ts) through the facades and the features to the
 * platform (auth, context, db, errors, graphql, http) and the entities.
 */
const FEATURES =
  '^src/(accounts|catalogue|credentials|documents|search|fusion|matching|ingestion|oauth|users|demo)/';
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No module depends on itself through others (a type-only import is not a dependency at run time).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-facade-imports',
      severity: 'error',
      comment: 'Facades are leaves: only the composition root registers them.',
      from: { path: '^src/', pathNot: '^src/(app|main|contracts)\\.ts$' },
      to: { path: '^facades/' },
    },
    {
      name: 'facades-use-graphql',
      severity: 'error',
      comment:
        'A facade runs GraphQL operations on the one schema; it imports platform modules, not a feature.',
      from: { path: '^facades/' },
      to: { path: FEATURES },
    },
    {
      name: 'domain-without-transport',
      severity: 'error',
      comment: 'Services and the matching rules know neither GraphQL nor HTTP.',
      from: {
        path: '^src/.+\\.service\\.ts$|^src/search/(query|text)/|^src/matching/',
      },
      to: { path: 'node_modules/(graphql|type-graphql|fastify|@fastify|@apollo)/' },
    },
    {
      name: 'search-text-under-query',
      severity: 'error',
      comment:
        'The text side of search (src/search/text/: what is stored and searched, the same rules for every chunk) knows nothing of the query side (src/search/query/) or the service; ingestion uses it alone.',
      from: { path: '^src/search/text/' },
      to: { path: '^src/search/(query/|search\\.)' },
    },
    {
      name: 'platform-knows-no-feature',
      severity: 'error',
      comment:
        'auth, context, db, errors, graphql and http sit under every feature; what a feature lends them (sessions, the token audience, the queue) is passed in by src/app.ts. graphql/schema.ts is the composition root of the resolvers.',
      from: { path: '^src/(auth|context|db|errors|graphql|http)/', pathNot: '^src/graphql/schema\\.ts$' },
      to: { path: FEATURES },
    },
    {
      name: 'features-without-transport',
      severity: 'error',
      comment:
        'A feature reaches HTTP through the transport side (src/app.ts, the facades): routes that speak HTTP live in facades/ and call the feature through the deps it lends.',
      from: { path: FEATURES },
      to: { path: '^src/http/' },
    },
    {
      name: 'migrations-without-live-code',
      severity: 'error',
      comment:
        'A migration means the same forever: it imports no application code, so a later change to the normalizer (or anything else) cannot change what it does. Stored text is derived again by src/search/text/rederive.ts.',
      from: { path: '^migrations/' },
      to: { path: '^(src|facades)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|test)/' },
  },
};
