import { renderPdf } from '../../../src/demo/corpus/render.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { UPLOAD } from '../../support/pdf.js';

/**
 * A price list typeset as a table, through upload, extraction in the worker and search: every
 * number is found as the table shows it, and no two neighbouring columns are read as one number.
 */
let t: TestApp;
let token = '';

beforeAll(async () => {
  t = await startTestApp();
  token = (await memberToken(t, 'pro')).secret;
  const project = await createProject(t, { name: 'Price List Tower' });
  const { bytes } = await renderPdf(
    {
      title: 'Price List',
      author: 'Developer',
      header: 'Price List Tower',
      date: new Date(Date.UTC(2026, 10, 1)),
      accent: '#335577',
      blocks: [
        {
          kind: 'table',
          columns: [
            { header: 'Suite', width: 0.2 },
            { header: 'Size / Price', width: 0.25, align: 'right' },
            { header: '', width: 0.25, align: 'right' },
          ],
          rows: [
            ['Suite 805', '850 sq ft', '$749,900'],
            ['Unit 12', '450 sq ft', ''],
            ['Plan B', '$650,000', '600 sq ft'],
          ],
        },
      ],
    },
    { twoColumn: false, letterSpacedHeadings: false, hyphenate: false },
  );
  const res = await t.gql(
    UPLOAD,
    {
      input: {
        projectId: project.id,
        name: 'price-list.pdf',
        category: 'price-list',
        contentBase64: bytes.toString('base64'),
      },
    },
    t.operator,
  );
  expect(res.errors).toBeUndefined();
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await t.close();
});

async function total(query: string): Promise<number> {
  const res = await t.gql(
    `query($q: String!) { searchDocumentText(query: $q) { meta { totalChunksMatched } } }`,
    { q: query },
    token,
  );
  expect(res.errors).toBeUndefined();
  return res.data.searchDocumentText.meta.totalChunksMatched as number;
}

describe('a price list typeset as a table', () => {
  it.each(['850 sq ft', '450 sq ft', '$650,000', '$749,900', '600 sq ft'])('finds %j', async (query) => {
    expect(await total(query)).toBe(1);
  });

  it.each(['805,850 sq ft', '12,450 sq ft', '$650,000,600', '2,850 sq ft'])(
    'finds no phantom %j',
    async (query) => {
      expect(await total(query)).toBe(0);
    },
  );
});
