import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, getMetadataStorage } from 'type-graphql';
import type { RequestContext } from '../context/context.js';
import { IngestionResolver } from '../ingestion/ingestion.resolver.js';
import { SearchResolver } from '../search/search.resolver.js';
// After the search resolver: the order of registration is the order of the emitted SDL.
import { DocumentsResolver } from '../documents/documents.resolver.js';
import { FusionResolver } from '../fusion/fusion.resolver.js';
import { AdminResolver } from './resolvers/admin.resolver.js';
import { DocumentResolver } from './resolvers/document.resolver.js';
import { TeamSettingsResolver } from './resolvers/team-settings.resolver.js';
import { BuildingResolver, ProjectResolver, resolveProjectReference } from './resolvers/project.resolver.js';
import './types/enums.type.js';

export const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])';

/** Resolver classes registered by feature modules; later issues append theirs here. */
export const RESOLVERS = [
  ProjectResolver,
  BuildingResolver,
  DocumentResolver,
  AdminResolver,
  TeamSettingsResolver,
  IngestionResolver,
  SearchResolver,
  DocumentsResolver,
  FusionResolver,
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

/**
 * type-graphql builds the schema, @apollo/subgraph turns it into a Federation 2 subgraph
 * (`_service`, `_entities`, `@key` on Project). Built once per process.
 */
export function buildAppSchema(): Promise<GraphQLSchema> {
  cached ??= (async () => {
    argumentsInDeclarationOrder();
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
    return buildSubgraphSchema([
      {
        typeDefs: parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`),
        resolvers: resolvers as never,
      },
    ]);
  })();
  return cached;
}
