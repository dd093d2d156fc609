import fc from 'fast-check';
import type { TestApp } from '../../support/app.js';
import { errorLogCapture } from '../../support/error-log.js';
import { registerClient } from './oauth-client.js';
import { startOAuthTestApp } from './sdk-client.js';

/**
 * Malformed forms and JSON against the registration, token and authorization endpoints: every
 * answer is a 4xx with an OAuth error body, never a 5xx, no error-level line is logged, and the
 * endpoints still work afterwards.
 */
const { logStream, errorLines } = errorLogCapture();
let t: TestApp;
let clientId: string;
const RUNS = 120 * Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);

beforeAll(async () => {
  t = await startOAuthTestApp({ LOG_LEVEL: 'warn' }, { logger: true, logStream });
  clientId = await registerClient(t);
});
afterAll(async () => {
  await t.close();
});

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00',
    '%00',
    '../../etc',
    '<script>',
    'null',
    '[]',
    '{}',
    ' '.repeat(3000),
  ),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
);
const jsonish = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nasty),
  fc.dictionary(fc.string(), nasty),
);

const contentTypes = fc.constantFrom(
  'application/json',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded; charset=koi8-r',
  'text/plain',
  'multipart/form-data; boundary=x',
  undefined,
);

function formEncode(fields: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v))
      v.forEach((item) => form.append(k, typeof item === 'string' ? item : String(JSON.stringify(item))));
    else form.append(k, typeof v === 'string' ? v : String(JSON.stringify(v)));
  }
  return form.toString();
}

/** A body: a form, a JSON document (possibly cut short), or noise. */
function body(fields: fc.Arbitrary<Record<string, unknown>>) {
  return fc.oneof(
    fields.map((f) => ({ kind: 'form', text: formEncode(f) })),
    fields.map((f) => ({ kind: 'json', text: JSON.stringify(f) })),
    fc.tuple(fields, fc.nat()).map(([f, n]) => {
      const text = JSON.stringify(f);
      return { kind: 'truncated', text: text.slice(0, n % Math.max(1, text.length)) };
    }),
    fc.jsonValue().map((v) => ({ kind: 'json-any', text: JSON.stringify(v) ?? 'null' })),
    nasty.map((s) => ({ kind: 'noise', text: s })),
  );
}

async function post(path: string, contentType: string | undefined, text: string) {
  const res = await fetch(new URL(path, t.url), {
    method: 'POST',
    headers: contentType ? { 'content-type': contentType } : {},
    body: text,
  });
  const raw = await res.text();
  let json: { error?: unknown } | undefined;
  try {
    json = JSON.parse(raw) as { error?: unknown };
  } catch {
    json = undefined;
  }
  return { status: res.status, json, raw, cacheControl: res.headers.get('cache-control') };
}

const OAUTH_ERROR =
  /^(invalid_request|invalid_client|invalid_grant|unsupported_grant_type|unsupported_response_type|invalid_scope|invalid_target|invalid_client_metadata|invalid_redirect_uri)$/;

describe('fuzzing the OAuth endpoints', () => {
  it('registration: malformed metadata gets an OAuth error body, never a 5xx', async () => {
    const metadata = fc.record(
      {
        // Mostly valid redirect URIs, so the other fields reach the client store.
        redirect_uris: fc.oneof(
          { weight: 3, arbitrary: fc.constant(['https://app.example/cb']) },
          fc.array(fc.oneof(fc.webUrl(), nasty), { maxLength: 12 }),
          jsonish,
        ),
        client_name: jsonish,
        grant_types: fc.oneof(
          fc.array(fc.constantFrom('authorization_code', 'refresh_token', 'implicit', 'password')),
          jsonish,
        ),
        response_types: fc.oneof(fc.constant(['code']), fc.array(nasty), jsonish),
        token_endpoint_auth_method: fc.oneof(
          fc.constantFrom('none', 'client_secret_post', 'private_key_jwt'),
          jsonish,
        ),
        scope: jsonish,
        client_uri: jsonish,
        logo_uri: jsonish,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body(metadata), contentTypes, async (b, contentType) => {
        const res = await post('/oauth/register', contentType, b.text);
        expect(res.status).toBeLessThan(500);
        if (res.status === 201) {
          expect(b.kind === 'json' || b.kind === 'json-any').toBe(true);
          const sent = JSON.parse(b.text) as { redirect_uris: unknown };
          expect((res.json as { redirect_uris?: unknown }).redirect_uris).toEqual(sent.redirect_uris);
          return;
        }
        expect([400, 413, 415]).toContain(res.status);
        expect(String(res.json?.error)).toMatch(OAUTH_ERROR);
        expect(res.cacheControl).toBe('no-store');
      }),
      { numRuns: RUNS },
    );
  });

  it('registration: well-formed JSON with hostile text is stored and echoed, or refused, never a 5xx', async () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('a', '\u0000', '\ud800', '\udc00', '\u{1F600}', '"', '\\') }),
    );
    const metadata = fc.record(
      {
        redirect_uris: fc.array(fc.webUrl({ validSchemes: ['https'] }), { minLength: 1, maxLength: 3 }),
        client_name: hostile,
        scope: hostile,
        contacts: fc.array(hostile, { maxLength: 3 }),
        software_id: hostile,
        policy_uri: hostile,
      },
      { requiredKeys: ['redirect_uris'] },
    );
    await fc.assert(
      fc.asyncProperty(metadata, async (m) => {
        const res = await post('/oauth/register', 'application/json', JSON.stringify(m));
        expect(res.status).toBeLessThan(500);
        if (res.status === 201) {
          const echoed = res.json as { redirect_uris?: unknown; client_name?: unknown };
          expect(echoed.redirect_uris).toEqual(m.redirect_uris);
          expect(echoed.client_name).toBe(m.client_name);
        } else {
          expect(res.status).toBe(400);
          expect(String(res.json?.error)).toMatch(OAUTH_ERROR);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it.each([
    ['a NUL character', '"a\\u0000b"'],
    ['a lone surrogate', '"a\\ud800b"'],
  ])('registration: a client name with %s is refused as invalid_client_metadata', async (_name, literal) => {
    const res = await post(
      '/oauth/register',
      'application/json',
      `{"client_name": ${literal}, "redirect_uris": ["https://app.example/cb"]}`,
    );
    expect(res.status).toBe(400);
    expect(res.json?.error).toBe('invalid_client_metadata');
  });

  it('token: malformed grants get invalid_request, invalid_client or invalid_grant, never a 5xx', async () => {
    const fields = fc.record(
      {
        grant_type: fc.oneof(
          fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password'),
          nasty,
        ),
        client_id: fc.oneof(fc.constant(clientId), fc.uuid(), nasty),
        code: nasty,
        code_verifier: nasty,
        redirect_uri: fc.oneof(fc.constant('http://127.0.0.1:1/callback'), nasty),
        refresh_token: fc.oneof(
          fc.stringMatching(/^pds_ort_[0-9A-Za-z]{36}$/),
          fc.stringMatching(/^pds_oat_[0-9A-Za-z]{36}$/),
          nasty,
        ),
        resource: fc.oneof(fc.constant(`${t.config.publicBaseUrl}/mcp`), nasty),
        scope: nasty,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body(fields), contentTypes, async (b, contentType) => {
        const res = await post('/oauth/token', contentType, b.text);
        expect(res.status).toBeLessThan(500);
        expect([400, 413, 415]).toContain(res.status);
        expect(String(res.json?.error)).toMatch(OAUTH_ERROR);
        expect(res.cacheControl).toBe('no-store');
      }),
      { numRuns: RUNS },
    );
  });

  it('token: a registered client with hostile grant parameters reaches the grant checks, never a 5xx', async () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.stringMatching(/^pds_(ort|oat|key)_[0-9A-Za-z]{36}$/),
      fc.base64String(),
    );
    const grant = fc.oneof(
      fc.record({
        grant_type: fc.constant('authorization_code'),
        code: hostile,
        code_verifier: hostile,
        redirect_uri: fc.oneof(fc.constant('http://127.0.0.1:1/callback'), hostile),
        resource: fc.oneof(fc.constant(`${t.config.publicBaseUrl}/mcp`), fc.webUrl()),
      }),
      fc.record({
        grant_type: fc.constant('refresh_token'),
        refresh_token: hostile,
        scope: fc.oneof(fc.constant('mcp'), hostile),
        resource: fc.oneof(fc.constant(`${t.config.publicBaseUrl}/mcp`), fc.webUrl()),
      }),
    );
    await fc.assert(
      fc.asyncProperty(grant, async (g) => {
        const res = await post(
          '/oauth/token',
          'application/x-www-form-urlencoded',
          new URLSearchParams({ client_id: clientId, ...g }).toString(),
        );
        expect(res.status).toBe(400);
        expect(String(res.json?.error)).toMatch(/^(invalid_request|invalid_grant)$/);
        expect(res.cacheControl).toBe('no-store');
      }),
      { numRuns: RUNS },
    );
  });

  it('authorize: malformed queries are refused or sent back with an error, never a 5xx', async () => {
    const query = fc.record(
      {
        response_type: fc.oneof(fc.constant('code'), nasty),
        client_id: fc.oneof(fc.constant(clientId), fc.uuid(), nasty),
        redirect_uri: fc.oneof(fc.constant('http://127.0.0.1:1/callback'), nasty),
        code_challenge: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), nasty),
        code_challenge_method: fc.oneof(fc.constantFrom('S256', 'plain'), nasty),
        state: nasty,
        resource: fc.oneof(fc.constant(`${t.config.publicBaseUrl}/mcp`), nasty),
        scope: nasty,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const url = new URL('/oauth/authorize', t.url);
        for (const [k, v] of Object.entries(q)) url.searchParams.set(k, String(v));
        const res = await fetch(url, { redirect: 'manual' });
        expect(res.status).toBeLessThan(500);
        if (res.status === 302) {
          const location = new URL(res.headers.get('location')!);
          const ok = location.pathname === '/oauth/consent' || location.searchParams.get('error') !== null;
          expect(ok).toBe(true);
          expect(location.searchParams.get('error') ?? '').not.toBe('server_error');
        } else {
          expect(res.status).toBe(400);
          expect(String(((await res.json()) as { error?: unknown }).error)).toMatch(OAUTH_ERROR);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

it('no input above made the service log an error, and a client still registers', async () => {
  expect(errorLines).toEqual([]);
  await expect(registerClient(t)).resolves.toMatch(/./);
});
