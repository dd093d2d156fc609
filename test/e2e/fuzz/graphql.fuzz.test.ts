import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isLeafType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLOutputType,
  type GraphQLInputType,
} from 'graphql';
import { startTestApp, type TestApp } from '../../support/app.js';
import { errorLogCapture } from '../../support/error-log.js';
import { memberToken } from '../../support/factories.js';

/**
 * Every root query field and every mutation of the committed contract (schema/subgraph.graphql), called with
 * arguments generated from its argument types, boundary values first: integers at 2^31 and 2^53,
 * NUL and unpaired surrogates, long strings, deep and wrong-typed JSON. Whatever is sent: no 5xx,
 * no masked internal error, no error-level log line, errors in GraphQL's shape, and the service
 * answers afterwards. PROPERTY_RUNS_FACTOR multiplies the runs.
 */
const RUNS = 60 * Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);

const { logStream, errorLines } = errorLogCapture();

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp(
    { LOG_LEVEL: 'warn' },
    {
      logger: true,
      logStream,
      policies: {
        graphql: { points: 1_000_000, durationSeconds: 60, keyedBy: 'credential' },
        // The mutations may revoke the member's token or remove the member: its calls then fail
        // authentication, which would otherwise close the address after 30.
        'auth-failure': { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
  token = (await memberToken(t, 'elite')).secret;
});
afterAll(() => t.close());

const schema = buildSchema(
  readFileSync(new URL('../../../schema/subgraph.graphql', import.meta.url), 'utf8').replace(
    /^extend schema[\s\S]*?\n\n/,
    '',
  ),
  { assumeValidSDL: true },
);

const int = fc.oneof(
  fc.constantFrom(0, -1, 1, 2147483647, 2147483648, -2147483649, 2 ** 53, 2 ** 53 + 2, 1e30, -1e30, 0.5),
  fc.integer(),
);
const text = fc.oneof(
  fc.constantFrom('', 'a\u0000b', '\ud800', 'x\udc00y', '\u0000', 'pool', ' '.repeat(300), 'é'.repeat(5000)),
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
  fc.constant(JSON.parse('['.repeat(200) + ']'.repeat(200)) as unknown),
  fc.double(),
);

function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return valueFor(type.ofType, depth);
  if (isListType(type)) return fc.array(valueFor(type.ofType, depth + 1), { maxLength: depth > 1 ? 1 : 3 });
  const named = getNamedType(type);
  let right: fc.Arbitrary<unknown>;
  if (isEnumType(named)) right = fc.constantFrom(...named.getValues().map((v) => v.name), 'NOPE');
  else if (isInputObjectType(named) && depth < 3) {
    const fields = Object.values(named.getFields());
    right = fc.record(Object.fromEntries(fields.map((f) => [f.name, valueFor(f.type, depth + 1)])), {
      requiredKeys: [],
    });
  } else if (isScalarType(named) && named.name === 'Int') right = int;
  else if (isScalarType(named) && named.name === 'Float') right = fc.oneof(fc.double(), int);
  else if (isScalarType(named) && named.name === 'Boolean') right = fc.boolean();
  else right = text;
  return fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: wrongType });
}

function typeText(type: GraphQLInputType): string {
  return String(type);
}

const fields = Object.values(schema.getQueryType()!.getFields()).filter((f) => !f.name.startsWith('_'));

function operation(
  name: string,
  args: readonly GraphQLArgument[],
  kind: 'query' | 'mutation' = 'query',
  returns?: GraphQLOutputType,
): string {
  const defs = args.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
  const call = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = returns && isLeafType(getNamedType(returns)) ? '' : ' { __typename }';
  return `${kind}${defs ? `(${defs})` : ''} { ${name}${call ? `(${call})` : ''}${selection} }`;
}

const mutations = Object.values(schema.getMutationType()!.getFields());

describe('GraphQL fuzzing from the committed schema', () => {
  it('every root query field, generated arguments: never a 5xx or an internal error', async () => {
    const call = fc
      .constantFrom(...fields)
      .chain((field) =>
        fc
          .record(Object.fromEntries(field.args.map((a) => [a.name, valueFor(a.type)])), { requiredKeys: [] })
          .map((variables) => ({ field, variables })),
      );
    await fc.assert(
      fc.asyncProperty(call, fc.boolean(), async ({ field, variables }, signedIn) => {
        const res = await t.gql(operation(field.name, field.args), variables, signedIn ? token : null);
        expect(res.status).toBeLessThan(500);
        for (const error of res.errors ?? []) {
          expect(typeof error.message).toBe('string');
          expect(error.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
        }
      }),
      { numRuns: RUNS },
    );
    expect(errorLines).toEqual([]);
    const after = await t.gql('{ projects { total } }', {}, token);
    expect(after.errors).toBeUndefined();
  });

  it('every mutation, generated input, as the operator and as a member: never a 5xx or an internal error', async () => {
    const call = fc
      .constantFrom(...mutations)
      .chain((field) =>
        fc
          .record(Object.fromEntries(field.args.map((a) => [a.name, valueFor(a.type)])), { requiredKeys: [] })
          .map((variables) => ({ field, variables })),
      );
    await fc.assert(
      fc.asyncProperty(call, fc.boolean(), async ({ field, variables }, asOperator) => {
        const res = await t.gql(
          operation(field.name, field.args, 'mutation', field.type),
          variables,
          asOperator ? t.operator : token,
        );
        const where = `${field.name} ${JSON.stringify(variables).slice(0, 300)} → ${res.status}`;
        expect([where, res.status < 500]).toEqual([where, true]);
        for (const error of res.errors ?? []) {
          expect(typeof error.message).toBe('string');
          expect([where, error.extensions?.code]).not.toEqual([where, 'INTERNAL_SERVER_ERROR']);
        }
      }),
      { numRuns: RUNS },
    );
    expect(errorLines).toEqual([]);
    const after = await t.gql('{ projects { total } }', {}, t.operator);
    expect(after.errors).toBeUndefined();
  });
});
