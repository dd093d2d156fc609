import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  execute,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { loadOperation, runOperation } from '../../facades/operation.js';
import type { RequestContext } from '../../src/context/context.js';
import { AppError } from '../../src/errors/catalogue.js';

/**
 * A facade operation whose leaves are all String, Int, Float or Boolean runs without graphql-jit's
 * scalar serialization, and falls back to it when an answer holds a value a serializer would
 * change: what the caller gets is what graphql-js gives, either way.
 */

let answer: unknown;
let calls = 0;

const Kind = new GraphQLEnumType({ name: 'Kind', values: { A: { value: 'a' }, B: { value: 'b' } } });

const Item: GraphQLObjectType = new GraphQLObjectType({
  name: 'Item',
  fields: () => ({
    name: { type: new GraphQLNonNull(GraphQLString) },
    count: { type: GraphQLInt },
    score: { type: GraphQLFloat },
    open: { type: GraphQLBoolean },
    tags: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
    code: { type: GraphQLID },
    kind: { type: Kind },
    inner: { type: Item },
  }),
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: new GraphQLList(Item),
        resolve: () => {
          calls++;
          return answer;
        },
      },
      failing: {
        type: new GraphQLList(Item),
        resolve: () => {
          calls++;
          throw new AppError('NOT_FOUND', 'nothing here');
        },
      },
    },
  }),
});

const dir = mkdtempSync(join(tmpdir(), 'pds-facade-op-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function operation(text: string) {
  const file = `op-${Math.random().toString(36).slice(2)}.graphql`;
  writeFileSync(join(dir, file), text);
  return loadOperation(schema, dir, file);
}

const ctx = { deps: { config: { overload: { retryAfterSeconds: 1 } } } } as unknown as RequestContext;

const PLAIN =
  'query Plain { result: items { name count score open tags deep: inner { label: name n: count } } }';

/** What the caller gets: the data, or the error runOperation throws (its catalogue code and message). */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    return { code: (err as AppError).code, error: (err as Error).message };
  }
}

/** The answer with graphql-jit's scalar serialization, as every facade operation ran before. */
function reference(text: string): Promise<unknown> {
  const op = operation(text);
  return outcome(() => runOperation({ ...op, unserialized: undefined }, {}, ctx));
}

function facade(text: string): Promise<unknown> {
  const op = operation(text);
  return outcome(() => runOperation(op, {}, ctx));
}

describe('facade operations without scalar serialization', () => {
  it('is used only where every leaf is a String, Int, Float or Boolean, with no fragment or directive', () => {
    expect(operation(PLAIN).unserialized).toBeDefined();
    expect(operation('query Id { items { name code } }').unserialized).toBeUndefined();
    expect(operation('query Enum { items { name kind } }').unserialized).toBeUndefined();
    expect(operation('query NestedId { items { name inner { code } } }').unserialized).toBeUndefined();
    expect(operation('query Typename { items { __typename name } }').unserialized).toBeUndefined();
    expect(
      operation('query Skip($s: Boolean!) { items { name @skip(if: $s) } }').unserialized,
    ).toBeUndefined();
    expect(
      operation('query Fragment { items { ...F } } fragment F on Item { name }').unserialized,
    ).toBeUndefined();
  });

  it('answers canonical values in one execution, exactly as with serialization and as graphql-js', async () => {
    answer = [
      { name: 'a', count: 3, score: 0.25, open: true, tags: ['x', 'y'], inner: { name: 'i', count: 2 } },
      { name: 'b', count: null, score: -0, open: false, tags: [] },
      null,
    ];
    const expected = await reference(PLAIN);
    const op = operation(PLAIN);
    expect(expected).toEqual((await execute({ schema, document: op.document, contextValue: ctx })).data);
    calls = 0;
    expect(await facade(PLAIN)).toEqual(expected);
    expect(calls).toBe(1);
  });

  it.each([
    ['a number for a String', { name: 5 }],
    ['a numeric string for an Int', { name: 'a', count: '7' }],
    ['a boolean for an Int', { name: 'a', count: true }],
    ['a fraction for an Int', { name: 'a', count: 1.5 }],
    ['an Int out of 32-bit range', { name: 'a', count: 2 ** 31 }],
    ['NaN for a Float', { name: 'a', score: Number.NaN }],
    ['a string for a Float', { name: 'a', score: '0.5' }],
    ['a number for a Boolean', { name: 'a', open: 1 }],
    ['a Date for a String', { name: new Date(0) }],
    ['a number in a list of String', { name: 'a', tags: ['x', 2] }],
    ['a number for a String in a nested object', { name: 'a', inner: { name: 3 } }],
    ['a fraction for an Int in a nested object', { name: 'a', inner: { name: 'b', count: 0.5 } }],
  ])('falls back to serialization for %s, answering what serialization answers', async (_what, item) => {
    answer = [{ name: 'ok', count: 1, score: 1, open: true, tags: [] }, item];
    const expected = await reference(PLAIN);
    calls = 0;
    expect(await facade(PLAIN)).toEqual(expected);
    expect(calls).toBe(2);
  });

  it("gives a resolver's error once, as the serializing path would", async () => {
    const text = 'query Failing { result: failing { name } }';
    const expected = await reference(text);
    expect(expected).toEqual({ code: 'NOT_FOUND', error: 'nothing here' });
    calls = 0;
    expect(await facade(text)).toEqual(expected);
    expect(calls).toBe(1);
  });
});
