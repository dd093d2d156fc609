import { createApp, type App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam } from '../../support/factories.js';
import { describeWith } from '../../support/requirements.js';

/**
 * Two server processes' worth of app instances on one PostgreSQL database share the per-key
 * limit through the configured store. Embedded PGlite is private to one process, so this needs
 * DATABASE_URL (CI sets it); Redis must answer on 127.0.0.1:6379 (CI starts it).
 */
const postgres = describeWith(
  !!process.env.DATABASE_URL,
  'needs a real PostgreSQL shared by two instances (DATABASE_URL)',
);

postgres.each([['postgres'], ['redis://127.0.0.1:6379']])(
  'rate limit shared by two instances (%s)',
  (store) => {
    let first: TestApp;
    let second: App;
    let secondUrl: string;
    let key: string;
    let buildingId: string;
    const policies = { 'building-links': { points: 6, durationSeconds: 60, keyedBy: 'api-key' as const } };

    beforeAll(async () => {
      first = await startTestApp({ RATE_LIMIT_STORE: store }, { policies });
      second = await createApp(
        loadConfig({
          DATABASE_URL: first.config.databaseUrl!,
          RATE_LIMIT_STORE: store,
          PDS_ADMIN_TOKEN: OPERATOR_TOKEN,
          LOG_LEVEL: 'silent',
          DEMO_SEED: 'off',
        }),
        { logger: false, policies, worker: false },
      );
      await second.server.listen({ host: '127.0.0.1', port: 0 });
      secondUrl = `http://127.0.0.1:${(second.server.addresses()[0] as { port: number }).port}`;
      const team = await createTeam(first, { plan: 'pro' });
      key = (await createApiKey(first, team.id, ['building-links'])).secret;
      const project = await createProject(first);
      buildingId = (
        await first.op(`mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "B"}) { id } }`, {
          p: project.id,
        })
      ).createBuilding.id;
    });
    afterAll(async () => {
      await second.close();
      await first.close();
    });

    it('holds the limit across both instances', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const base = i % 2 ? secondUrl : first.url;
        const res = await fetch(`${base}/api/v1/building-links/${buildingId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
    });
  },
);
