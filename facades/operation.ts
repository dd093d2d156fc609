import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  Kind,
  type GraphQLError,
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
  return {
    name: definition.name.value,
    document,
    definition,
    compiled,
  };
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
  const result = await op.compiled.query(undefined, ctx, variables);
  if (result.errors?.length) {
    throw toAppError(result.errors[0], ctx.deps.config.overload.retryAfterSeconds);
  }
  return result.data as T;
}
