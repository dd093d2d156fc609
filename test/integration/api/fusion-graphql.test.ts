import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedDemo } from '../../../src/demo/seed.js';

/**
 * `matchFloorPlans` takes its listings as GraphQL gives them (src/graphql/schema.ts), not as
 * type-graphql's class instances. GraphQL gives them two ways: coerced from variables, and built
 * from literals in the document (graphql-js's own objects, with no prototype). Both answer alike.
 */

let t: TestApp;
/** Listings as an integrator sends them, from the demo's own plans (as the bench builds them). */
let listings: Record<string, unknown>[];

beforeAll(async () => {
  t = await startTestApp();
  await seedDemo(t.app);
  const plans = await t.app.db.orm.em
    .fork()
    .getConnection()
    .execute<
      {
        building_id: number;
        bedrooms: number;
        unit_numbers: string[];
        stacks: string[];
        floor_min: number | null;
      }[]
    >(
      `select building_id, bedrooms, unit_numbers, stacks, floor_min from floor_plan
        where building_id is not null order by id limit 12`,
    );
  listings = plans.map((p, i) => ({
    ref: `listing-${i}`,
    building_id: p.building_id,
    ...(i % 3 === 0 && p.unit_numbers.length ? { unit_number: p.unit_numbers[0] } : {}),
    ...(i % 3 === 1 && p.stacks.length && p.floor_min
      ? { unit_number: `${p.floor_min + 1}${p.stacks[0]}` }
      : {}),
    bedrooms: p.bedrooms,
    ...(i % 2 ? { interior_sqft: [500, 900] } : { exposure: 'S' }),
  }));
  listings.push({ ref: 'unknown building', building_id: 999_999 });
});
afterAll(async () => {
  await t.close();
});

/** A value as a GraphQL literal (keys unquoted). */
const literal = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(literal).join(', ')}]`
    : typeof v === 'object' && v !== null
      ? `{${Object.entries(v)
          .map(([k, x]) => `${k}: ${literal(x)}`)
          .join(', ')}}`
      : JSON.stringify(v);

it('answers listings given as literals exactly as the same listings given as variables', async () => {
  const document = readFileSync(
    new URL('../../../facades/rest/floorplan-match.graphql', import.meta.url),
    'utf8',
  );
  const byVariables = await t.gql(document, { listings }, t.operator);
  expect(byVariables.errors).toBeUndefined();
  const inline = document.replace(/\(\$listings: [^)]*\)/, '').replace('$listings', literal(listings));
  expect(inline).not.toContain('$');
  const byLiterals = await t.gql(inline, {}, t.operator);
  expect(byLiterals.errors).toBeUndefined();
  expect(JSON.stringify(byLiterals.data)).toBe(JSON.stringify(byVariables.data));
  const results = (byVariables.data as { result: { results: { ref: string; status: string }[] } }).result
    .results;
  expect(results.map((r) => r.ref)).toEqual(listings.map((l) => l.ref));
  expect(results.filter((r) => r.status === 'matched').length).toBeGreaterThan(0);
  expect(results.at(-1)?.status).toBe('no_match');
});
