import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../../src/context/context.js';
import { buildAppSchema } from '../../../src/graphql/schema.js';
import type { ExtraPrompt, ExtraResource } from '../../../facades/mcp/extras.js';
import { Prompts, PROMPTS } from '../../../facades/mcp/prompts.js';
import { RESOURCE_TEMPLATES, Resources } from '../../../facades/mcp/resources.js';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildAppSchema();
});

const ctx = {} as RequestContext;
const resource = (uri: string): ExtraResource => ({
  uri,
  name: 'r',
  title: 'R',
  description: 'a resource',
  mimeType: 'text/plain',
  read: async () => [{ uri, mimeType: 'text/plain', text: 'text' }],
});
const prompt = (name: string): ExtraPrompt => ({
  name,
  title: 'P',
  description: 'a prompt',
  arguments: [{ name: 'a', description: 'an argument', required: false }],
  get: async (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(args) } }],
  }),
});

describe('MCP extras', () => {
  it('refuses an extra that would shadow a resource, template or prompt the service serves', () => {
    expect(() => new Resources(schema, { resources: [resource('pds://documents/1')] })).toThrow(
      /already served/,
    );
    expect(() => new Resources(schema, { resources: [resource('test://a'), resource('test://a')] })).toThrow(
      /already served/,
    );
    expect(
      () =>
        new Resources(schema, {
          resourceTemplates: [{ ...RESOURCE_TEMPLATES[0], uriTemplate: 'test://{x}', read: async () => [] }],
        }),
    ).toThrow(/already served/);
    expect(() => new Prompts(schema, { prompts: [prompt(PROMPTS[0].name)] })).toThrow(/already served/);
  });

  it('resolves the service URIs first, then extra resources, then extra templates', async () => {
    const resources = new Resources(schema, {
      resources: [resource('test://static')],
      resourceTemplates: [
        {
          uriTemplate: 'test://items/{id}',
          name: 'item',
          title: 'Item',
          description: 'an item',
          mimeType: 'application/json',
          read: async (uri, { id }) => [{ uri, mimeType: 'application/json', text: JSON.stringify({ id }) }],
        },
      ],
    });
    expect(resources.resolve('pds://documents/7')).toEqual({ kind: 'document', documentId: 7, page: null });
    expect(resources.resolve('test://nothing')).toBeNull();
    const item = resources.resolve('test://items/42');
    expect(item?.kind).toBe('extra');
    expect(await resources.read('test://items/42', item!, ctx)).toEqual({
      contents: [{ uri: 'test://items/42', mimeType: 'application/json', text: '{"id":"42"}' }],
    });
    expect(resources.templates().map((t) => t.name)).toEqual([
      ...RESOURCE_TEMPLATES.map((t) => t.name),
      'item',
    ]);
    expect(Object.keys(resources.templates().at(-1)!)).not.toContain('read');
  });

  it("lists extra prompts after the service's and checks their arguments before get runs", async () => {
    const prompts = new Prompts(schema, { prompts: [prompt('extra')] });
    expect(prompts.list().map((p) => p.name)).toEqual([...PROMPTS.map((p) => p.name), 'extra']);
    expect(Object.keys(prompts.list().at(-1)!)).not.toContain('get');
    expect(await prompts.get('extra', { a: '  value ' }, ctx)).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: '{"a":"value"}' } }],
    });
    await expect(prompts.get('extra', { b: 'x' }, ctx)).rejects.toThrow(/Unknown argument 'b'/);
    await expect(prompts.get('extra', { a: 3 }, ctx)).rejects.toThrow(/must be a string/);
  });
});
