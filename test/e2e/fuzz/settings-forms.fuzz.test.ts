import fc from 'fast-check';
import { startTestApp, type TestApp } from '../../support/app.js';
import { errorLogCapture } from '../../support/error-log.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { signIn } from '../../integration/settings/session-graphql.js';
import { fuzzRuns, HOSTILE_TEXT } from '../../support/schema-arbitrary.js';

/**
 * Every form of the team settings pages, posted by a signed-in owner with generated fields and
 * path ids, boundary values first (NUL, unpaired surrogates, 2^31, 2^53, long values, repeated,
 * missing and unknown fields), half of the time with a valid one-time form token so the posts
 * reach the actions themselves. Whatever is sent: an HTML page or a redirect below 500, no
 * error-level log line, and the pages still answer afterwards. Fixed seed
 * (test/support/property-seed.ts); PROPERTY_RUNS_FACTOR multiplies the runs.
 */
const { logStream, errorLines } = errorLogCapture();

let t: TestApp;
let cookie: string;
let teamId: number;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp(
    { LOG_LEVEL: 'warn' },
    {
      logger: true,
      logStream,
      // Generous limits: the fuzzer posts hundreds of forms from one address and session.
      policies: {
        graphql: { points: 1_000_000, durationSeconds: 60, keyedBy: 'credential' },
        oauth: { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
  const team = await createTeam(t, { plan: 'elite', agentTier: 'agent' });
  teamId = team.id;
  const owner = await createUser(t);
  await addMember(t, team.id, owner.id, 'owner');
  cookie = (await signIn(t, owner)).cookie;
  ids.key = String((await createApiKey(t, team.id, ['building-links'])).id);
  ids.token = String((await createAccessToken(t, team.id, owner.id)).id);
});
afterAll(() => t.close());

/** The settings forms, each with the page that renders it (for a fresh one-time form token). */
const FORMS: { path: (id: string) => string; page: string; fields: string[] }[] = [
  { path: () => '/settings/api-keys', page: '/settings/api-keys', fields: ['name', 'scopes', 'expires'] },
  { path: (id) => `/settings/api-keys/${id}/roll`, page: '/settings/api-keys', fields: ['overlap'] },
  { path: (id) => `/settings/api-keys/${id}/revoke`, page: '/settings/api-keys', fields: [] },
  { path: () => '/settings/api/tokens', page: '/settings/api', fields: ['name', 'expires'] },
  { path: (id) => `/settings/api/tokens/${id}/revoke`, page: '/settings/api', fields: [] },
  { path: (id) => `/settings/api/clients/${id}/disconnect`, page: '/settings/api', fields: [] },
  { path: () => '/settings/webhooks', page: '/settings/webhooks', fields: ['url', 'types'] },
  { path: (id) => `/settings/webhooks/${id}/disable`, page: '/settings/webhooks', fields: [] },
  { path: (id) => `/settings/webhooks/${id}/redeliver`, page: '/settings/webhooks', fields: ['delivery'] },
];

const value = fc.oneof(
  fc.constantFrom(
    ...HOSTILE_TEXT,
    '2147483648',
    '9007199254740993',
    '-1',
    '0',
    '2999-01-01',
    '1999-01-01',
    'building-links',
    'floorplan-match',
    'project.created',
    'https://example.com/hook',
    'http://127.0.0.1:1/hook',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const pathId = fc.oneof(
  fc.constantFrom('key', 'token').map((k) => ids[k]),
  fc.constantFrom('0', '2147483648', '9007199254740993', 'abc', '%00', '-1', '1.5', 'x'.repeat(120)),
);

/** A fresh form token for the team, read from the page that renders the form. */
async function formToken(page: string): Promise<{ nonce: string; token: string }> {
  const res = await t.request('GET', `${page}?team=${teamId}`, { headers: { cookie } });
  const match = /name="nonce" value="([^"]+)" \/>\s*<input type="hidden" name="token" value="([^"]+)"/.exec(
    res.text,
  );
  if (!match) throw new Error(`no form on ${page}: ${res.status}`);
  return { nonce: match[1], token: match[2] };
}

describe('settings forms fuzzing', () => {
  it.each(FORMS.map((f) => [f.path(':id'), f] as const))(
    'POST %s: generated fields and ids get a page or a redirect, never a 5xx or an error log line',
    async (_name, form) => {
      await fc.assert(
        fc.asyncProperty(
          pathId,
          fc.array(fc.tuple(fc.constantFrom(...form.fields, ...form.fields, 'team', 'x'), value), {
            maxLength: 6,
          }),
          fc.boolean(),
          async (id, fields, withToken) => {
            const body = new URLSearchParams([['team', String(teamId)]]);
            if (withToken) {
              const { nonce, token } = await formToken(form.page);
              body.set('nonce', nonce);
              body.set('token', token);
            }
            for (const [name, v] of fields) body.append(name, v);
            const res = await fetch(`${t.url}${form.path(id)}`, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
              body: body.toString(),
            });
            const where = `${form.path(id)} ${body.toString().slice(0, 300)} → ${res.status}`;
            expect([where, res.status < 500]).toEqual([where, true]);
            if (res.status < 300 || res.status >= 400) {
              expect([where, res.headers.get('content-type')]).toEqual([
                where,
                expect.stringMatching(/^text\/html|^application\/json/),
              ]);
            }
            await res.arrayBuffer();
          },
        ),
        { numRuns: fuzzRuns(25) },
      );
      expect(errorLines).toEqual([]);
      const page = await t.request('GET', `${form.page}?team=${teamId}`, { headers: { cookie } });
      expect(page.status).toBe(200);
    },
  );
});
