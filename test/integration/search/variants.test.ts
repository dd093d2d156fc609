import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/**
 * Spelling variants, through /mcp on real extracted PDFs: every spelling of a term finds the
 * same chunks, numbers are whole, a range is not a stove, and expanded_terms shows the spellings.
 */
let t: TestApp;
let token = '';
const project: Record<string, number> = {};

async function upload(projectId: number, pages: string[]): Promise<void> {
  const res = await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        name: `p${projectId}-${pages.length}.pdf`,
        category: 'features-finishes',
        contentBase64: (await makePdf(pages)).toString('base64'),
      },
    },
    t.operator,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
}

let id = 0;
async function tool(name: string, args: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', '/mcp', {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  expect(res.status).toBe(200);
  expect(res.json.result.isError).toBeUndefined();
  return res.json.result.structuredContent;
}

const chunks = async (query: string) =>
  (await tool('search-document-text', { query, limit: 25 })).data.map((h: any) => h.chunk_id).sort();
const projects = async (query: string) =>
  (await tool('find-projects-mentioning', { query })).data.map((p: any) => p.project_id).sort();

beforeAll(async () => {
  t = await startTestApp();
  token = (await memberToken(t, 'pro')).secret;
  for (const name of ['Hyphens', 'Spaces', 'Numbers', 'Stoves', 'Split', 'Joined', 'Traps'])
    project[name] = (await createProject(t, { name })).id;
  await upload(project.Hyphens, [
    'Kitchens have soft-close drawers and a cash-back incentive. Porte-cochère entry.',
  ]);
  await upload(project.Spaces, [
    'Soft close hinges throughout. Cash back on closing. A porte cochère at the lobby.',
  ]);
  await upload(project.Numbers, [
    'The Aspen suite is 1,850 sq. ft. with 2½ baths.',
    'The Birch suite is 1 600 sq ft.',
    'The Cedar suite is 850 sq ft with 2.5 baths.',
  ]);
  await upload(project.Stoves, ['Every suite has a gas stove and an induction cooktop.']);
  await upload(project.Split, ['Parking is under ground, with under-ground lockers.']);
  await upload(project.Joined, ['Underground parking and softclose drawers.']);
  // near misses a careless split rule would match
  await upload(project.Traps, ['The rapist in the novel. A d en dash. The lobby is over there.']);
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await t.close();
});

describe('search variants', () => {
  it('finds hyphen and space spellings alike, in both directions', async () => {
    const both = [project.Hyphens, project.Spaces].sort();
    // `softclose` too: the joined spelling is in the corpus (project Joined)
    const soft = [project.Hyphens, project.Spaces, project.Joined].sort();
    expect(await projects('soft close')).toEqual(soft);
    expect(await projects('soft-close')).toEqual(soft);
    expect(await projects('cash back')).toEqual(await projects('cash-back'));
    expect(await projects('cash back')).toEqual(both);
    expect(await projects('porte-cochère')).toEqual(both);
    expect(await chunks('porte cochère')).toEqual(await chunks('porte-cochère'));
  });

  it('keeps numbers whole: no tail of a longer number, every printed form of one number', async () => {
    const only850 = await tool('search-document-text', { query: '850 sq ft' });
    expect(only850.meta.total_chunks_matched).toBe(1);
    expect(only850.data[0].excerpt).toContain('850 sq ft');
    expect(only850.data[0].excerpt).toContain('Cedar');
    // `1 600 sq ft` with one plain space (extraction gives one for a no-break space too) reads both
    // ways: one number, or a column `1` beside `600 sq ft` (docs/search.md, "How numbers are read").
    expect((await tool('search-document-text', { query: '600 sq ft' })).meta.total_chunks_matched).toBe(1);
    for (const query of ['1,850 sq ft', '1850 sq ft', '1 850 sq. ft.']) {
      const found = await tool('search-document-text', { query });
      expect(found.meta.total_chunks_matched).toBe(1);
      expect(found.data[0].excerpt).toContain('1,850 sq. ft.');
    }
    expect((await tool('search-document-text', { query: '1,600 sq ft' })).meta.total_chunks_matched).toBe(1);
    // 2½ and 2.5 are one number; 5 baths is in neither
    expect((await tool('search-document-text', { query: '2 1/2 baths' })).meta.total_chunks_matched).toBe(2);
    expect((await tool('search-document-text', { query: '5 baths' })).meta.total_chunks_matched).toBe(0);
  });

  it('finds joined and split spellings both ways, and no near miss', async () => {
    const underground = [project.Split, project.Joined].sort();
    expect(await projects('underground')).toEqual(underground);
    expect(await projects('under ground')).toEqual(underground);
    expect(await projects('under-ground')).toEqual(underground);
    expect(await projects('softclose')).toEqual([project.Hyphens, project.Spaces, project.Joined].sort());
    expect(await projects('therapist')).toEqual([]);
    expect(await projects('den')).toEqual([]);
    expect(await projects('overthere')).toEqual([]);
    const { meta } = await tool('search-document-text', { query: 'underground' });
    expect(meta.expanded_terms).toEqual(['underground', 'under ground', 'under-ground']);
  });

  it('does not pass a stove or a cooktop off as a range', async () => {
    expect(await projects('gas range')).toEqual([]);
    expect(await projects('induction range')).toEqual([]);
    expect(await projects('gas stove')).toEqual([project.Stoves]);
  });

  it('shows the spellings searched in expanded_terms, the query first', async () => {
    const { meta } = await tool('search-document-text', { query: '30 inch' });
    expect(meta.expanded_terms[0]).toBe('30 inch');
    expect(meta.expanded_terms).toEqual(expect.arrayContaining(['30"', '30-inch', '30 in', '30\u2033']));
    expect(new Set(meta.expanded_terms).size).toBe(meta.expanded_terms.length);
    const soft = await tool('find-projects-mentioning', { query: 'soft close' });
    expect(soft.meta.expanded_terms).toEqual(['soft close', 'softclose', 'soft-close']);
  });
});
