import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { FUSION_SCOPES } from '../../../src/enums.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { errorLogCapture } from '../../support/error-log.js';
import { createApiKey, createProject, createTeam } from '../../support/factories.js';
import {
  DEEP_JSON,
  fuzzRuns,
  MEGABYTE,
  valueFor,
  wrongType,
  type JsonSchema,
} from '../../support/schema-arbitrary.js';

/**
 * Every operation of the committed Fusion REST contract (schema/openapi.json), called with path
 * and query parameters and bodies generated from its schemas, boundary values first (2^31, 2^53,
 * NUL, unpaired surrogates, 1 MB strings, deep JSON, wrong JSON types, prototype keys). Whatever is
 * sent: no 5xx, a status the operation documents, a body that matches the documented schema for
 * that status (the facade's error shape), no error-level log line, and the service answers
 * afterwards. Fixed seed (test/support/property-seed.ts); PROPERTY_RUNS_FACTOR multiplies the runs.
 */
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
const contract = JSON.parse(
  readFileSync(new URL('../../../schema/openapi.json', import.meta.url), 'utf8'),
) as { servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };
const BASE = contract.servers[0].url;

const ajv = new Ajv2020({ strict: false, allErrors: true });
const operations = Object.entries(contract.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({
    name: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    op,
    responses: new Map<string, ValidateFunction | null>(
      Object.entries(op.responses).map(([status, r]) => {
        const schema = r.content?.['application/json']?.schema;
        return [status, schema ? ajv.compile(schema) : null];
      }),
    ),
  })),
);

/** Statuses the HTTP layer answers before an operation runs, for every operation. */
const TRANSPORT_STATUSES: Record<string, string> = {
  '413': 'a body over the 1 MB limit',
  '414': 'a URL over the server limit',
  '431': 'headers over the server limit',
};

const { logStream, errorLines } = errorLogCapture();

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp(
    { LOG_LEVEL: 'warn' },
    {
      logger: true,
      logStream,
      // Generous limits: the fuzzer sends hundreds of requests with one key.
      policies: {
        'building-links': { points: 1_000_000, durationSeconds: 60, keyedBy: 'api-key' },
        'floorplan-match': { points: 1_000_000, durationSeconds: 60, keyedBy: 'api-key' },
        changes: { points: 1_000_000, durationSeconds: 60, keyedBy: 'api-key' },
        // Some calls send a wrong key: without this the address would be refused after 30.
        'auth-failure': { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
  const team = await createTeam(t, { plan: 'elite' });
  key = (await createApiKey(t, team.id, [...FUSION_SCOPES])).secret;
  await createProject(t);
});
afterAll(() => t.close());

/** A parameter's value as the text of a URL: generated from its schema, or raw bytes a client could send. */
function parameterText(p: Parameter): fc.Arbitrary<string> {
  const fromSchema = valueFor(p.schema).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')));
  return fc.oneof(
    { weight: 4, arbitrary: fromSchema.map((v) => encodeWellFormed(v)) },
    {
      weight: 1,
      // Percent-encoded NUL, an encoded lone surrogate (invalid UTF-8), 2^31 and 2^53 + 1.
      arbitrary: fc.constantFrom(
        '%00',
        'a%00b',
        '%ED%A0%80',
        '%FF',
        '2147483648',
        '9007199254740993',
        '%',
        '',
      ),
    },
  );
}

/** encodeURIComponent throws on a lone surrogate: send its replacement-free UTF-8 bytes instead. */
function encodeWellFormed(v: string): string {
  if (v.length > 8000) v = v.slice(0, 8000);
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
}

type FuzzOperation = (typeof operations)[number];
interface Call {
  params: Record<string, string>;
  body: string | undefined;
  credential: 'key' | 'none' | 'wrong';
}

const callFor = (operation: FuzzOperation): fc.Arbitrary<Call> => {
  const params = operation.op.parameters ?? [];
  const bodySchema = operation.op.requestBody?.content['application/json']?.schema;
  return fc.record({
    params: fc.record(Object.fromEntries(params.map((p) => [p.name, parameterText(p)])), {
      requiredKeys: params.filter((p) => p.required).map((p) => p.name),
    }),
    body: bodySchema
      ? fc.oneof(
          { weight: 6, arbitrary: valueFor(bodySchema).map((v) => JSON.stringify(v) ?? 'null') },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              JSON.stringify(DEEP_JSON),
              '{"listings": [',
              '',
              'null',
              `{"listings":[{"ref":"${MEGABYTE}"}]}`,
              '{"__proto__": {"listings": []}}',
            ),
          },
          { weight: 1, arbitrary: wrongType.map((v) => JSON.stringify(v)) },
        )
      : fc.constant(undefined),
    credential: fc.oneof(
      { weight: 8, arbitrary: fc.constant<'key' | 'none' | 'wrong'>('key') },
      { weight: 1, arbitrary: fc.constantFrom<'key' | 'none' | 'wrong'>('none', 'wrong') },
    ),
  });
};

async function send(operation: FuzzOperation, { params, body, credential }: Call) {
  const paramList = operation.op.parameters ?? [];
  let path = operation.path;
  const query: string[] = [];
  for (const p of paramList) {
    const value = params[p.name];
    if (value === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, value);
    else if (p.in === 'query') query.push(`${p.name}=${value}`);
  }
  // A required path parameter left out is an empty segment.
  path = path.replace(/\{[^}]+\}/g, '');
  const url = `${BASE}${path}${query.length ? `?${query.join('&')}` : ''}`;
  const headers: Record<string, string> = {};
  if (credential === 'key') headers.authorization = `Bearer ${key}`;
  if (credential === 'wrong') headers.authorization = 'Bearer pds_key_not-a-real-key';
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { url, res: await t.request(operation.method, url, { headers, body }) };
}

describe('REST fuzzing from the committed OpenAPI document', () => {
  it.each(operations.map((o) => [o.name, o] as const))(
    '%s: generated parameters and bodies get a documented status and body, never a 5xx',
    async (_name, operation) => {
      await fc.assert(
        fc.asyncProperty(callFor(operation), async (call) => {
          const { url, res } = await send(operation, call);
          const where = `${operation.method} ${url.slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
          expect([where, res.status < 500]).toEqual([where, true]);
          const status = String(res.status);
          if (TRANSPORT_STATUSES[status]) return;
          expect([where, operation.responses.has(status)]).toEqual([where, true]);
          const validate = operation.responses.get(status);
          if (validate) {
            const valid = validate(res.json);
            expect([where, valid ? null : validate.errors]).toEqual([where, null]);
          }
        }),
        { numRuns: fuzzRuns(80) },
      );
      expect(errorLines).toEqual([]);
      // Still answering, with the right answer.
      const after = await t.request('POST', `${BASE}/floorplan-match`, {
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ listings: [{ ref: 'after' }] }),
      });
      expect(after.status).toBe(200);
    },
  );
});
