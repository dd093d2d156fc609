/**
 * Parts of docs/ and .env.example that are generated from the code's own contracts. A part is a
 * whole file or a marked region of a hand-written page: the prose around a region stays as it
 * is. `npm run docs:emit` (and `npm run schema:emit`) writes them; a test fails when one drifts.
 */
export interface GeneratedPart {
  /** Path from the repository root. */
  readonly file: string;
  /** The region's name inside `file`, or absent when the whole file is generated. */
  readonly region?: string;
  /** Where the text comes from, for the marker a reader sees. */
  readonly source: string;
  readonly text: string;
}

export const EMIT_COMMAND = 'npm run docs:emit';

const begin = (region: string) => `<!-- generated:${region}`;
const end = (region: string) => `<!-- end generated:${region} -->`;

/**
 * The markers around a generated region. Prettier leaves the region alone, so the generated
 * tables stay unpadded and the drift test compares like with like.
 */
export function regionBlock(part: GeneratedPart): string {
  const region = part.region!;
  return [
    '<!-- prettier-ignore-start -->',
    `${begin(region)} from ${part.source} by \`${EMIT_COMMAND}\`: edit the source, not this part -->`,
    '',
    part.text.trimEnd(),
    '',
    end(region),
    '<!-- prettier-ignore-end -->',
  ].join('\n');
}

/** `current` with the part written in: the whole text, or the region between its markers replaced. */
export function applyPart(current: string | null, part: GeneratedPart): string {
  if (!part.region) return part.text;
  if (current === null) throw new Error(`${part.file} does not exist; it needs the ${part.region} region`);
  const start = current.indexOf('<!-- prettier-ignore-start -->\n' + begin(part.region));
  const stop = current.indexOf(end(part.region));
  if (start < 0 || stop < start) {
    throw new Error(
      `${part.file} has no generated region "${part.region}": put the line ${begin(part.region)} -->` +
        ` (and ${end(part.region)} after it, each inside prettier-ignore-start/end) where it belongs`,
    );
  }
  const after = current.indexOf('<!-- prettier-ignore-end -->', stop);
  const tail = after < 0 ? stop + end(part.region).length : after + '<!-- prettier-ignore-end -->'.length;
  return current.slice(0, start) + regionBlock(part) + current.slice(tail);
}
