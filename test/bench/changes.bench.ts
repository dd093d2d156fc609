import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApp } from '../../src/app.js';
import type { AppConfig } from '../../src/config.js';
import { post, SEND_BATCH, webhookPayload } from '../../src/webhooks/delivery.js';
import { makePdf } from '../support/pdf.js';
import { medianRound, ratio, round } from './stats.js';

/**
 * The change feed's two costs. Event writes: the write paths the triggers touch, as the operator
 * calls them (GraphQL `createProject` and `uploadDocument` over the service's HTTP stack), and the
 * bare statements under them (an `update project`, a document insert), each with the change-event
 * triggers on and off, alternating rounds on one database. Webhook delivery, in rounds after a
 * warm-up: events delivered to a local receiver through the whole pipeline (fan-out, claim, sign,
 * POST, record) against a bare loop that POSTs the same signed payloads with the same HTTP client,
 * as many at once as the deliverer sends.
 */

interface WriteFigure {
  perSecondOff: number;
  perSecondOn: number;
  /** On/off time - 1, over every round's time together. */
  overhead: number;
  roundOverheads: number[];
}

export interface ChangesBenchResult {
  /** The operator's `createProject` through GraphQL a second, triggers off and on. */
  projectRequests: WriteFigure;
  /** The operator's `uploadDocument` (a one-page PDF) through GraphQL a second, triggers off and on. */
  uploadRequests: WriteFigure;
  /** Bare `update project` statements a second, triggers off and on. */
  updates: WriteFigure;
  /** Bare document inserts a second (the upload's write), triggers off and on. */
  documents: WriteFigure;
  /** Per round of EVENTS events (after a warm-up round), the median round's figures. */
  delivery: {
    events: number;
    pipelinePerSecond: number;
    barePerSecond: number;
    ratio: number;
    roundRatios: number[];
  };
  goals: string[];
}

const ROUNDS = 5;
/** Rounds of each write figure: even, so that each side goes first in half of them. */
const WRITE_ROUNDS = 6;
const UPDATES = 400;
const DOCUMENTS = 200;
const REQUESTS = 200;
const EVENTS = 2000;

export async function runChangesBench(opts: {
  config: AppConfig;
  operatorToken: string;
  /** Limiter policies the operator's requests cannot reach: the bench measures writes, not refusals. */
  policies: NonNullable<Parameters<typeof createApp>[1]>['policies'];
  log: (line: string) => void;
}): Promise<ChangesBenchResult> {
  const app = await createApp(opts.config, { logger: false, worker: false, policies: opts.policies });
  const db = app.db.orm.em.fork().getConnection();
  const run = (sql: string, params: unknown[] = []) => db.execute(sql, params);
  try {
    const [developer] = await run(
      `insert into developer (name, created_at) values ('Bench Developer', now()) returning id`,
    );
    const [project] = await run(
      `insert into project (name, slug, city, developer_id, created_at) values ('Bench Towers', 'bench-towers', 'Toronto', ?, now()) returning id`,
      [developer.id],
    );
    const triggers = (on: boolean, tables: string[]) =>
      Promise.all(
        tables.map((t) => run(`alter table ${t} ${on ? 'enable' : 'disable'} trigger ${t}_change_event`)),
      );

    const timed = async (work: () => Promise<void>) => {
      const start = performance.now();
      await work();
      return performance.now() - start;
    };
    const updates = async () => {
      for (let i = 0; i < UPDATES; i++)
        await run(`update project set total_units = ? where id = ?`, [i + 1, project.id]);
    };
    let doc = 0;
    const documents = async () => {
      for (let i = 0; i < DOCUMENTS; i++) {
        await run(
          `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
           values (?, ?, 'price-list', md5(?), 1, '\\x00', now())`,
          [project.id, `bench-${doc}.pdf`, String(doc++)],
        );
      }
    };
    const ab = async (label: string, tables: string[], work: () => Promise<void>, count: number) => {
      const rounds: { off: number; on: number }[] = [];
      await work(); // warm-up
      // Off first in even rounds, on first in odd ones: a cost that grows with the run (tables,
      // indexes and WAL growing) falls on both sides alike instead of always on the second.
      const side = async (on: boolean) => {
        await triggers(on, tables);
        return timed(work);
      };
      for (let r = 0; r < WRITE_ROUNDS; r++) {
        let off: number, on: number;
        if (r % 2 === 0) {
          off = await side(false);
          on = await side(true);
        } else {
          on = await side(true);
          off = await side(false);
        }
        rounds.push({ off, on });
        opts.log(`changes: ${label} round ${r + 1}: ${round(off)} ms off, ${round(on)} ms on`);
      }
      await triggers(true, tables);
      // Summed over the rounds, so that the drift the alternation spreads over both sides cancels
      // (the rounds' own ratios swing with it, and are printed).
      const off = rounds.reduce((sum, x) => sum + x.off, 0);
      const on = rounds.reduce((sum, x) => sum + x.on, 0);
      return {
        perSecondOff: round(((count * rounds.length) / off) * 1000),
        perSecondOn: round(((count * rounds.length) / on) * 1000),
        overhead: round(on / off - 1),
        roundOverheads: rounds.map((x) => round(x.on / x.off - 1)),
      };
    };
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const res = await app.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${opts.operatorToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ query, variables }),
      });
      const body = res.json<{ errors?: unknown[] }>();
      if (res.statusCode !== 200 || body.errors) throw new Error(`operator call failed: ${res.body}`);
    };
    let created = 0;
    const projectRequests = async () => {
      for (let i = 0; i < REQUESTS; i++) {
        created++;
        await gql('mutation($input: CreateProjectInput!) { createProject(input: $input) { id } }', {
          input: { name: `Bench Project ${created}`, city: 'Toronto', storeys: 30, totalUnits: created },
        });
      }
    };
    // Every upload is a different PDF (a repeated one would be the same document).
    const pdfs = await Promise.all(
      Array.from({ length: REQUESTS * (WRITE_ROUNDS * 2 + 1) }, (_, i) =>
        makePdf([`Bench price list ${i}: suite ${i} from $${500_000 + i}`]),
      ),
    );
    let uploaded = 0;
    const uploadRequests = async () => {
      for (let i = 0; i < REQUESTS; i++) {
        const pdf = pdfs[uploaded++];
        await gql(
          'mutation($input: UploadDocumentInput!) { uploadDocument(input: $input) { document { id } } }',
          {
            input: {
              projectId: project.id,
              category: 'price-list',
              name: `bench-upload-${uploaded}.pdf`,
              contentBase64: pdf.toString('base64'),
            },
          },
        );
      }
    };
    const projectFigure = await ab('createProject requests', ['project'], projectRequests, REQUESTS);
    const uploadFigure = await ab('uploadDocument requests', ['document'], uploadRequests, REQUESTS);
    const updateFigure = await ab('operator updates', ['project'], updates, UPDATES);
    const documentFigure = await ab('document inserts', ['document'], documents, DOCUMENTS);

    // Delivery: a receiver that answers 204 at once.
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const [team] = await run(
        `insert into team (name, plan, created_at) values ('Bench Team', 'elite', now()) returning id`,
      );
      const secret = `whsec_${Buffer.from('bench-secret-0123456789abcdef0123').toString('base64')}`;
      await run(
        `insert into webhook_endpoint (team_id, url, event_types, secret) values (?, ?, '{project.changed}', ?)`,
        [team.id, url, secret],
      );
      // Fan-out starts after what exists now.
      await app.webhooks.runOnce();
      const settings = { allowLoopback: true, timeoutMs: opts.config.webhooks.timeoutMs };
      let delivered = 0;
      // One round: EVENTS changes committed one by one, delivered through the pipeline (done when
      // every one was: a round that sends nothing may only mean the fan-out has not reached the
      // events yet), then the same payloads POSTed by the bare loop.
      const deliveryRound = async () => {
        for (let i = 0; i < EVENTS; i++)
          await run(`update project set storeys = ? where id = ?`, [i + 1, project.id]);
        const payloads = (
          (await run(
            `select id::text, tx::text, occurred_at, type, subject_type, subject_id, project_id, changes
               from change_event where type = 'project.changed' order by id desc limit ?`,
            [EVENTS],
          )) as Parameters<typeof webhookPayload>[0][]
        ).map((event) => ({ id: event.id, body: webhookPayload(event) }));
        delivered += EVENTS;
        const pipeline = await timed(async () => {
          for (let i = 0; i < 10_000; i++) {
            if ((await app.webhooks.runOnce()) > 0) continue;
            const [done] = await run(
              `select count(*)::int as n from webhook_delivery where status = 'delivered'`,
            );
            if (done.n >= delivered) return;
          }
          throw new Error('webhook deliveries did not finish');
        });
        const bare = await timed(async () => {
          for (let i = 0; i < payloads.length; i += SEND_BATCH) {
            await Promise.all(
              payloads
                .slice(i, i + SEND_BATCH)
                .map((p) => post(url, p.body, `msg_${p.id}`, secret, settings)),
            );
          }
        });
        return { pipeline, bare };
      };
      await deliveryRound(); // warm-up: the first round also compiles the code both sides run
      const deliveryRounds: { pipeline: number; bare: number }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const figure = await deliveryRound();
        deliveryRounds.push(figure);
        opts.log(
          `changes: webhook delivery round ${r + 1}: ${round(figure.pipeline)} ms pipeline, ${round(figure.bare)} ms bare loop`,
        );
      }
      const median = medianRound(deliveryRounds, (x) => x.bare / x.pipeline);
      const pipelinePerSecond = round((EVENTS / median.pipeline) * 1000);
      const barePerSecond = round((EVENTS / median.bare) * 1000);
      return {
        projectRequests: projectFigure,
        uploadRequests: uploadFigure,
        updates: updateFigure,
        documents: documentFigure,
        delivery: {
          events: EVENTS,
          pipelinePerSecond,
          barePerSecond,
          ratio: ratio(pipelinePerSecond, barePerSecond),
          roundRatios: deliveryRounds.map((x) => round(x.bare / x.pipeline)),
        },
        goals: [
          'the event write adds at most 10 % to the write paths it touches (the operator requests)',
          'webhook delivery at least 0.5× a bare loop POSTing the same signed payloads',
        ],
      };
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  } finally {
    await app.close();
  }
}

function writeRow(label: string, f: WriteFigure): string {
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)} %`;
  return `| ${label} | ${f.perSecondOff} | ${f.perSecondOn} | ${pct(f.overhead)} (rounds ${f.roundOverheads.map(pct).join(', ')}) |`;
}

export function formatChanges(c: ChangesBenchResult): string[] {
  return [
    '## Change feed and webhooks',
    '',
    '| figure | off | on | cost |',
    '|---|---|---|---|',
    writeRow('operator `createProject` requests a second (change-event trigger off / on)', c.projectRequests),
    writeRow('operator `uploadDocument` requests a second (trigger off / on)', c.uploadRequests),
    writeRow('bare `update project` statements a second (trigger off / on)', c.updates),
    writeRow('bare document inserts a second (trigger off / on)', c.documents),
    '',
    `Webhook delivery of ${c.delivery.events} events to a local receiver (median of ${c.delivery.roundRatios.length} rounds after a warm-up): ${c.delivery.pipelinePerSecond}/s through the pipeline, ${c.delivery.barePerSecond}/s for a bare loop of the same signed POSTs: ×${c.delivery.ratio} (rounds ${c.delivery.roundRatios.map((x) => `×${x}`).join(', ')}).`,
    '',
    ...c.goals.map((g) => `- Goal: ${g}`),
    '',
  ];
}
