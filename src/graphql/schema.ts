import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, getMetadataStorage } from 'type-graphql';
import { AccountsResolver } from '../accounts/accounts.resolver.js';
import {
  BuildingResolver,
  CatalogueAdminResolver,
  ProjectResolver,
  resolveProjectReference,
} from '../catalogue/catalogue.resolver.js';
import type { RequestContext } from '../context/context.js';
import { ChangesResolver } from '../changes/changes.resolver.js';
import { CredentialsResolver } from '../credentials/credentials.resolver.js';
import {
  ContextChunkResolver,
  DocumentResolver,
  DocumentsResolver,
  ProjectDocumentsResolver,
  SearchResultDocumentResolver,
} from '../documents/documents.resolver.js';
import { DocumentPageTextResolver, LibraryResolver } from '../documents/library.resolver.js';
import { FusionResolver } from '../fusion/fusion.resolver.js';
import type { FloorPlanListing } from '../fusion/fusion.types.js';
import { IngestionResolver } from '../ingestion/ingestion.resolver.js';
import { RevisionsResolver } from '../revisions/revisions.resolver.js';
import { ChunkHitResolver, SearchResolver } from '../search/search.resolver.js';
import { UsageResolver } from '../usage/usage.resolver.js';
import { WebhooksResolver } from '../webhooks/webhooks.resolver.js';

export const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])';

/**
 * The resolver classes of the feature modules. Their order is the order of the root fields (and
 * of a type's resolved fields) in the emitted SDL, whatever order the modules are imported in.
 */
export const RESOLVERS = [
  IngestionResolver,
  SearchResolver,
  DocumentsResolver,
  LibraryResolver,
  RevisionsResolver,
  ChangesResolver,
  FusionResolver,
  AccountsResolver,
  DocumentResolver,
  CatalogueAdminResolver,
  CredentialsResolver,
  UsageResolver,
  WebhooksResolver,
  ProjectResolver,
  BuildingResolver,
  ProjectDocumentsResolver,
  ChunkHitResolver,
  SearchResultDocumentResolver,
  ContextChunkResolver,
  DocumentPageTextResolver,
] as const;

let cached: Promise<GraphQLSchema> | null = null;

/**
 * Parameter decorators run last to first, so type-graphql would list every field's arguments in
 * reverse. Sorting by parameter position makes the SDL read as the resolvers are written: the
 * query first, then its scope, then paging.
 */
function argumentsInDeclarationOrder(): void {
  getMetadataStorage().params.sort((a, b) => a.index - b.index);
}

/** Root fields and field resolvers in the order of RESOLVERS, then as each class declares them. */
function fieldsInResolverOrder(): void {
  const storage = getMetadataStorage();
  const rank = (target: unknown) => RESOLVERS.indexOf(target as (typeof RESOLVERS)[number]);
  for (const list of [storage.queries, storage.mutations, storage.fieldResolvers]) {
    list.sort((a, b) => rank(a.target) - rank(b.target));
  }
}

/**
 * type-graphql builds the schema, @apollo/subgraph turns it into a Federation 2 subgraph
 * (`_service`, `_entities`, `@key` on Project). Built once per process.
 */
export function buildAppSchema(): Promise<GraphQLSchema> {
  cached ??= (async () => {
    argumentsInDeclarationOrder();
    fieldsInResolverOrder();
    const schema = await buildSchema({
      resolvers: [...RESOLVERS],
      skipCheck: true,
      validate: false,
      emitSchemaFile: false,
    });
    const resolvers = createResolversMap(schema) as Record<string, Record<string, unknown>>;
    resolvers.Project = {
      ...resolvers.Project,
      __resolveReference: (ref: { id: number | string }, ctx: RequestContext) =>
        resolveProjectReference(ref, ctx),
    };
    // Floor Plan Match takes up to 100 listings, and type-graphql would turn each into a
    // FloorPlanListing instance (for every listing it rebuilds the input type's field list, looks
    // each field's type up in its metadata and converts each value: ~6% of a REST call's CPU). The
    // method is called as type-graphql calls it (this schema has no middleware, auth checker or
    // validation), with the listings as GraphQL coerced them: plain objects of the same fields.
    const fusion = new FusionResolver();
    resolvers.Query = {
      ...resolvers.Query,
      matchFloorPlans: (_root: unknown, args: { listings: FloorPlanListing[] }, ctx: RequestContext) =>
        fusion.matchFloorPlans(ctx, args.listings),
    };
    return buildSubgraphSchema([
      {
        typeDefs: parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`),
        resolvers: resolvers as never,
      },
    ]);
  })();
  return cached;
}
