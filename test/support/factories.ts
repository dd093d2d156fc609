import type { TestApp } from './app.js';

/** Each test builds its own tenant through the operator contract (the real GraphQL path). */
let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

export async function createTeam(
  t: TestApp,
  input: {
    plan: string;
    agentTier?: string;
    subscriptionStatus?: string;
    pastDueSince?: string;
    name?: string;
  },
): Promise<{ id: number; plan: string }> {
  const { createTeam: team } = await t.op(
    `mutation($input: CreateTeamInput!) { createTeam(input: $input) { id plan } }`,
    {
      input: {
        name: input.name ?? unique('team'),
        plan: input.plan,
        agentTier: input.agentTier ?? 'none',
        subscriptionStatus: input.subscriptionStatus ?? 'active',
        pastDueSince: input.pastDueSince,
      },
    },
  );
  return team;
}

export async function createApiKey(
  t: TestApp,
  teamId: number,
  scopes: string[],
  expiresAt?: string,
): Promise<{ id: number; secret: string }> {
  const { createApiKey: created } = await t.op(
    `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } secret } }`,
    { input: { teamId, name: unique('key'), scopes, expiresAt } },
  );
  return { id: created.apiKey.id, secret: created.secret };
}

export async function createUser(
  t: TestApp,
  password = 'correct horse battery',
  email = `${unique('user')}@example.com`,
): Promise<{ id: number; email: string; password: string }> {
  const { createUser: user } = await t.op(
    `mutation($input: CreateUserInput!) { createUser(input: $input) { id email } }`,
    { input: { email, name: 'Test User', password } },
  );
  return { ...user, password };
}

export async function addMember(t: TestApp, teamId: number, userId: number, role = 'member'): Promise<void> {
  await t.op(`mutation($input: AddMembershipInput!) { addMembership(input: $input) { id } }`, {
    input: { teamId, userId, role },
  });
}

export async function createAccessToken(
  t: TestApp,
  teamId: number,
  userId?: number,
  expiresAt?: string,
): Promise<{ id: number; secret: string }> {
  const { createAccessToken: created } = await t.op(
    `mutation($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken { id } secret } }`,
    { input: { teamId, userId, name: unique('token'), expiresAt } },
  );
  return { id: created.accessToken.id, secret: created.secret };
}

/** A team on `plan` with one member and that member's MCP access token: the usual caller. */
export async function memberToken(t: TestApp, plan: string): Promise<{ teamId: number; secret: string }> {
  const team = await createTeam(t, { plan });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  return { teamId: team.id, secret: (await createAccessToken(t, team.id, user.id)).secret };
}

export async function setPlan(t: TestApp, teamId: number, input: Record<string, string>): Promise<void> {
  await t.op(`mutation($id: Int!, $input: UpdateTeamInput!) { updateTeam(id: $id, input: $input) { id } }`, {
    id: teamId,
    input,
  });
}

export async function createProject(
  t: TestApp,
  input: Record<string, unknown> = {},
): Promise<{ id: number; name: string }> {
  const { createProject: project } = await t.op(
    `mutation($input: CreateProjectInput!) { createProject(input: $input) { id name } }`,
    { input: { name: unique('Project'), city: 'Toronto', developerName: 'Test Developer', ...input } },
  );
  return project;
}
