import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isSpecifiedScalarType,
  Kind,
  OperationTypeNode,
  type GraphQLError,
  type GraphQLOutputType,
  type SelectionSetNode,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RequestContext } from '../src/context/context.js';
import { AppError, badInput, codeFromGraphql } from '../src/errors/catalogue.js';
import { UNSTORABLE_TEXT_RULE, unstorableTextAt } from '../src/errors/text.js';
import { depthLimit } from '../src/graphql/limits.js';
import { unavailableError } from '../src/db/availability.js';

/**
 * A named GraphQL operation kept beside a facade. Facades hold no reshaping code: aliases in the
 * document give the wire shape, and this runs it against the one schema with the one context.
 */
export interface FacadeOperation {
  name: string;
  document: DocumentNode;
  definition: OperationDefinitionNode;
  /**
   * The document compiled once by graphql-jit against the one schema: the same resolvers, context
   * and error handling as graphql-js `execute`, without re-walking the document on every call
   * (Floor Plan Match returns ~10,000 fields).
   */
  compiled: CompiledQuery;
  /**
   * For a query whose every answer field is a String, Int, Float or Boolean (every facade's today):
   * the same document compiled without graphql-jit's per-leaf serialization, and the check that an
   * answer holds only values those serializers return unchanged. See runOperation.
   */
  unserialized?: { compiled: CompiledQuery; canonical: Check };
}

/** `.graphql` files live in the source tree; compiled code under dist/ reads them from there. */
export function sourceDir(dirname: string): string {
  const i = dirname.lastIndexOf('/dist/');
  return i >= 0 ? dirname.slice(0, i) + dirname.slice(i + '/dist'.length) : dirname;
}

/** Parses and validates an operation once, at start-up: a broken document fails the boot, not a request. */
export function loadOperation(schema: GraphQLSchema, dir: string, file: string): FacadeOperation {
  const text = readFileSync(resolve(sourceDir(dir), file), 'utf8');
  const document = parse(text);
  const errors = validate(schema, document, [depthLimit()]);
  if (errors.length) throw new Error(`${file}: ${errors.map((e) => e.message).join('; ')}`);
  const definition = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (!definition?.name) throw new Error(`${file}: expected one named operation`);
  const compiled = compileQuery(schema, document, definition.name.value);
  if (!isCompiledQuery(compiled)) {
    throw new Error(`${file}: ${(compiled.errors ?? []).map((e) => e.message).join('; ')}`);
  }
  const canonical =
    definition.operation === OperationTypeNode.QUERY ? canonicalCheck(schema, definition) : null;
  const unserialized =
    canonical && compileQuery(schema, document, definition.name.value, { disableLeafSerialization: true });
  return {
    name: definition.name.value,
    document,
    definition,
    compiled,
    ...(unserialized && isCompiledQuery(unserialized)
      ? { unserialized: { compiled: unserialized, canonical } }
      : {}),
  };
}

/**
 * Tests, as JavaScript over a leaf `x`, that a built-in scalar's serializer returns it as it is
 * (graphql-js: type/scalars.js).
 */
const UNCHANGED_BY: Record<string, string> = {
  String: `typeof x === 'string'`,
  Boolean: `typeof x === 'boolean'`,
  Int: `typeof x === 'number' && Number.isInteger(x) && x <= 2147483647 && x >= -2147483648`,
  Float: `typeof x === 'number' && Number.isFinite(x)`,
};

type Check = (value: unknown) => boolean;

/**
 * A check, built once from the operation's selections, that every leaf of an answer is a value its
 * scalar's serializer returns unchanged (nulls and missing values are left to the execution's own
 * null checks). Null when the operation has a field of another type (ID, an enum, a custom scalar),
 * a fragment or a directive: those keep serialization.
 *
 * The check is generated as JavaScript, one function per selection set and list, reading each
 * field by its name: a Floor Plan Match answer has ~10,000 leaves, and a walk driven by arrays of
 * keys and closures reads them all through one megamorphic keyed load, which cost about what the
 * skipped serialization saves. Generated, each field is read at a load of its own, and the skip
 * earns its place: `npm run bench -- --only rest` prints its share of the route's server CPU
 * ("its operation in process"; docs/benchmarks.md, Current figures). The names read come from the
 * operation's document (GraphQL names and aliases: letters, digits and underscores), and are
 * written as JSON string literals all the same.
 */
function canonicalCheck(schema: GraphQLSchema, definition: OperationDefinitionNode): Check | null {
  const root = schema.getQueryType();
  if (!root) return null;
  const functions: string[] = [];
  /** The name of a generated function checking a value of `type`, or null if the type has no check. */
  const forType = (type: GraphQLOutputType, selections: SelectionSetNode | undefined): string | null => {
    const inner = getNullableType(type);
    // Its slot is taken before the functions it calls are generated, and filled after.
    const slot = functions.push('') - 1;
    const name = `check${slot}`;
    if (isListType(inner)) {
      const item = forType(inner.ofType, selections);
      if (!item) return null;
      functions[slot] = `function ${name}(v) {
        if (v === null || v === undefined) return true;
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!${item}(v[i])) return false;
        return true;
      }`;
      return name;
    }
    const named = getNamedType(inner);
    if (isObjectType(named) && selections) {
      const lines: string[] = [];
      for (const node of selections.selections) {
        if (node.kind !== Kind.FIELD || node.directives?.length) return null;
        if (node.name.value === '__typename') return null;
        const field = named.getFields()[node.name.value];
        if (!field) return null;
        const key = JSON.stringify(node.alias?.value ?? node.name.value);
        const leaf = leafTest(field.type, node.selectionSet);
        if (leaf) {
          lines.push(`x = v[${key}]; if (!(x === null || x === undefined || (${leaf}))) return false;`);
          continue;
        }
        const check = forType(field.type, node.selectionSet);
        if (!check) return null;
        lines.push(`if (!${check}(v[${key}])) return false;`);
      }
      functions[slot] = `function ${name}(v) {
        if (v === null || v === undefined) return true;
        if (typeof v !== 'object') return false;
        let x;
        ${lines.join('\n        ')}
        return true;
      }`;
      return name;
    }
    const leaf = leafTest(type, selections);
    if (!leaf) return null;
    functions[slot] = `function ${name}(x) { return x === null || x === undefined || (${leaf}); }`;
    return name;
  };
  const entry = forType(root, definition.selectionSet);
  if (!entry) return null;
  // Generated from the operation's own document at start-up, as graphql-jit generates the query.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call
  return new Function(`'use strict';\n${functions.join('\n')}\nreturn ${entry};`)() as Check;
}

/** The test for a leaf of a built-in scalar its serializer leaves as it is, or null. */
function leafTest(type: GraphQLOutputType, selections: SelectionSetNode | undefined): string | null {
  const named = getNamedType(type);
  if (selections || isListType(getNullableType(type)) || !isSpecifiedScalarType(named)) return null;
  return UNCHANGED_BY[named.name] ?? null;
}

function toAppError(error: GraphQLError, retryAfterSeconds: number): AppError {
  const original = error.originalError;
  if (original instanceof AppError) return original;
  const unavailable = unavailableError(original, retryAfterSeconds);
  if (unavailable) return unavailable;
  // A variable that does not coerce to its type (an Int beyond 2^31-1, a string for a number) is
  // the caller's bad input: graphql-jit reports it without an extensions code.
  const coercion = !original && /^Variable "\$\w+"/.test(error.message);
  const code = coercion
    ? 'BAD_USER_INPUT'
    : codeFromGraphql(error.extensions?.code, error.extensions?.appCode);
  if (code === 'INTERNAL') {
    const wrapped = new AppError('INTERNAL');
    wrapped.cause = original ?? error;
    return wrapped;
  }
  // Variable coercion errors ("Variable "$limit" got invalid value ...") name the argument already.
  const match = /Variable "\$(\w+)"/.exec(error.message);
  const field = match?.[1] ?? 'input';
  return new AppError(
    code,
    error.message,
    code === 'BAD_USER_INPUT' ? { fields: { [field]: [error.message] } } : {},
  );
}

/**
 * Runs the operation and returns its `data`, or throws the first error as an AppError (the
 * catalogue entry the resolver threw, or one derived from GraphQL's own validation).
 */
export async function runOperation<T = Record<string, unknown>>(
  op: FacadeOperation,
  variables: Record<string, unknown>,
  ctx: RequestContext,
): Promise<T> {
  const unstorable = unstorableTextAt(variables);
  if (unstorable !== null) throw badInput(unstorable, UNSTORABLE_TEXT_RULE);
  // graphql-jit serializes each leaf through a wrapper with its own error handling, which is much
  // of a large answer's cost: `npm run bench -- --only rest` prints what skipping it saves on Floor
  // Plan Match ("its operation in process"; docs/benchmarks.md, Current figures). Where every leaf
  // is already what its serializer would return, the answer without serialization is the same
  // answer; where one is not (a resolver gave a number for a String, NaN for a Float), the query
  // runs again with serialization, so callers see exactly what graphql-js would give. A failed
  // query is not run again (a database outage would be waited out twice): the resolvers and null
  // checks are the same on both paths, so is its first error.
  const { unserialized } = op;
  let result = unserialized ? await unserialized.compiled.query(undefined, ctx, variables) : null;
  if (!result || (!result.errors?.length && !unserialized!.canonical(result.data))) {
    result = await op.compiled.query(undefined, ctx, variables);
  }
  if (result.errors?.length) {
    throw toAppError(result.errors[0], ctx.deps.config.overload.retryAfterSeconds);
  }
  return result.data as T;
}
