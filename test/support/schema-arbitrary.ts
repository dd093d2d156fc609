import fc from 'fast-check';

/**
 * Values for a committed JSON Schema (the OpenAPI document's parameters and bodies, the MCP tools'
 * input schemas): mostly values the schema allows, at its edges first, mixed with the values that
 * have broken services before: integers at 2^31 and 2^53, NUL and unpaired surrogates, 1 MB
 * strings, deep JSON, wrong JSON types, prototype keys and unknown keys.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
}

/** A megabyte of text: larger than any field allows and, in a body, at the 1 MB body limit. */
export const MEGABYTE = 'x'.repeat(1024 * 1024);

/** Nested arrays far deeper than any schema. */
export const DEEP_JSON: unknown = JSON.parse('['.repeat(500) + ']'.repeat(500));

export const BOUNDARY_INTEGERS = [
  0,
  -1,
  1,
  2147483647,
  2147483648,
  -2147483649,
  2 ** 53,
  2 ** 53 + 2,
  1e30,
  -1e30,
  0.5,
];

export const HOSTILE_TEXT = [
  '',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udc00y',
  ' '.repeat(300),
  'é'.repeat(5000),
];

const text = (schema: JsonSchema, strict: boolean): fc.Arbitrary<string> => {
  const sized = fc.string({
    minLength: schema.minLength ?? 0,
    maxLength: Math.min(schema.maxLength ?? 40, 40),
  });
  const edges: string[] = [];
  if (schema.maxLength !== undefined) {
    edges.push('a'.repeat(schema.maxLength), 'a'.repeat(schema.maxLength + 1));
  }
  if (schema.minLength) edges.push('a'.repeat(schema.minLength - 1));
  const fromPattern = schema.pattern ? [fc.stringMatching(new RegExp(schema.pattern))] : [];
  if (strict) {
    const min = Math.max(schema.minLength ?? 0, 1);
    return fc.oneof(
      fc.string({ minLength: min, maxLength: Math.max(min, Math.min(schema.maxLength ?? 40, 40)) }),
      ...fromPattern,
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(sized, ...fromPattern) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TEXT, ...edges) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constant(MEGABYTE) },
    { weight: 1, arbitrary: fc.constantFrom('2147483648', '9007199254740993', '-1', '0', '1e3', ' 1') },
  );
};

const number = (schema: JsonSchema, integer: boolean, strict: boolean): fc.Arbitrary<number> => {
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum;
  const edges = [...BOUNDARY_INTEGERS];
  if (min !== undefined) edges.push(min, min - 1);
  if (max !== undefined) edges.push(max, max + 1);
  const inRange = fc.integer({
    min: Math.max(min ?? -1000, -2147483648),
    max: Math.min(max ?? 1000, 2147483647),
  });
  if (strict) return inRange;
  return fc.oneof(
    { weight: 3, arbitrary: inRange },
    { weight: 3, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: integer ? fc.integer() : fc.double({ noNaN: true }) },
  );
};

/** A value of a wrong JSON type, or a shape no schema here expects. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
  fc.constant('not a number'),
  fc.constant(42),
  fc.constant(DEEP_JSON),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}}') as unknown),
);

function typed(schema: JsonSchema, type: string, depth: number, strict: boolean): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return number(schema, true, strict);
    case 'number':
      return number(schema, false, strict);
    case 'string':
      if (schema.enum && strict) return fc.constantFrom(...(schema.enum as string[]));
      return schema.enum
        ? fc.oneof(fc.constantFrom(...(schema.enum as string[])), text(schema, strict))
        : text(schema, strict);
    case 'array': {
      if (schema.prefixItems) {
        return fc.oneof(
          fc.tuple(...schema.prefixItems.map((s) => pick(s, depth + 1, strict))),
          fc.array(pick(schema.prefixItems[0], depth + 1, strict), { maxLength: 3 }),
        );
      }
      const item = schema.items ? pick(schema.items, depth + 1, strict) : fc.anything({ maxDepth: 1 });
      const max = Math.min(schema.maxItems ?? 4, depth > 0 ? 3 : 4);
      const minItems = Math.min(schema.minItems ?? 0, max);
      if (strict) return fc.array(item, { minLength: Math.max(minItems, 1), maxLength: max });
      return fc.oneof(
        {
          weight: 4,
          arbitrary: fc.array(item, { minLength: Math.min(schema.minItems ?? 0, max), maxLength: max }),
        },
        { weight: 1, arbitrary: fc.constant([]) },
        // One past maxItems (of valid-looking items, so the count is what is wrong).
        ...(schema.maxItems !== undefined && schema.maxItems <= 200
          ? [
              {
                weight: 1,
                arbitrary: fc.array(item, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }),
              },
            ]
          : []),
      );
    }
    case 'object':
      return objectFor(schema, depth, strict);
    default:
      return fc.anything({ maxDepth: 2 });
  }
}

function objectFor(schema: JsonSchema, depth: number, strict: boolean): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {});
  const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, pick(s, depth + 1, strict)])), {
    requiredKeys: strict ? (schema.required ?? []) : [],
  });
  if (strict) return record;
  // Extra keys: unknown names, prototype keys (parsed as own keys from the JSON text).
  const extra = fc.option(fc.constantFrom('unknown_field', '__proto__', 'constructor', ''), {
    nil: undefined,
  });
  return fc
    .tuple(record, extra, fc.anything({ maxDepth: 1 }))
    .map(([value, key, junk]) =>
      key === undefined
        ? value
        : { ...(value as object), ...JSON.parse(JSON.stringify({ [key]: junk ?? null })) },
    );
}

function pick(schema: JsonSchema, depth: number, strict: boolean): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.constant(null);
  const branches = schema.anyOf ?? schema.oneOf;
  let right: fc.Arbitrary<unknown>;
  if (branches) right = fc.oneof(...branches.map((s) => pick(s, depth, strict)));
  else if (schema.enum && schema.type === undefined) right = fc.constantFrom(...schema.enum);
  else {
    const types = schema.type === undefined ? ['object'] : [schema.type].flat();
    right = fc.oneof(...types.map((type) => typed(schema, type, depth, strict)));
  }
  return strict ? right : fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: wrongType });
}

/**
 * Values for `schema`: a third of them within the schema (so calls reach the service's own
 * logic), the rest right most of the time and wrong in every way some of the time.
 */
export function valueFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: pick(schema, 0, true) },
    { weight: 2, arbitrary: pick(schema, 0, false) },
  );
}

/** How many runs a fuzz property makes: `PROPERTY_RUNS_FACTOR` multiplies the bounded default. */
export function fuzzRuns(base: number): number {
  return base * Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);
}
