import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type DocumentNode,
  type GraphQLField,
  type GraphQLOutputType,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
} from 'graphql';
import { getComplexity } from 'graphql-query-complexity';
import { badInput } from '../errors/catalogue.js';

export const MAX_DEPTH = 10;

/** Validation rule: refuses operations nested deeper than `max` fields (fragments are followed). */
export function depthLimit(max = MAX_DEPTH) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    const depthOf = (set: SelectionSetNode | undefined, seen: Set<string>): number => {
      if (!set) return 0;
      let deepest = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (sel.name.value.startsWith('__')) continue;
          deepest = Math.max(deepest, 1 + depthOf(sel.selectionSet, seen));
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(sel.selectionSet, seen));
        } else {
          const name = sel.name.value;
          const frag = fragments.get(name);
          if (frag && !seen.has(name))
            deepest = Math.max(deepest, depthOf(frag.selectionSet, new Set([...seen, name])));
        }
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > max) {
          context.reportError(
            new GraphQLError(`Query depth ${depth} exceeds the maximum of ${max}`, {
              nodes: [node],
              extensions: { code: 'BAD_USER_INPUT' },
            }),
          );
        }
      },
    };
  };
}

/**
 * The cost of an operation approximates how many values its answer can hold, so the limit bounds
 * the response: at roughly 60 bytes a value, MAX_COMPLEXITY keeps any accepted answer near 3 MB.
 * Every list multiplies the cost of what it holds by its page size (an argument, or the bound its
 * resolver enforces, LIST_BOUNDS); aliases are counted one by one.
 */
export const MAX_COMPLEXITY = 50_000;

/** Page sizes of the nested list fields (`first`, with `offset`): the default and the most one page may hold. */
export const PAGE = {
  buildings: { default: 10, max: 50 },
  floorPlans: { default: 50, max: 200 },
  documents: { default: 50, max: 200 },
} as const;

/** Most items a list field without a page-size argument can hold (enforced by its resolver or by the data's own limits). */
export const LIST_BOUNDS: Readonly<Record<string, number>> = {
  // Already multiplied at the root field by its page-size argument.
  'ProjectPage.items': 1,
  'SearchDocumentTextResult.data': 1,
  'FindProjectsMentioningResult.data': 1,
  'DocumentContextResult.data': 1,
  'FloorPlanMatchResult.results': 1,
  // Bounded by their resolvers or inputs.
  'ProjectDocumentsResult.data': 500,
  'ListingMatch.candidates': 10,
  'ListingMatch.signals': 10,
  'Query.apiKeys': 100,
  'Query.accessTokens': 200,
};

/** Lists of scalars cost by the values they usually hold (a floor plan's unit schedule, a building's addresses). */
const SCALAR_LIST_COST = 10;
/** A list field of an unknown bound is assumed this long. */
const DEFAULT_LIST_BOUND = 100;
/** Text fields much longer than a typical value. */
const LONG_TEXT_COST: Readonly<Record<string, number>> = {
  'ChunkHit.excerpt': 4,
  'ProjectMatch.bestExcerpt': 4,
  'ContextChunk.text': 20,
  'Query._service': 2000,
};
/**
 * Introspection is a fixed cost whatever is selected below it: the schema does not grow with the
 * data, and graphql-js's MaxIntrospectionDepthRule already refuses recursive nesting. A full
 * introspection answer is ~110 KB.
 */
const INTROSPECTION_COST: Readonly<Record<string, number>> = { __schema: 2000, __type: 50 };

type Args = Record<string, unknown>;
const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);
const len = (v: unknown): number => (Array.isArray(v) ? v.length : 1);

/**
 * Paged fields: how many items the answer holds for the given arguments. Values above a field's
 * bound are clamped to it: its resolver refuses them with a message naming the argument.
 */
const PAGED: Readonly<Record<string, (args: Args) => number>> = {
  'Query.projects': (a) => Math.min(num(a.perPage, 20), 50),
  'Query.searchDocumentText': (a) => Math.min(num(a.limit, 10), 25),
  'Query.findProjectsMentioning': (a) => Math.min(num(a.limit, 25), 50),
  'Query.documentContext': (a) => 1 + Math.min(num(a.before, 1), 5) + Math.min(num(a.after, 1), 5),
  'Query.matchFloorPlans': (a) => Math.min(len(a.listings), 100),
  'Query._entities': (a) => len(a.representations),
  'Project.buildings': (a) => Math.min(num(a.first, PAGE.buildings.default), PAGE.buildings.max),
  'Project.floorPlans': (a) => Math.min(num(a.first, PAGE.floorPlans.default), PAGE.floorPlans.max),
  'Building.floorPlans': (a) => Math.min(num(a.first, PAGE.floorPlans.default), PAGE.floorPlans.max),
  'Project.documents': (a) => Math.min(num(a.first, PAGE.documents.default), PAGE.documents.max),
};

function isListOf(type: GraphQLOutputType): { list: boolean; leaf: boolean } {
  const inner = isNonNullType(type) ? type.ofType : type;
  return { list: isListType(inner), leaf: isLeafType(getNamedType(type)) };
}

/** How many items the field's answer can hold, per the arguments it was given. */
function listMultiplier(parent: string, field: GraphQLField<unknown, unknown>, args: Args): number {
  const key = `${parent}.${field.name}`;
  const paged = PAGED[key];
  if (paged) return Math.max(1, paged(args));
  const bound = LIST_BOUNDS[key];
  if (bound !== undefined) return bound;
  return isListOf(field.type).list ? DEFAULT_LIST_BOUND : 1;
}

/**
 * Selections the cost estimator walks before it gives up (graphql-query-complexity's own bound, its
 * default): an operation with more (aliases counted one by one) is refused as too large.
 */
export const MAX_QUERY_NODES = 10_000;

/** The operation's cost (see MAX_COMPLEXITY); throws the GraphQLError of an invalid variable. */
export function operationComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName?: string | null,
): number {
  try {
    return estimate(schema, document, variables, operationName);
  } catch (err) {
    // The estimator's own bound is the caller's oversized operation, not a server fault.
    if (
      err instanceof GraphQLError &&
      !err.extensions.code &&
      /maximum allowed number of nodes/.test(err.message)
    ) {
      throw new GraphQLError(
        `The operation selects more than ${MAX_QUERY_NODES} fields (aliases counted one by one): split it into smaller operations`,
        { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } },
      );
    }
    throw err;
  }
}

function estimate(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName?: string | null,
): number {
  return getComplexity({
    schema,
    query: document,
    variables,
    maxQueryNodes: MAX_QUERY_NODES,
    operationName: operationName ?? undefined,
    estimators: [
      ({ type, field, args, childComplexity }) => {
        const fixed = INTROSPECTION_COST[field.name] ?? LONG_TEXT_COST[`${type.name}.${field.name}`];
        if (fixed !== undefined) return fixed;
        const { list, leaf } = isListOf(field.type);
        if (leaf) return list ? SCALAR_LIST_COST : 1;
        return 1 + childComplexity * listMultiplier(type.name, field, args);
      },
    ],
  });
}

/** Whether a selection (fragments included) reads `__schema` or `__type`; `__typename` is not introspection of the schema. */
export function selectsIntrospection(
  set: SelectionSetNode,
  document?: DocumentNode,
  seen = new Set<string>(),
): boolean {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      if (sel.name.value === '__schema' || sel.name.value === '__type') return true;
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      if (selectsIntrospection(sel.selectionSet, document, seen)) return true;
    } else if (document && !seen.has(sel.name.value)) {
      seen.add(sel.name.value);
      const frag = document.definitions.find(
        (d): d is FragmentDefinitionNode =>
          d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === sel.name.value,
      );
      if (frag && selectsIntrospection(frag.selectionSet, document, seen)) return true;
    }
  }
  return false;
}

export function assertComplexity(complexity: number, max = MAX_COMPLEXITY): void {
  if (complexity > max) {
    throw new GraphQLError(`Query complexity ${complexity} exceeds the maximum of ${max}`, {
      extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
    });
  }
}

/** One page of an already loaded child list; `first` and `offset` are validated against the field's bound. */
export function pageOf<T>(
  items: readonly T[],
  bound: { default: number; max: number },
  first: number | null | undefined,
  offset: number | null | undefined,
): T[] {
  const size = first ?? bound.default;
  if (!Number.isInteger(size) || size < 1 || size > bound.max) {
    throw badInput('first', `must be an integer from 1 to ${bound.max}`);
  }
  const skip = offset ?? 0;
  if (!Number.isInteger(skip) || skip < 0) throw badInput('offset', 'must be an integer of 0 or more');
  return items.slice(skip, skip + size);
}

/** Nested lists are paged so a query's cost (above) bounds its answer. */
export function pageDescription(what: string, bound: { default: number; max: number }): string {
  return `A page of the ${what}, in id order: first (default ${bound.default}, at most ${bound.max}) from offset (default 0)`;
}
