import { createRng, hashSeed } from '../../src/demo/prng.js';
import { renderPdf, type Block } from '../../src/demo/corpus/render.js';
import { AMENITIES, FINISHES, ROOMS } from './synthetic-chunks.js';

/**
 * The multi-page half of the ingestion bench's realistic corpus: per project, a
 * brochure of 5 to 40 pages (chapters of prose and feature lists, one chapter a page) and a price
 * list of 5 to 20 pages (a table per floor), laid out by the demo corpus renderer. The demo corpus
 * itself supplies the one-pagers.
 */

export interface LongDocument {
  projectKey: string;
  name: string;
  category: 'brochure' | 'price-list';
  bytes: Buffer;
  pageCount: number;
}

export async function longDocuments(projectKeys: string[], seed: number): Promise<LongDocument[]> {
  const out: LongDocument[] = [];
  for (const key of projectKeys) {
    const rng = createRng(hashSeed(seed, 'long', key));
    const pick = <T>(values: readonly T[]): T => values[rng.int(0, values.length - 1)];
    const spec = (title: string, blocks: Block[]) => ({
      title,
      author: 'Bench Developments',
      header: title,
      date: new Date('2026-01-15T00:00:00Z'),
      accent: '#2a5d84',
      blocks,
    });
    const layout = { twoColumn: false, letterSpacedHeadings: false, hyphenate: false };

    const chapters = rng.int(5, 40);
    const brochure: Block[] = [
      { kind: 'title', text: `${key} Brochure`, subtitle: 'Pre-construction condominiums' },
    ];
    for (let c = 0; c < chapters; c++) {
      if (c > 0) brochure.push({ kind: 'pageBreak' });
      brochure.push({ kind: 'heading', text: `The ${pick(ROOMS)}` });
      for (let p = 0; p < 3; p++)
        brochure.push({
          kind: 'paragraph',
          text: `The ${pick(ROOMS)} features ${pick(FINISHES)} and ${pick(FINISHES)}. Residents enjoy a ${pick(AMENITIES)} on level ${rng.int(2, 40)}, a ${pick(AMENITIES)} and a ${pick(AMENITIES)}. Suites range from ${rng.int(400, 900)} to ${rng.int(900, 1800)} sq. ft. with ${rng.int(9, 10)}' ceilings in principal rooms.`,
        });
      brochure.push({
        kind: 'bullets',
        items: Array.from({ length: 5 }, () => `${pick(FINISHES)} in the ${pick(ROOMS)}`),
      });
    }
    const b = await renderPdf(spec(`${key} Brochure`, brochure), layout);
    out.push({
      projectKey: key,
      name: `${key}-brochure.pdf`,
      category: 'brochure',
      bytes: b.bytes,
      pageCount: b.pageCount,
    });

    const floors = rng.int(5, 20);
    const prices: Block[] = [
      { kind: 'title', text: `${key} Price List`, subtitle: 'Effective January 2026' },
    ];
    for (let f = 0; f < floors; f++) {
      if (f > 0) prices.push({ kind: 'pageBreak' });
      prices.push({ kind: 'heading', text: `Floor ${f + 2}` });
      prices.push({
        kind: 'table',
        columns: [
          { header: 'Suite', width: 0.2 },
          { header: 'Plan', width: 0.3 },
          { header: 'Beds', width: 0.15, align: 'right' },
          { header: 'Sq. ft.', width: 0.15, align: 'right' },
          { header: 'Price', width: 0.2, align: 'right' },
        ],
        rows: Array.from({ length: 24 }, (_, s) => [
          `${f + 2}${String(s + 1).padStart(2, '0')}`,
          `Plan ${String.fromCharCode(65 + (s % 12))}`,
          `${rng.int(0, 3)}+${rng.int(0, 1)}`,
          `${rng.int(420, 1600)}`,
          `$${(rng.int(450, 1900) * 1000).toLocaleString('en-US')}`,
        ]),
      });
    }
    const p = await renderPdf(spec(`${key} Price List`, prices), layout);
    out.push({
      projectKey: key,
      name: `${key}-price-list.pdf`,
      category: 'price-list',
      bytes: p.bytes,
      pageCount: p.pageCount,
    });
  }
  return out;
}
