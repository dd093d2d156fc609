import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, FuncKeywordDefinition, SchemaValidateFunction } from 'ajv';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../../src/errors/catalogue.js';

/**
 * The Fusion routes' one validator: their TypeBox schemas (facades/rest/rest.schemas.ts) compiled
 * with ajv, the validator Fastify itself builds on, in the dialect of the OpenAPI 3.1 document they
 * are published in (JSON Schema 2020-12). Nothing is coerced, defaulted or removed: the handler
 * gets the body exactly as sent, or the request gets the spec's 422 naming every failed field.
 */

type KeywordError = Partial<ErrorObject>;

/** What a keyword's validate function reports, set on the function as ajv reads it. */
function keyword<S, D>(
  name: string,
  definition: Omit<FuncKeywordDefinition, 'keyword' | 'validate' | 'errors'>,
  check: (schema: S, data: D, instancePath: string) => KeywordError[],
): FuncKeywordDefinition {
  const validate: SchemaValidateFunction = (schema: S, data: D, _parent, cxt) => {
    const errors = check(schema, data, cxt?.instancePath ?? '');
    validate.errors = errors.map((e) => ({ keyword: name, params: {}, ...e }));
    return errors.length === 0;
  };
  return { keyword: name, ...definition, errors: true, validate };
}

/** JSON Pointer escaping of one path segment (RFC 6901), as ajv writes instance paths. */
const segment = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

const KEYWORDS: FuncKeywordDefinition[] = [
  // An integer written as text (a path segment, a query parameter): digits only, within the range.
  keyword<{ minimum: number; maximum: number; message: string }, string>(
    'x-integer-text',
    {
      type: 'string',
      metaSchema: {
        type: 'object',
        properties: {
          minimum: { type: 'integer' },
          maximum: { type: 'integer' },
          message: { type: 'string' },
        },
        required: ['minimum', 'maximum', 'message'],
        additionalProperties: false,
      },
    },
    ({ minimum, maximum, message }, text) => {
      const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
      return n >= minimum && n <= maximum ? [] : [{ message }];
    },
  ),
  // Items unique by a key (a Floor Plan Match request's refs): each repeat is named at its key.
  keyword<string, unknown[]>('x-unique-by', { type: 'array', schemaType: 'string' }, (key, items, at) => {
    const seen = new Set<unknown>();
    const errors: KeywordError[] = [];
    items.forEach((item, i) => {
      const value =
        item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined;
      if (typeof value !== 'string' && typeof value !== 'number') return;
      if (seen.has(value)) {
        errors.push({
          instancePath: `${at}/${i}/${segment(key)}`,
          message: `duplicate ${key} "${value}"`,
        });
      }
      seen.add(value);
    });
    return errors;
  }),
  // A [min, max] pair with min ≤ max.
  keyword<boolean, unknown[]>('x-ordered', { type: 'array', schemaType: 'boolean' }, (on, pair) =>
    on && typeof pair[0] === 'number' && typeof pair[1] === 'number' && pair[0] > pair[1]
      ? [{ message: 'min must be ≤ max' }]
      : [],
  ),
];

const ajv = new Ajv2020({
  allErrors: true,
  // `["integer", "null"]`: one schema for a nullable field, so its failure has one message.
  allowUnionTypes: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  keywords: KEYWORDS,
});

/** The routes' validator compiler (Fastify's `setValidatorCompiler`), one compile per schema. */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => ajv.compile(schema);

/** A field's dotted path: `listings.3.bedrooms`, or the part (`body`, `params`) for the whole of it. */
function fieldPath(instancePath: string, part: string, child?: string): string {
  const keys = instancePath
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) keys.push(child);
  return keys.join('.') || part;
}

/** A key, a type or an allowed value as a message writes it (all strings, numbers or null here). */
const describe = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);

/** One failed check as the 422 names it: the field's dotted path and its message. */
function field(error: FastifySchemaValidationError, part: string): [string, string] {
  const { params } = error;
  switch (error.keyword) {
    case 'additionalProperties':
      return [
        fieldPath(error.instancePath, part),
        `Unrecognized key: "${describe(params.additionalProperty)}"`,
      ];
    case 'required':
      return [fieldPath(error.instancePath, part, describe(params.missingProperty)), 'is required'];
    case 'type':
      return [fieldPath(error.instancePath, part), `must be ${[params.type].flat().join(' or ')}`];
    case 'enum':
      return [
        fieldPath(error.instancePath, part),
        `must be one of ${(params.allowedValues as unknown[]).map(describe).join(', ')}`,
      ];
    default:
      return [fieldPath(error.instancePath, part), error.message ?? 'is invalid'];
  }
}

/**
 * The spec's 422 (Fastify's `setSchemaErrorFormatter`): every failed field by dotted path, each
 * with the first check it failed (`body` for the body as a whole; `id` for the Building Link path).
 */
export function validationError(errors: FastifySchemaValidationError[], part: string): AppError {
  const fields: Record<string, string[]> = {};
  for (const error of errors) {
    const [path, message] = field(error, part);
    fields[path] ??= [message];
  }
  const message =
    part === 'body' ? 'The request body failed validation' : `The request ${part} failed validation`;
  return new AppError('BAD_USER_INPUT', message, { fields });
}
