import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DemoProject } from '../dataset.js';
import { createRng, hashSeed, type Rng } from '../prng.js';
import { ABSENT_CONCEPTS, CONCEPTS } from './concepts.js';
import {
  LAYOUT_PROFILES,
  TEXT_PROFILES,
  type ArtifactProfile,
  type CorpusDocument,
  type CorpusManifest,
  type ExpectedExtraction,
  type TextProfile,
} from './manifest.js';
import { brochure, factSheet, featuresAndFinishes } from './marketing.js';
import { applyTextProfile } from './profiles.js';
import { renderPdf, type Block, type DocumentSpec, type RenderedPdf } from './render.js';
import {
  agreementSchedules,
  depositStructure,
  floorPlansPackage,
  hotList,
  incentives,
  priceList,
  purchaserWorksheet,
  suiteMix,
} from './sales.js';
import { renderScannedPdf } from './scan.js';
import { buildStory, monthYear, type DraftDocument, type ProjectStory } from './story.js';

export interface GenerateCorpusOptions {
  projects: DemoProject[];
  seed: number;
  /** Created if missing; PDFs go to `<projectKey>/<stem>.pdf`, the manifest to `manifest.json`. */
  outDir: string;
}

/** A document planned for the corpus, before profiles are dealt. */
interface Planned {
  story: ProjectStory;
  draft: DraftDocument;
  file: string;
  supersedesFile?: string;
  /** Part of a revision lineage: kept readable so history can be searched. */
  revised: boolean;
  special?: 'corrupt' | 'encrypted';
}

/**
 * Which concepts each project mentions: drawn per project from the concept's prevalence, then
 * every concept that no project drew is given to one, so even the rarest has an answer.
 */
function chooseMentions(projects: DemoProject[], seed: number): Set<number>[] {
  const chosen = projects.map((project) => {
    const rng = createRng(hashSeed(seed, 'mentions', project.key));
    return new Set(CONCEPTS.flatMap((concept, i) => (rng.chance(concept.prevalence) ? [i] : [])));
  });
  if (projects.length === 0) return chosen;
  CONCEPTS.forEach((concept, i) => {
    if (!chosen.some((set) => set.has(i))) chosen[hashSeed(seed, concept.query) % projects.length].add(i);
    // A rule family's spellings are dealt one a project (see `spellingStarts`): it needs as many
    // projects as spellings, where there are that many.
    if (concept.family === 'catalogue') return;
    const wanted = Math.min(concept.variants.length, projects.length);
    for (let k = 0; chosen.filter((set) => set.has(i)).length < wanted; k++)
      chosen[hashSeed(seed, concept.query, k) % projects.length].add(i);
  });
  return chosen;
}

/**
 * Where each project starts in a rule-family concept's spellings: the projects that mention it
 * take 0, 1, 2, … in dataset order, and each mention takes the next, so the corpus prints every
 * spelling (a random pick would print two of four and prove nothing of the others).
 */
function spellingStarts(mentions: Set<number>[]): Map<number, number>[] {
  const starts = mentions.map(() => new Map<number, number>());
  CONCEPTS.forEach((concept, i) => {
    if (concept.family === 'catalogue') return;
    let next = 0;
    mentions.forEach((set, p) => {
      if (set.has(i)) starts[p].set(i, next++);
    });
  });
  return starts;
}

function planProject(story: ProjectStory): Planned[] {
  const { rng, project } = story;
  const planned: Planned[] = [];
  const add = (draft: DraftDocument, extra: Partial<Planned> = {}): Planned => {
    const entry: Planned = {
      story,
      draft,
      file: `${project.key}/${draft.stem}.pdf`,
      revised: false,
      ...extra,
    };
    planned.push(entry);
    return entry;
  };
  add(brochure(story));
  add(featuresAndFinishes(story));
  // An older revision goes first so that ingestion in manifest order can link the lineage.
  const olderPrices = rng.chance(0.45) ? add(priceList(story, rng.int(4, 9)), { revised: true }) : null;
  add(priceList(story), olderPrices ? { supersedesFile: olderPrices.file, revised: true } : {});
  add(depositStructure(story));
  const olderIncentives = rng.chance(0.25)
    ? add(incentives(story, { monthsEarlier: rng.int(3, 6) }), { revised: true })
    : null;
  add(incentives(story), olderIncentives ? { supersedesFile: olderIncentives.file, revised: true } : {});
  add(factSheet(story));
  if (rng.chance(0.45)) add(hotList(story));
  if (rng.chance(0.15)) add(purchaserWorksheet(story));
  return planned;
}

const PROFILE_WEIGHTS: Record<TextProfile | (typeof LAYOUT_PROFILES)[number], number> = {
  clean: 25,
  'smart-quotes': 10,
  mojibake: 10,
  'replacement-char': 8,
  ligatures: 7,
  nbsp: 7,
  'soft-hyphens': 7,
  dashes: 6,
  'line-end-hyphenation': 8,
  'letter-spaced-headings': 6,
  'two-column': 6,
};
const READABLE_PROFILES = [...TEXT_PROFILES, ...LAYOUT_PROFILES];

/**
 * Deals one profile per document: about 5% are scans (at least two), every readable profile occurs at least once
 * when there are enough documents, the rest are drawn by weight. Two columns never go to a
 * document with tables.
 */
function dealProfiles(planned: Planned[], rng: Rng): Map<Planned, ArtifactProfile> {
  const profiles = new Map<Planned, ArtifactProfile>();
  for (const p of planned) if (p.special) profiles.set(p, p.special);
  const eligible = rng.shuffle(planned.filter((p) => !p.special));
  // Scans: one with tables and one without (laid out in two columns) first, then any.
  const scanCount = Math.max(2, Math.round(planned.length * 0.05));
  const unrevised = eligible.filter((p) => !p.revised);
  const firsts = [unrevised.find((p) => p.draft.hasTables), unrevised.find((p) => !p.draft.hasTables)];
  const scans = [...new Set([...firsts.filter((p) => p !== undefined), ...unrevised])].slice(0, scanCount);
  for (const p of scans) profiles.set(p, 'image-only');
  const open = eligible.filter((p) => !profiles.has(p));
  const fits = (p: Planned, profile: ArtifactProfile): boolean =>
    profile !== 'two-column' || !p.draft.hasTables;
  for (const profile of READABLE_PROFILES) {
    const target = open.find((p) => !profiles.has(p) && fits(p, profile));
    if (target) profiles.set(target, profile);
  }
  for (const p of open) {
    if (profiles.has(p)) continue;
    const options = READABLE_PROFILES.filter((profile) => fits(p, profile));
    profiles.set(
      p,
      rng.weighted(
        options,
        options.map((o) => PROFILE_WEIGHTS[o]),
      ),
    );
  }
  return profiles;
}

function transformBlocks(blocks: Block[], transform: (text: string) => string): Block[] {
  return blocks.map((block): Block => {
    switch (block.kind) {
      case 'title':
        return {
          ...block,
          text: transform(block.text),
          subtitle: block.subtitle && transform(block.subtitle),
        };
      case 'heading':
      case 'paragraph':
      case 'note':
        return { ...block, text: transform(block.text) };
      case 'bullets':
        return { ...block, items: block.items.map(transform) };
      case 'fields':
        return { ...block, rows: block.rows.map(([k, v]): [string, string] => [transform(k), transform(v)]) };
      case 'table':
        return {
          ...block,
          columns: block.columns.map((c) => ({ ...c, header: transform(c.header) })),
          rows: block.rows.map((row) => row.map(transform)),
        };
      case 'pageBreak':
        return block;
    }
  });
}

/** A damaged upload: cut short, then scattered bytes overwritten past the header. */
function corrupt(bytes: Buffer, rng: Rng): Buffer {
  const out = Buffer.from(bytes.subarray(0, Math.floor(bytes.length * rng.float(0.35, 0.6))));
  for (let i = 64; i < out.length; i += rng.int(5, 40)) out[i] = rng.int(0, 255);
  return out;
}

function isTextProfile(profile: ArtifactProfile): profile is TextProfile {
  return (TEXT_PROFILES as readonly string[]).includes(profile);
}

async function render(
  p: Planned,
  profile: ArtifactProfile,
  seed: number,
): Promise<RenderedPdf & { expect: ExpectedExtraction; password?: string }> {
  const rng = createRng(hashSeed(seed, 'render', p.file));
  const { project } = p.story;
  const blocks = isTextProfile(profile)
    ? transformBlocks(p.draft.blocks, (text) => applyTextProfile(text, profile, rng))
    : p.draft.blocks;
  const spec: DocumentSpec = {
    title: `${project.name} - ${p.draft.type}`,
    author: project.developerName,
    header: `${project.name}  |  ${p.draft.type}`,
    date: p.draft.date,
    accent: p.story.accent,
    blocks,
  };
  const layout = {
    twoColumn: profile === 'two-column' || (profile === 'image-only' && !p.draft.hasTables),
    letterSpacedHeadings: profile === 'letter-spaced-headings',
    hyphenate: profile === 'line-end-hyphenation',
  };
  if (profile === 'encrypted') {
    const password = `demo-${hashSeed(seed, p.file).toString(36)}`;
    const rendered = await renderPdf(spec, { ...layout, userPassword: password });
    return { ...rendered, facts: [], expect: 'failed', password };
  }
  const rendered = await renderPdf(spec, layout);
  if (profile === 'corrupt')
    return { ...rendered, bytes: corrupt(rendered.bytes, rng), facts: [], expect: 'failed' };
  if (profile === 'image-only') {
    const bytes = await renderScannedPdf(spec, rendered.bytes, rng);
    return { ...rendered, bytes, expect: 'ocr' };
  }
  return { ...rendered, expect: 'text' };
}

/**
 * Writes a realistic corpus of project PDFs for the demo and the tests, with a manifest of every
 * document's category, artifact profile, expected extraction outcome and concept mentions (with
 * the exact surface text and page). Deterministic for a seed and a project list.
 */
export async function generateCorpus(opts: GenerateCorpusOptions): Promise<CorpusManifest> {
  const { projects, seed, outDir } = opts;
  const rng = createRng(hashSeed(seed, 'corpus'));
  const mentions = chooseMentions(projects, seed);
  const starts = spellingStarts(mentions);
  const stories = projects.map((project, i) => buildStory(project, seed, mentions[i], starts[i]));
  const planned = stories.flatMap(planProject);
  if (stories.length > 0) {
    const [damaged, locked] = [rng.pick(stories), rng.pick(stories)];
    planned.push({
      story: damaged,
      draft: floorPlansPackage(damaged),
      file: `${damaged.project.key}/floor-plans.pdf`,
      revised: false,
      special: 'corrupt',
    });
    planned.push({
      story: locked,
      draft: agreementSchedules(locked),
      file: `${locked.project.key}/agreement-schedules.pdf`,
      revised: false,
      special: 'encrypted',
    });
  }
  const profiles = dealProfiles(planned, rng);
  // Every project's suite mix, dealt its profile from draws of its own, so that adding them left
  // every other document's profile as it was.
  const tableRng = createRng(hashSeed(seed, 'suite-mix'));
  const tableProfiles = READABLE_PROFILES.filter((profile) => profile !== 'two-column');
  for (const story of stories) {
    const p: Planned = {
      story,
      draft: suiteMix(story),
      file: `${story.project.key}/suite-mix.pdf`,
      revised: false,
    };
    planned.push(p);
    profiles.set(
      p,
      tableRng.weighted(
        tableProfiles,
        tableProfiles.map((o) => PROFILE_WEIGHTS[o]),
      ),
    );
  }

  const documents: CorpusDocument[] = [];
  for (const p of planned) {
    const profile = profiles.get(p)!;
    const rendered = await render(p, profile, seed);
    const path = join(outDir, p.file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, rendered.bytes);
    const { draft, story } = p;
    documents.push({
      file: p.file,
      projectKey: story.project.key,
      category: draft.category,
      name: `${story.project.name} - ${draft.type}${draft.dated ? ` (${monthYear(draft.date)})` : ''}.pdf`,
      type: draft.type,
      profile,
      expect: rendered.expect,
      ...(p.supersedesFile ? { supersedesFile: p.supersedesFile } : {}),
      pageCount: rendered.pageCount,
      sha256: createHash('sha256').update(rendered.bytes).digest('hex'),
      ...(rendered.password ? { password: rendered.password } : {}),
      facts: rendered.facts,
      ...(draft.traps && rendered.expect === 'text' ? { traps: draft.traps } : {}),
    });
  }
  const manifest: CorpusManifest = {
    seed,
    projects: projects.map((p) => p.key),
    absentConcepts: [...ABSENT_CONCEPTS],
    documents,
  };
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
