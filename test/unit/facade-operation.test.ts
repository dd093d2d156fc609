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
 * A facade operation is compiled by graphql-jit at start-up: what the caller gets is what
 * graphql-js `execute` gives for the same document, scalar serialization and errors included.
 * Where every leaf is a built-in scalar, an answer whose leaves need no serialization is answered
 * from one execution without it; any other answer is executed again with serialization.
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
    const cause = (err as AppError).cause;
    return {
      code: (err as AppError).code,
      error: (err as Error).message,
      ...(cause ? { cause: (cause as Error).message } : {}),
    };
  }
}

/** What graphql-js gives for the same document: its data, or its first error as the facade maps it. */
async function reference(text: string): Promise<unknown> {
  const op = operation(text);
  const result = await execute({ schema, document: op.document, contextValue: ctx });
  if (result.errors?.length) {
    const original = result.errors[0].originalError;
    return original instanceof AppError
      ? { code: original.code, error: original.message }
      : { code: 'INTERNAL', error: new AppError('INTERNAL').message, cause: result.errors[0].message };
  }
  return result.data;
}

function facade(text: string): Promise<unknown> {
  const op = operation(text);
  return outcome(() => runOperation(op, {}, ctx));
}

describe('facade operations', () => {
  it('skip serialization only where every leaf is a String, Int, Float or Boolean, with no fragment or directive', () => {
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

  it('answer values that need no serialization in one execution, as graphql-js does', async () => {
    answer = [
      { name: 'a', count: 3, score: 0.25, open: true, tags: ['x', 'y'], inner: { name: 'i', count: 2 } },
      { name: 'b', count: null, score: -0, open: false, tags: [] },
      null,
    ];
    const expected = await reference(PLAIN);
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
  ])('serialize %s, answering what graphql-js answers', async (_what, item) => {
    answer = [{ name: 'ok', count: 1, score: 1, open: true, tags: [] }, item];
    const expected = await reference(PLAIN);
    calls = 0;
    expect(await facade(PLAIN)).toEqual(expected);
    expect(calls).toBe(2);
  });

  it('serializes IDs and enum values as graphql-js does', async () => {
    const text = 'query Coded { result: items { name code kind } }';
    answer = [
      { name: 'a', code: 5, kind: 'b' },
      { name: 'b', code: 'x-1', kind: 'a' },
    ];
    const expected = await reference(text);
    expect(expected).toEqual({
      result: [
        { name: 'a', code: '5', kind: 'B' },
        { name: 'b', code: 'x-1', kind: 'A' },
      ],
    });
    expect(await facade(text)).toEqual(expected);
  });

  it("gives a resolver's error once", async () => {
    const text = 'query Failing { result: failing { name } }';
    const expected = await reference(text);
    expect(expected).toEqual({ code: 'NOT_FOUND', error: 'nothing here' });
    calls = 0;
    expect(await facade(text)).toEqual(expected);
    expect(calls).toBe(1);
  });
});
