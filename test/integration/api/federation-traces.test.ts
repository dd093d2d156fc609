import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createTeam, memberToken } from '../../support/factories.js';

/** Federation traces (ftv1) are answered to the gateway and the operator only. */
const GATEWAY_TOKEN = 'gateway-trace-token-0123456789abcdef';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ FEDERATION_TRACE_TOKEN: GATEWAY_TOKEN });
});
afterAll(() => t.close());

async function traced(headers: Record<string, string>): Promise<boolean> {
  const res = await t.request('POST', '/graphql', {
    headers: { 'content-type': 'application/json', 'apollo-federation-include-trace': 'ftv1', ...headers },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  expect(res.status).toBe(200);
  expect(res.json.data).toEqual({ __typename: 'Query' });
  return typeof res.json.extensions?.ftv1 === 'string';
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

it('an anonymous caller, an API key and a personal token get no trace', async () => {
  expect(await traced({})).toBe(false);
  const team = await createTeam(t, { plan: 'elite' });
  expect(await traced(bearer((await createApiKey(t, team.id, ['building-links'])).secret))).toBe(false);
  expect(await traced(bearer((await memberToken(t, 'elite')).secret))).toBe(false);
});

it('a wrong or empty gateway token gets none', async () => {
  expect(await traced({ 'x-federation-trace-token': 'gateway-trace-token-0123456789abcdeX' })).toBe(false);
  expect(await traced({ 'x-federation-trace-token': '' })).toBe(false);
});

it('the operator and the gateway (FEDERATION_TRACE_TOKEN) get one', async () => {
  expect(await traced(bearer(t.operator))).toBe(true);
  expect(await traced({ 'x-federation-trace-token': GATEWAY_TOKEN })).toBe(true);
});

it('without FEDERATION_TRACE_TOKEN configured, no header value opens traces', async () => {
  const plain = await startTestApp();
  try {
    const res = await plain.request('POST', '/graphql', {
      headers: {
        'content-type': 'application/json',
        'apollo-federation-include-trace': 'ftv1',
        'x-federation-trace-token': GATEWAY_TOKEN,
      },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.json.extensions?.ftv1).toBeUndefined();
  } finally {
    await plain.close();
  }
});
