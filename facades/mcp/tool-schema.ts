import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type TypeNode,
  type VariableDefinitionNode,
  valueFromASTUntyped,
} from 'graphql';

/** A JSON Schema fragment (draft 2020-12 subset) as the MCP spec carries it. */
export type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, string> = {
  String: 'string',
  ID: 'string',
  Int: 'integer',
  Float: 'number',
  Boolean: 'boolean',
  DateTimeISO: 'string',
};

function scalarSchema(name: string): JsonSchema {
  return { type: SCALARS[name] ?? 'string' };
}

function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  return typeof type === 'string' ? { ...schema, type: [type, 'null'] } : schema;
}

function inputTypeSchema(node: TypeNode): JsonSchema {
  switch (node.kind) {
    case Kind.NON_NULL_TYPE:
      return inputTypeSchema(node.type);
    case Kind.LIST_TYPE:
      return { type: 'array', items: inputTypeSchema(node.type) };
    case Kind.NAMED_TYPE:
      return scalarSchema(node.name.value);
  }
}

/**
 * The tool's inputSchema, from the operation's variables: one property per variable (its name is
 * the argument name), required when non-null without a default, plus the spec's limits.
 */
export function inputSchemaFrom(
  variables: readonly VariableDefinitionNode[],
  rules: Record<string, JsonSchema>,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const v of variables) {
    const name = v.variable.name.value;
    const base = inputTypeSchema(v.type);
    const withDefault = v.defaultValue ? { default: valueFromASTUntyped(v.defaultValue) } : {};
    properties[name] = { ...base, ...withDefault, ...(rules[name] ?? {}) };
    if (v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The outputSchema, from the selection set walked against the schema's types (aliases are the keys). */
export function outputSchemaFrom(
  schema: GraphQLSchema,
  rootField: string,
  selection: SelectionSetNode,
): JsonSchema {
  const queryType = schema.getQueryType()!;
  const field = queryType.getFields()[rootField];
  if (!field) throw new Error(`unknown query field ${rootField}`);
  // MCP requires outputSchema.type = "object": a tool's root field must be non-null.
  if (!isNonNullType(field.type)) throw new Error(`${rootField} must be non-null to be a tool's output`);
  return typeSchema(field.type, selection);
}

/** Nullable exactly where GraphQL is: a non-null wrapper keeps the JSON type single. */
function typeSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  if (isNonNullType(type)) return valueSchema(type.ofType, selection);
  return nullable(valueSchema(type, selection));
}

function valueSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  if (isListType(type)) return { type: 'array', items: typeSchema(type.ofType, selection) };
  return namedSchema(type, selection);
}

function namedSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  const named = getNamedType(type);
  if (isScalarType(named)) return scalarSchema(named.name);
  if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((v) => v.name) };
  if (!isObjectType(named) || !selection) return {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const sel of selection.selections) {
    if (sel.kind !== Kind.FIELD) continue;
    const fieldDef = named.getFields()[sel.name.value];
    if (!fieldDef) continue;
    const key = sel.alias?.value ?? sel.name.value;
    const schema = typeSchema(fieldDef.type, sel.selectionSet);
    properties[key] = fieldDef.description ? { ...schema, description: fieldDef.description } : schema;
    if (isNonNullType(fieldDef.type)) required.push(key);
  }
  return { type: 'object', properties, required };
}
