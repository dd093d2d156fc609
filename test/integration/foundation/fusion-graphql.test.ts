import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject } from '../../support/factories.js';

/**
 * `matchFloorPlans` takes its listings as GraphQL gives them (src/graphql/schema.ts), not as
 * type-graphql's class instances. GraphQL gives them two ways: coerced from variables, and built
 * from literals in the document (graphql-js's own objects, with no prototype). Both answer alike.
 */

let t: TestApp;
let buildingId: number;
let projectId: number;

beforeAll(async () => {
  t = await startTestApp();
  projectId = (await createProject(t, { name: 'Harbour Lights' })).id;
  const b = await t.op(
    `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower A", addresses: ["1 Harbour Street"]}) { id } }`,
    { p: projectId },
  );
  buildingId = b.createBuilding.id;
  for (const [name, bedrooms, dens, sqft, stacks, exposure] of [
    ['Aria', 1, 0, 560, ['01', '02'], 'S'],
    ['Bloom', 1, 1, 640, ['03'], 'SW'],
    ['Crest', 2, 0, 820, ['04', '05'], 'E'],
  ] as const) {
    await t.op(`mutation($i: CreateFloorPlanInput!) { createFloorPlan(input: $i) { id } }`, {
      i: {
        projectId,
        buildingId,
        name,
        bedrooms,
        dens,
        bathrooms: bedrooms,
        interiorSqft: sqft,
        stacks,
        exposure,
      },
    });
  }
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
  const listings = [
    { ref: 'a', building_id: buildingId, unit_number: '1203', bedrooms: 1, dens: 1, exposure: 'SW' },
    { ref: 'b', project_id: projectId, bedrooms: 2, interior_sqft: [800, 840] },
    { ref: 'c', building_id: buildingId, bedrooms: 1, bathrooms: 1, interior_sqft: 565, exposure: 'S' },
    { ref: 'd', building_id: 999999 },
  ];
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
  expect(results.map((r) => [r.ref, r.status])).toEqual([
    ['a', 'matched'],
    ['b', expect.any(String)],
    ['c', 'matched'],
    ['d', 'no_match'],
  ]);
});
