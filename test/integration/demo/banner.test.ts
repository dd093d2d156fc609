import { startBanner } from '../../../src/demo/banner.js';
import { seedDemo, type DemoCredentials } from '../../../src/demo/seed.js';
import { startTestApp, type TestApp } from '../../support/app.js';

/** The start banner's sign-in lines are read by a person and typed into /login: they must work. */
let t: TestApp;
let demo: DemoCredentials;

beforeAll(async () => {
  t = await startTestApp();
  demo = await seedDemo(t.app);
}, 120_000);
afterAll(async () => {
  await t.close();
});

const embedded = () => ({ ...t.config, embedded: true });

describe('npm start banner: demo sign-in', () => {
  it('prints every demo user and the password, and they sign in at /login', async () => {
    const text = startBanner(embedded(), 'pds_op_x', demo, 1234);
    const password = /password: (\S+)\):/.exec(text)?.[1];
    const emails = [...text.matchAll(/^ {2}(\S+@\S+) +owner of "([^"]+)"/gm)].map((m) => m[1]);
    expect(emails.sort()).toEqual(demo.teams.map((c) => c.userEmail).sort());
    expect(emails).toHaveLength(4);
    for (const email of emails) {
      const res = await fetch(`${t.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password: password!, next: '/login' }).toString(),
      });
      expect(res.status).toBe(303);
      expect(res.headers.getSetCookie()[0]).toMatch(/pds_session=/);
    }
  });

  it('names the users whose team can use the connector, and what to try', async () => {
    const text = startBanner(embedded(), null, demo, 1);
    const connectorUsers = demo.teams.filter((c) => c.agentTier !== 'none').map((c) => c.userEmail);
    expect(connectorUsers.length).toBeGreaterThan(0);
    for (const c of demo.teams) {
      const line = text.split('\n').find((l) => l.startsWith(`  ${c.userEmail} `));
      expect(line?.includes('can connect AI clients')).toBe(c.agentTier !== 'none');
    }
    expect(text).toContain(`${t.config.publicBaseUrl}/mcp as a remote MCP server`);
    expect(text).toContain(`sign in as ${connectorUsers.join(' or ')}`);
    expect(text).toMatch(/API keys and MCP tokens/);
  });

  it('never prints a password or demo users when the database is a real one', () => {
    const text = startBanner({ ...t.config, embedded: false }, null, demo, 1);
    expect(text).not.toContain(demo.password);
    expect(text).not.toContain('@demo.example.com');
    expect(startBanner(embedded(), null, null, 1)).not.toMatch(/password|sign-in/i);
  });
});
