import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import pg from 'pg';
import type { App } from '../../src/app.js';
import { stallMonitor } from '../support/event-loop.js';
import { flateBombPdf, textHeavyPdf } from '../support/hostile-pdf.js';
import type { LoadCall, LoadPlan, LoadSample } from './load-client.js';
import { ratio } from './stats.js';
import { layoutFor, loadSyntheticChunks } from './synthetic-chunks.js';

/**
 * One client inside its limits cannot take the node down. A flood of common-term
 * searches from ONE token, each transport at its own rate limit's pace (MCP 300/min, GraphQL
 * 600/min), fired on schedule whether or not earlier answers came back (as a careless client
 * would), while ordinary clients (other credentials: the "second client") make ordinary calls;
 * then two decompression bombs at once, then a PDF with 5 MB of text. The flood and the ordinary
 * clients run in a process of their own (load-client.ts), so the server's RSS and event loop carry
 * only the server; answers are counted by outcome, not only by HTTP status (a refusal is often an
 * error inside a 200).
 */

export interface FloodFigure {
  chunks: number;
  term: string;
  termChunks: number;
  seconds: number;
  loadAverage: { before: number[]; after: number[] };
  /** Another team's searches of a rare term in one project, 1 a second (beside the goal). */
  otherSearches: { alone: Tail; duringFlood: Tail; outcomesDuringFlood: Record<string, number> };
  second: {
    clients: number;
    alone: Tail;
    duringFlood: Tail;
    outcomesDuringFlood: Record<string, number>;
    p99Ratio: number;
  };
  flood: { sent: number; outcomes: Record<string, number>; perSecond: number; drainSeconds: number };
  rssMB: {
    baseline: number;
    peakFlood: number;
    peakBombs: number;
    peakTextPdf: number;
    overBaselineFlood: number;
    overBaselineBombs: number;
  };
  bombs: { statuses: string[]; errors: (string | null)[] };
  textPdf: {
    status: string;
    chars: number;
    chunks: number;
    seconds: number;
    maxStallMs: number;
    ownMaxStallMs: number;
  };
  /** Every answer of the run by HTTP status (0: no answer); 503 is load shedding or a deadline. */
  statuses: Record<string, number>;
  http500s: number;
  goals: string[];
}

interface Call {
  path: string;
  method: 'GET' | 'POST' | 'PUT';
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Samples RSS every 100 ms until stopped; returns the peak in MB. */
function rssSampler(): { stop: () => number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round(Math.max(peak, process.memoryUsage.rss()) / 1024 / 1024);
    },
  };
}

interface Tail {
  calls: number;
  p50: number;
  p99: number;
  max: number;
}

function tail(samples: number[]): Tail {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] * 10) / 10;
  return { calls: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

const mb = () => Math.round(process.memoryUsage.rss() / 1024 / 1024);

/** Runs a load plan in a child process (load-client.ts) and returns its samples per stream. */
function runLoad(plan: LoadPlan): Promise<Record<string, LoadSample[]>> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./load-client.js', import.meta.url), [], { stdio: 'inherit' });
    child.once('message', (samples) => resolve(samples as Record<string, LoadSample[]>));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load client exited with ${code}`));
    });
    child.send(plan);
  });
}

function tally(samples: LoadSample[], key: (s: LoadSample) => string | number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[key(s)] = (out[key(s)] ?? 0) + 1;
  return out;
}

export async function runFloodBench(opts: {
  app: App;
  baseUrl: string;
  databaseUrl: string;
  operatorToken: string;
  flooderToken: string;
  /** API keys of another team: each is one ordinary client at 1.8 calls a second (its limit is 2). */
  secondApiKeys: string[];
  /** Another team's MCP token: its project-scoped searches of a rare term are reported beside (not in) the goal. */
  searcherToken: string;
  buildingId: number;
  projectId: number;
  chunks: number;
  seconds: number;
  /** The common term flooded: "deposit" is in about 60% of the synthetic chunks. */
  term: string;
  log: (line: string) => void;
}): Promise<FloodFigure> {
  const { app, baseUrl, log } = opts;
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

  async function send(call: Call): Promise<{ status: number; ms: number; json: any }> {
    const t0 = performance.now();
    try {
      const res = await fetch(baseUrl + call.path, {
        method: call.method,
        headers: call.headers,
        body: call.body,
      });
      const text = await res.text();
      count(res.status);
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      return { status: res.status, ms: performance.now() - t0, json };
    } catch {
      count(0);
      return { status: 0, ms: performance.now() - t0, json: null };
    }
  }

  log(`  flood: loading ${opts.chunks.toLocaleString('en')} synthetic chunks`);
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  let searchedProject: number;
  try {
    await loadSyntheticChunks(client, layoutFor(opts.chunks));
    // The other team's searches look in one synthetic project (500 chunks).
    const { rows } = await client.query<{ project_id: number }>(
      'select project_id from chunk order by id desc limit 1',
    );
    searchedProject = rows[0].project_id;
  } finally {
    await client.end();
  }

  const term = opts.term;
  const mcpSearch = (): Call => ({
    path: '/mcp',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${opts.flooderToken}`,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search-document-text', arguments: { query: term, limit: 25 } },
    }),
  });
  const gqlSearch = (): Call => ({
    path: '/graphql',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.flooderToken}` },
    body: JSON.stringify({
      query: `query($q: String!) { searchDocumentText(query: $q, limit: 25) { meta { totalChunksMatched } data { chunkId excerpt } } }`,
      variables: { q: term },
    }),
  });
  // The second client's ordinary call: a Building Link lookup (another team's API key), paced
  // under its 120/min limit.
  const ordinary = (key = opts.secondApiKeys[0]): Call => ({
    path: `/api/v1/building-links/${opts.buildingId}`,
    method: 'GET',
    headers: { authorization: `Bearer ${key}` },
  });
  // Another team's ordinary search: a rare term in one project (MCP, 1 a second).
  const otherSearch = (): Call => ({
    ...mcpSearch(),
    headers: { ...mcpSearch().headers, authorization: `Bearer ${opts.searcherToken}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'search-document-text',
        arguments: { query: 'wine fridge', project_id: searchedProject },
      },
    }),
  });
  const probe = await send(mcpSearch());
  await send(otherSearch());
  const gqlProbe = await send(gqlSearch());
  const ordinaryProbe = await send(ordinary());
  if (probe.status !== 200 || gqlProbe.status !== 200 || ordinaryProbe.status !== 200) {
    throw new Error(
      `flood probes: mcp ${probe.status}, graphql ${gqlProbe.status}, building link ${ordinaryProbe.status}`,
    );
  }
  log(
    `  flood: probes answered (GraphQL search of "${term}": ${JSON.stringify(gqlProbe.json?.data?.searchDocumentText?.meta)})`,
  );

  const ms = opts.seconds * 1000;
  const secondRate = 1.8;
  const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);

  const ordinaryStreams = opts.secondApiKeys.map((key, i) => ({
    name: `ordinary-${i}`,
    perSecond: secondRate,
    call: ordinary(key) as LoadCall,
  }));
  const ordinarySamples = (r: Record<string, LoadSample[]>) =>
    ordinaryStreams.flatMap((stream) => r[stream.name]);

  // Each ordinary client's first call warms its credential cache entry: both phases compare warm calls.
  for (const key of opts.secondApiKeys) await send(ordinary(key));
  log(`  flood: ${ordinaryStreams.length} ordinary clients alone, ${opts.seconds} s`);
  const searchStream = { name: 'other-search', perSecond: 1, call: otherSearch() as LoadCall };
  const aloneRun = await runLoad({ baseUrl, ms, streams: [...ordinaryStreams, searchStream] });
  const alone = ordinarySamples(aloneRun);
  for (const one of alone) count(one.status);
  global.gc?.();
  const baseline = mb();

  log(
    `  flood: one token flooding "${term}" (MCP 4.5/s + GraphQL 9/s) with the second client, ${opts.seconds} s`,
  );
  const floodRss = rssSampler();
  const floodStarted = performance.now();
  const floodRun = await runLoad({
    baseUrl,
    ms,
    streams: [
      { name: 'mcp-flood', perSecond: 4.5, call: mcpSearch() as LoadCall },
      { name: 'graphql-flood', perSecond: 9, call: gqlSearch() as LoadCall },
      ...ordinaryStreams,
      searchStream,
    ],
  });
  const floodSeconds = (performance.now() - floodStarted) / 1000;
  const peakFlood = floodRss.stop();
  const flood = [...floodRun['mcp-flood'], ...floodRun['graphql-flood']];
  const during = ordinarySamples(floodRun);
  for (const one of [...flood, ...during]) count(one.status);

  // The flood's last answers are in; what it queued in the database may still be running. The
  // next phases measure ingestion, not the flood's tail: wait until an ordinary call is quick again.
  const drainStarted = performance.now();
  while (performance.now() - drainStarted < 120_000) {
    const r = await send(ordinary());
    if (r.status === 200 && r.ms < 500) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const drainSeconds = Math.round((performance.now() - drainStarted) / 100) / 10;
  log(`  flood: server quiet again after ${drainSeconds} s`);

  /** The operator's client honours 503 + Retry-After, as a well-behaved client does (for 2 minutes at most). */
  async function sendRetrying(call: Call): Promise<{ status: number; ms: number; json: any }> {
    const started = performance.now();
    for (;;) {
      const r = await send(call);
      if (r.status !== 503 || performance.now() - started > 120_000) return r;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }

  log('  flood: two decompression bombs at once');
  const upload = (pdf: Uint8Array, name: string): Call => ({
    path: `/admin/projects/${opts.projectId}/documents?category=brochure&name=${name}`,
    method: 'PUT',
    headers: { 'content-type': 'application/pdf', authorization: `Bearer ${opts.operatorToken}` },
    body: pdf,
  });
  const bombRss = rssSampler();
  const bombUploads = await Promise.all([
    sendRetrying(upload(flateBombPdf(4 * 1024 ** 3), 'bomb-1.pdf')),
    sendRetrying(upload(flateBombPdf(5 * 1024 ** 3), 'bomb-2.pdf')),
  ]);
  await app.deps.ingestion.queue.idle();
  const peakBombs = bombRss.stop();
  const bombRows = await Promise.all(
    bombUploads.map(async (u) => {
      const id = (u.json as { extractionId?: number } | null)?.extractionId;
      if (!id) return { status: `upload ${u.status}`, error: JSON.stringify(u.json) };
      const [row] = await app.db.orm.em
        .fork()
        .getConnection()
        .execute<{ status: string; error: string | null }[]>(
          'select status, error from extraction where id = ?',
          [id],
        );
      return row;
    }),
  );

  log('  flood: a PDF with 5 MB of text');
  const pdf = textHeavyPdf(5_000_000);
  const stalls = stallMonitor();
  const textRss = rssSampler();
  const textStarted = performance.now();
  const textUpload = await sendRetrying(upload(pdf, 'five-mb-text.pdf'));
  await app.deps.ingestion.queue.idle();
  const stalled = stalls.stop();
  const peakTextPdf = textRss.stop();
  const textId = (textUpload.json as { extractionId?: number } | null)?.extractionId ?? 0;
  const [textRow] = await app.db.orm.em
    .fork()
    .getConnection()
    .execute<{ status: string; raw_text_length: number; chunks: number }[]>(
      `select e.status, e.raw_text_length, (select count(*)::int from chunk c where c.extraction_id = e.id) as chunks
         from extraction e where e.id = ?`,
      [textId],
    );

  const aloneLatency = tail(alone.map((r) => r.ms));
  const duringLatency = tail(during.map((r) => r.ms));
  return {
    chunks: opts.chunks,
    term,
    termChunks:
      (gqlProbe.json as { data?: { searchDocumentText?: { meta?: { totalChunksMatched?: number } } } })?.data
        ?.searchDocumentText?.meta?.totalChunksMatched ?? 0,
    seconds: opts.seconds,
    loadAverage: { before: loadBefore, after: loadavg().map((l) => Math.round(l * 100) / 100) },
    otherSearches: {
      alone: tail(aloneRun['other-search'].map((r) => r.ms)),
      duringFlood: tail(floodRun['other-search'].map((r) => r.ms)),
      outcomesDuringFlood: tally(floodRun['other-search'], (r) => r.outcome),
    },
    second: {
      clients: ordinaryStreams.length,
      alone: aloneLatency,
      duringFlood: duringLatency,
      outcomesDuringFlood: tally(during, (r) => r.outcome),
      p99Ratio: ratio(duringLatency.p99, aloneLatency.p99),
    },
    flood: {
      sent: flood.length,
      outcomes: tally(flood, (r) => r.outcome),
      perSecond: Math.round((flood.length / floodSeconds) * 10) / 10,
      drainSeconds,
    },
    rssMB: {
      baseline,
      peakFlood,
      peakBombs,
      peakTextPdf,
      overBaselineFlood: peakFlood - baseline,
      overBaselineBombs: peakBombs - baseline,
    },
    bombs: {
      statuses: bombRows.map((r) => r?.status ?? 'missing'),
      errors: bombRows.map((r) => r?.error ?? null),
    },
    textPdf: {
      status: textRow?.status ?? `upload ${textUpload.status}`,
      chars: textRow?.raw_text_length ?? 0,
      chunks: textRow?.chunks ?? 0,
      seconds: Math.round((performance.now() - textStarted) / 100) / 10,
      maxStallMs: stalled.wallMs,
      ownMaxStallMs: stalled.ownMs,
    },
    statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
    http500s: statuses.get(500) ?? 0,
    goals: [
      "second client's p99 during the flood ≤ 3× its p99 alone",
      'RSS ≤ baseline + 300 MB through the flood and through two decompression bombs at once',
      'no event-loop stall over 200 ms while a 5 MB-text PDF is ingested',
      '0 HTTP 500s',
    ],
  };
}
