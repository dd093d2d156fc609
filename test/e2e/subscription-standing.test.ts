import { PAST_DUE_GRACE_DAYS } from '../../src/auth/entitlements.js';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createProject,
  createTeam,
  createUser,
  setPlan,
} from '../support/factories.js';

/** A plan grants only while its subscription is in good standing, checked on every request of every entry point. */
let t: TestApp;
let buildingId: number;
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString();

const STANDINGS: [string, { subscriptionStatus: string; pastDueSince?: string }, RegExp | null][] = [
  ['active', { subscriptionStatus: 'active' }, null],
  ['trialing', { subscriptionStatus: 'trialing' }, null],
  [
    'past_due within the grace period',
    { subscriptionStatus: 'past_due', pastDueSince: daysAgo(PAST_DUE_GRACE_DAYS - 1) },
    null,
  ],
  [
    'past_due beyond the grace period',
    { subscriptionStatus: 'past_due', pastDueSince: daysAgo(PAST_DUE_GRACE_DAYS + 1) },
    new RegExp(`past_due since \\d{4}-\\d\\d-\\d\\d, beyond the ${PAST_DUE_GRACE_DAYS}-day grace period`),
  ],
  ['unpaid', { subscriptionStatus: 'unpaid' }, /subscription is unpaid/],
  ['canceled', { subscriptionStatus: 'canceled' }, /subscription is canceled/],
];

async function member(standing: { subscriptionStatus: string; pastDueSince?: string }) {
  const team = await createTeam(t, { plan: 'pro', agentTier: 'agent', ...standing });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  const key = await createApiKey(t, team.id, ['building-links']);
  const token = await createAccessToken(t, team.id, user.id);
  return { team, key: key.secret, token: token.secret };
}

const buildingLink = (key: string) =>
  t.request('GET', `/api/v1/building-links/${buildingId}`, { headers: { authorization: `Bearer ${key}` } });

const searchTool = (token: string) =>
  t.request('POST', '/mcp', {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search-document-text', arguments: { query: 'parking' } },
    }),
  });

beforeAll(async () => {
  t = await startTestApp();
  const project = await createProject(t, { name: 'Standing Tower' });
  const b = await t.op(`mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "A"}) { id } }`, {
    p: project.id,
  });
  buildingId = b.createBuilding.id;
});
afterAll(async () => {
  await t.close();
});

describe('subscription standing', () => {
  it.each(STANDINGS)('%s: Fusion REST API', async (_name, standing, refusal) => {
    const { key } = await member(standing);
    const res = await buildingLink(key);
    if (!refusal) {
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      message: expect.stringMatching(refusal),
      scope: 'building-links',
      upgrade_required: true,
    });
  });

  it.each(STANDINGS)('%s: Document Intelligence over MCP', async (_name, standing, refusal) => {
    const { token } = await member(standing);
    const res = await searchTool(token);
    expect(res.status).toBe(200);
    const result = res.json.result;
    if (!refusal) {
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent.meta.query).toBe('parking');
      return;
    }
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(
      /Document Intelligence requires a Pro or Elite subscription in good standing/,
    );
    expect(result.content[0].text).toMatch(refusal);
  });

  it.each(STANDINGS)('%s: Document Intelligence over GraphQL', async (_name, standing, refusal) => {
    const { token } = await member(standing);
    const res = await t.gql(`{ searchDocumentText(query: "parking") { meta { query } } }`, {}, token);
    if (!refusal) {
      expect(res.errors).toBeUndefined();
      return;
    }
    expect(res.errors?.[0]?.message).toMatch(refusal);
  });

  it('a lapse bites on the next request, and paying restores access at once', async () => {
    const { team, key, token } = await member({ subscriptionStatus: 'active' });
    expect((await buildingLink(key)).status).toBe(200);
    await setPlan(t, team.id, { subscriptionStatus: 'canceled' });
    expect((await buildingLink(key)).status).toBe(403);
    expect((await searchTool(token)).json.result.isError).toBe(true);
    await setPlan(t, team.id, { subscriptionStatus: 'active' });
    expect((await buildingLink(key)).status).toBe(200);
    expect((await searchTool(token)).json.result.isError).toBeUndefined();
  });

  it('past_due starts its grace when the status changes, keeps it while the status stays, and clears after', async () => {
    const { team } = await member({ subscriptionStatus: 'active' });
    const update = async (input: Record<string, string>) =>
      (
        await t.op(
          `mutation($id: Int!, $input: UpdateTeamInput!) { updateTeam(id: $id, input: $input) { subscriptionStatus pastDueSince } }`,
          { id: team.id, input },
        )
      ).updateTeam as { subscriptionStatus: string; pastDueSince: string | null };
    const lapsed = await update({ subscriptionStatus: 'past_due' });
    expect(Date.now() - Date.parse(lapsed.pastDueSince!)).toBeLessThan(60_000);
    expect((await update({ subscriptionStatus: 'past_due' })).pastDueSince).toBe(lapsed.pastDueSince);
    expect(await update({ subscriptionStatus: 'active' })).toEqual({
      subscriptionStatus: 'active',
      pastDueSince: null,
    });
  });
});
