import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { renderContracts } from '../../../src/contracts.js';

const SCHEMA_DIR = resolve(import.meta.dirname, '../../../schema');

describe('generated contracts', () => {
  it('schema/ matches the code (run `npm run schema:emit` after changing the API)', async () => {
    const contracts = await renderContracts();
    for (const [file, text] of Object.entries(contracts)) {
      expect({ file, text: readFileSync(resolve(SCHEMA_DIR, file), 'utf8') }).toEqual({ file, text });
    }
  });

  it('composes into a supergraph with another subgraph that extends Project', async () => {
    const { 'subgraph.graphql': sdl } = await renderContracts();
    const reviews = `
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])
      type Project @key(fields: "id") {
        id: Int!
        reviews: [Review!]!
      }
      type Review { id: ID! stars: Int! body: String! }
      type Query { topReviews: [Review!]! }
    `;
    const result = composeServices([
      { name: 'property-data', typeDefs: parse(sdl), url: 'http://property-data/graphql' },
      { name: 'reviews', typeDefs: parse(reviews), url: 'http://reviews/graphql' },
    ]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.supergraphSdl).toContain('reviews: [Review!]!');
    expect(result.supergraphSdl).toMatch(/type Project[^{]*@join__type\(graph: PROPERTY_DATA, key: "id"\)/);
  });

  it('fails composition when the other subgraph conflicts (the check can fail)', async () => {
    const { 'subgraph.graphql': sdl } = await renderContracts();
    const conflicting = `
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])
      type Project @key(fields: "id") { id: ID! name: Int! }
    `;
    const result = composeServices([
      { name: 'property-data', typeDefs: parse(sdl), url: 'http://a/graphql' },
      { name: 'other', typeDefs: parse(conflicting), url: 'http://b/graphql' },
    ]);
    expect(result.errors?.length).toBeGreaterThan(0);
  });
});
