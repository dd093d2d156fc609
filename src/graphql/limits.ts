import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type DocumentNode,
} from 'graphql';
import { getComplexity, simpleEstimator, fieldExtensionsEstimator } from 'graphql-query-complexity';

export const MAX_DEPTH = 10;
export const MAX_COMPLEXITY = 5000;

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

/** Complexity estimate: each field costs 1; list fields multiply by their page size argument when given. */
export function operationComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName?: string | null,
): number {
  return getComplexity({
    schema,
    query: document,
    variables,
    operationName: operationName ?? undefined,
    estimators: [
      fieldExtensionsEstimator(),
      ({ args, childComplexity }) => {
        const size = [args.perPage, args.limit, args.first].find((v): v is number => typeof v === 'number');
        return size !== undefined ? 1 + childComplexity * Math.min(size, 100) : undefined;
      },
      simpleEstimator({ defaultComplexity: 1 }),
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
