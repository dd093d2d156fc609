/**
 * JSON Schema as a Markdown table of fields, for the generated references: one row per field,
 * nested objects and arrays as dotted paths (`listings[].bedrooms`), with type, whether it is
 * required, its limits and default, and its description. Local `$ref`s are followed, so the table
 * reads the same whether a contract inlines its schemas or lists them under components.
 */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | boolean;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  /** The REST validator's own keywords (facades/rest/rest.validation.ts). */
  'x-integer-text'?: { minimum: number; maximum: number };
  'x-unique-by'?: string;
  'x-ordered'?: boolean;
};

interface Row {
  path: string;
  type: string;
  required: boolean;
  limits: string;
  description: string;
}

const MAX_DEPTH = 6;

export function resolveRef<T extends JsonSchema>(root: unknown, schema: T): T {
  let current: T = schema;
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    if (!current.$ref.startsWith('#/')) break;
    let target: unknown = root;
    for (const key of current.$ref.slice(2).split('/')) {
      target = (target as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    if (!target) break;
    current = { ...(target as T), description: current.description ?? (target as T).description };
  }
  return current;
}

const json = (value: unknown) => `\`${JSON.stringify(value)}\``;

/** The schema's alternatives without `null`, and whether null is one of them. */
function variants(root: unknown, schema: JsonSchema): { options: JsonSchema[]; nullable: boolean } {
  const s = resolveRef(root, schema);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const nested = alternatives.map((a) => variants(root, a));
    return {
      options: nested.flatMap((n) => n.options).filter((o) => o.type !== 'null'),
      nullable:
        nested.some((n) => n.nullable) || alternatives.some((a) => resolveRef(root, a).type === 'null'),
    };
  }
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null');
    return {
      options: types.map((type) => ({ ...s, type })),
      nullable: types.length < s.type.length,
    };
  }
  return { options: [s], nullable: false };
}

function typeName(root: unknown, schema: JsonSchema): string {
  const { options, nullable } = variants(root, schema);
  const names = options.map((o) => {
    if (o.const !== undefined) return json(o.const);
    if (o.type === 'array' && o.prefixItems)
      return `[${o.prefixItems.map((i) => typeName(root, i)).join(', ')}]`;
    if (o.type === 'array')
      return `${o.items && typeof o.items === 'object' ? typeName(root, o.items) : 'any'}[]`;
    return o.type ?? (o.enum ? 'enum' : 'any');
  });
  return [...new Set(names)].join(' \\| ') + (nullable ? ' \\| null' : '');
}

export function limits(schema: JsonSchema): string {
  const facts: string[] = [];
  const enumValues = schema.enum?.filter((v) => v !== null);
  if (enumValues?.length) facts.push(`one of ${enumValues.map(json).join(', ')}`);
  const bound = (n: number | undefined) =>
    n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined;
  const exclusive = bound(schema.exclusiveMinimum);
  const min =
    bound(schema.minimum) ??
    (exclusive === undefined ? undefined : schema.type === 'integer' ? exclusive + 1 : `> ${exclusive}`);
  const max = bound(schema.maximum);
  if (typeof min === 'number' && max !== undefined) facts.push(`${min} to ${max}`);
  else if (min !== undefined) facts.push(typeof min === 'number' ? `≥ ${min}` : min);
  if (typeof min === 'string' && max !== undefined) facts.push(`≤ ${max}`);
  else if (min === undefined && max !== undefined) facts.push(`≤ ${max}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    facts.push(`${schema.minLength ?? 0} to ${schema.maxLength ?? '∞'} characters`);
  }
  const text = schema['x-integer-text'];
  if (text) facts.push(`digits: an integer from ${text.minimum} to ${text.maximum}`);
  // A tuple's length is its shape ([number, number]).
  if (!schema.prefixItems && (schema.minItems !== undefined || schema.maxItems !== undefined)) {
    facts.push(`${schema.minItems ?? 0} to ${schema.maxItems ?? '∞'} items`);
  }
  if (schema['x-unique-by']) facts.push(`each \`${schema['x-unique-by']}\` unique`);
  if (schema['x-ordered']) facts.push('min ≤ max');
  if (schema.format) facts.push(schema.format);
  if (schema.default !== undefined) facts.push(`default ${json(schema.default)}`);
  return facts.join('; ');
}

function walk(
  root: unknown,
  schema: JsonSchema,
  path: string,
  required: boolean,
  depth: number,
  rows: Row[],
) {
  const s = resolveRef(root, schema);
  const { options } = variants(root, s);
  const merged = options.length === 1 ? { ...s, ...options[0] } : s;
  if (path) {
    rows.push({
      path,
      type: typeName(root, s),
      required,
      limits: limits(merged),
      description: (s.description ?? '').replace(/\s+/g, ' ').trim(),
    });
  }
  if (depth >= MAX_DEPTH) return;
  for (const option of options) {
    if (option.type === 'object' || option.properties) {
      const requiredKeys = new Set(option.required ?? []);
      for (const [key, child] of Object.entries(option.properties ?? {})) {
        walk(root, child, path ? `${path}.${key}` : key, requiredKeys.has(key), depth + 1, rows);
      }
    } else if (option.type === 'array' && option.items && typeof option.items === 'object') {
      const items = resolveRef(root, option.items);
      if (items.type === 'object' || items.properties || items.anyOf || items.oneOf) {
        walk(root, { ...items, description: undefined }, `${path}[]`, true, depth + 1, rows);
        rows.splice(
          rows.findIndex((r) => r.path === `${path}[]`),
          1,
        );
      }
    }
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table of the schema's fields, or null when it has none. */
export function fieldTable(root: unknown, schema: JsonSchema, firstColumn = 'Field'): string | null {
  const rows: Row[] = [];
  walk(root, schema, '', false, 0, rows);
  if (!rows.length) return null;
  return [
    `| ${firstColumn} | Type | Required | Limits | Description |`,
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| \`${r.path}\` | ${r.type} | ${r.required ? 'yes' : 'no'} | ${cell(r.limits)} | ${cell(r.description)} |`,
    ),
  ].join('\n');
}
