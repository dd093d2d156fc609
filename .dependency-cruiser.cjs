/**
 * Layering rules (issue 15), run by `npm run lint`. Known exceptions are listed in the rule that
 * they break, each with the reason: they are the work left, not permissions.
 */
const FEATURES = '^src/(accounts|catalogue|credentials|documents|search|fusion|matching|ingestion|oauth|users|demo)/';
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No module depends on itself through others (a type-only import is not a dependency at run time). Known: db/availability -> http/deadline -> db/pool-watch -> db/availability (the deadline module should move under db/ or take the availability as a parameter).',
      from: { pathNot: '^src/(db/(availability|pool-watch)|http/deadline)\\.ts$' },
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
        'A facade runs GraphQL operations on the one schema; it imports platform modules, not a feature. Known: the operator upload route (facades/rest/upload.routes.ts) streams to the ingestion service, and the MCP plugin serves the OAuth protected-resource metadata.',
      from: { path: '^facades/', pathNot: '^facades/(rest/upload\\.routes|mcp/mcp\\.plugin)\\.ts$' },
      to: { path: FEATURES },
    },
    {
      name: 'domain-without-transport',
      severity: 'error',
      comment: 'Services and the matching rules know neither GraphQL nor HTTP.',
      from: { path: '^src/.+\\.service\\.ts$|^src/search/(normalize|match|lexemes|compounds|spellings|abbreviations|synonyms|chunk|surface-forms)\\.ts$|^src/matching/' },
      to: { path: 'node_modules/(graphql|type-graphql|fastify|@fastify|@apollo)/' },
    },
    {
      name: 'platform-knows-no-feature',
      severity: 'error',
      comment:
        'auth, db, errors and http sit under every feature. Known: context/context.ts still reaches users/session.service, oauth/audience and the ingestion type, http/graphql.plugin.ts reads the session cookie from users/, auth/authenticate.ts asks oauth/eligibility (all to be passed in by src/app.ts).',
      from: {
        path: '^src/(auth|context|db|errors|http)/',
        pathNot: '^src/(context/context|http/graphql\\.plugin|auth/authenticate)\\.ts$',
      },
      to: { path: FEATURES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|test|migrations)/' },
  },
};
