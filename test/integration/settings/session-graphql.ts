import type { TestApp } from '../../support/app.js';

export interface SignedIn {
  cookie: string;
  gql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    teamId?: number,
  ): Promise<{
    status: number;
    data: T | null;
    errors?: { message: string; extensions?: Record<string, any> }[];
  }>;
}

/** Signs in through the real login form and returns a GraphQL caller that sends the session cookie. */
export async function signIn(t: TestApp, person: { email: string; password: string }): Promise<SignedIn> {
  const res = await fetch(new URL('/login', t.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: person.email, password: person.password, next: '/login' }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = res.headers.getSetCookie()[0].split(';')[0];
  return {
    cookie,
    gql: async (query, variables = {}, teamId) => {
      const r = await t.request('POST', '/graphql', {
        headers: {
          'content-type': 'application/json',
          cookie,
          ...(teamId ? { 'x-team-id': String(teamId) } : {}),
        },
        body: JSON.stringify({ query, variables }),
      });
      return { status: r.status, data: r.json?.data ?? null, errors: r.json?.errors };
    },
  };
}
