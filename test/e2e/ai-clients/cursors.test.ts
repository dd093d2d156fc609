import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { connectContractClient, type ContractClient } from '../../support/mcp-contract.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

let t: TestApp;
let client: ContractClient;
let other: ContractClient;
const projectIds: number[] = [];

function connect(token: string): Promise<ContractClient> {
  return connectContractClient(t.url, token, 'paging-client');
}

async function upload(projectId: number, name: string, pages: string[]): Promise<void> {
  const pdf = await makePdf(pages);
  await t.gql(
    UPLOAD,
    { input: { projectId, category: 'features-finishes', name, contentBase64: pdf.toString('base64') } },
    t.operator,
  );
}

async function call(c: ContractClient, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await c.callTool({ name, arguments: args });
  if (res.isError) throw new Error((res.content as any)[0].text);
  return res.structuredContent;
}

/** Every page of a tool's answer, following next_cursor to the end. */
async function allPages(name: string, args: Record<string, unknown>): Promise<any[]> {
  const pages = [];
  let cursor: string | null = null;
  do {
    const page = await call(client, name, cursor ? { ...args, cursor } : args);
    pages.push(page);
    cursor = page.meta.next_cursor;
  } while (cursor);
  return pages;
}

beforeAll(async () => {
  t = await startTestApp();
  client = await connect((await memberToken(t, 'pro')).secret);
  other = await connect((await memberToken(t, 'pro')).secret);
  for (const name of ['Alder', 'Birch', 'Cedar', 'Dogwood', 'Elm', 'Fir', 'Ginkgo']) {
    projectIds.push((await createProject(t, { name: `${name} Residences`, city: 'Pagingville' })).id);
  }
  // 12 pages mentioning quartz in one project; one or two more mentions in three others.
  await upload(
    projectIds[0],
    'finishes.pdf',
    Array.from({ length: 12 }, (_, i) => `Suite ${i + 1}: quartz counters and oak floors.`),
  );
  await upload(projectIds[1], 'b.pdf', ['Quartz vanity.', 'Quartz backsplash.']);
  await upload(projectIds[2], 'c.pdf', ['Quartz island.']);
  await upload(projectIds[3], 'd.pdf', ['Quartz sills.']);
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await client?.close();
  await other?.close();
  await t.close();
});

describe('cursors', () => {
  it('search-document-text: paging to the end visits every hit exactly once, in order', async () => {
    const first = await call(client, 'search-document-text', { query: 'quartz', limit: 5 });
    expect(first.meta.total_chunks_matched).toBe(16);
    expect(first.data).toHaveLength(5);
    expect(typeof first.meta.next_cursor).toBe('string');
    const pages = await allPages('search-document-text', { query: 'quartz', limit: 5 });
    expect(pages.map((p) => p.data.length)).toEqual([5, 5, 5, 1]);
    expect(pages[0]).toEqual(first);
    const ids = pages.flatMap((p) => p.data.map((h: any) => h.chunk_id));
    expect(new Set(ids).size).toBe(16);
    // The pages are the first answer's order cut in four: the same as one answer of 16 would be.
    const whole = await call(client, 'search-document-text', { query: 'quartz', limit: 25 });
    expect(ids).toEqual(whole.data.map((h: any) => h.chunk_id));
    expect(whole.meta.next_cursor).toBeNull();
    expect(pages.at(-1).meta.next_cursor).toBeNull();
  });

  it('find-projects-mentioning pages through every project once', async () => {
    const pages = await allPages('find-projects-mentioning', { query: 'quartz', limit: 3 });
    expect(pages.map((p) => p.data.length)).toEqual([3, 1]);
    const ids = pages.flatMap((p) => p.data.map((m: any) => m.project_id));
    expect(ids.sort()).toEqual(projectIds.slice(0, 4).sort());
    expect(pages[0].meta.total_projects).toBe(4);
  });

  it('list-projects: cursors are stable while projects are added', async () => {
    const first = await call(client, 'list-projects', { city: 'Pagingville', per_page: 3 });
    expect(first.data.map((p: any) => p.name)).toEqual([
      'Alder Residences',
      'Birch Residences',
      'Cedar Residences',
    ]);
    expect(first.meta).toMatchObject({ page: 1, per_page: 3, total: 7, total_pages: 3 });
    // A project added before the cursor's place shifts no later page.
    await createProject(t, { name: 'Aaa Early Residences', city: 'Pagingville' });
    const second = await call(client, 'list-projects', {
      city: 'Pagingville',
      per_page: 3,
      cursor: first.meta.next_cursor,
    });
    expect(second.data.map((p: any) => p.name)).toEqual([
      'Dogwood Residences',
      'Elm Residences',
      'Fir Residences',
    ]);
    expect(second.meta.page).toBe(2);
    const third = await call(client, 'list-projects', {
      city: 'Pagingville',
      per_page: 3,
      cursor: second.meta.next_cursor,
    });
    expect(third.data.map((p: any) => p.name)).toEqual(['Ginkgo Residences']);
    expect(third.meta.next_cursor).toBeNull();
  });

  it('list-project-documents answers its one page with next_cursor null', async () => {
    const docs = await call(client, 'list-project-documents', { project_id: projectIds[0] });
    expect(docs.meta).toEqual({
      project_id: projectIds[0],
      total_documents: 1,
      include_historical: false,
      next_cursor: null,
    });
  });

  it('refuses forged, foreign, mismatched and stale cursors with a tool error that says what to do', async () => {
    const first = await call(client, 'search-document-text', { query: 'quartz', limit: 5 });
    const cursor: string = first.meta.next_cursor;
    const refusal = async (c: ContractClient, name: string, args: Record<string, unknown>) => {
      const res = await c.callTool({ name, arguments: args });
      expect(res.isError).toBe(true);
      return (res.content as any)[0].text as string;
    };
    const [body, mac] = cursor.split('.');
    const edited = Buffer.from(body, 'base64url').toString().replace('"o":5', '"o":0');
    const forged = `${Buffer.from(edited).toString('base64url')}.${mac}`;
    for (const bad of [forged, 'abc', `${cursor}x`, `${body}.`]) {
      expect(
        await refusal(client, 'search-document-text', { query: 'quartz', limit: 5, cursor: bad }),
      ).toMatch(/cursor: is not a cursor this server issued/);
    }
    expect(await refusal(other, 'search-document-text', { query: 'quartz', limit: 5, cursor })).toMatch(
      /cursor: was issued to another team/,
    );
    expect(await refusal(client, 'search-document-text', { query: 'oak', limit: 5, cursor })).toMatch(
      /cursor: belongs to another query/,
    );
    expect(await refusal(client, 'find-projects-mentioning', { query: 'quartz', limit: 5, cursor })).toMatch(
      /cursor: belongs to another query/,
    );
    // A document added since the first page: the order the pages are cut from has changed.
    await upload(projectIds[4], 'e.pdf', ['Quartz everywhere.']);
    await t.app.deps.ingestion.queue.idle();
    expect(await refusal(client, 'search-document-text', { query: 'quartz', limit: 5, cursor })).toMatch(
      /cursor: is stale/,
    );
  });
});
