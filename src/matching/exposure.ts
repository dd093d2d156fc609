/** The eight compass points, in ring order: neighbours in this list are adjacent exposures. */
const POINTS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'] as const;
export type CompassPoint = (typeof POINTS)[number];

/**
 * Reads an exposure as listings write it: "SW", "S/W", "south-west", "Southwest", or a corner
 * suite's several faces ("N, E", "north & east"). Returns null when nothing is recognisable, so an
 * unreadable value counts as missing rather than as a mismatch.
 */
export function parseExposure(text: string): readonly CompassPoint[] | null {
  const known = parsed.get(text);
  if (known !== undefined) return known;
  const points = readExposure(text);
  // Plans carry a handful of distinct exposures and every listing is judged against each plan:
  // remembering the readings saves re-parsing the same few strings thousands of times a request.
  if (parsed.size >= MAX_REMEMBERED) parsed.clear();
  parsed.set(text, points);
  return points;
}

const MAX_REMEMBERED = 1024;
const parsed = new Map<string, readonly CompassPoint[] | null>();

function readExposure(text: string): readonly CompassPoint[] | null {
  const folded = text
    .toUpperCase()
    .replace(/NORTH/g, 'N')
    .replace(/SOUTH/g, 'S')
    .replace(/EAST/g, 'E')
    .replace(/WEST/g, 'W')
    // "S/W", "S-W" and "S.W." name one intercardinal point, not two faces.
    .replace(/\b([NS])\s*[/.-]\s*([EW])\b\.?/g, '$1$2');
  const tokens = folded.split(/\s*(?:,|;|&|\+|\bAND\b|\s)\s*/).filter(Boolean);
  const points = new Set<CompassPoint>();
  for (const token of tokens) {
    const point = POINTS.find((p) => p === token.replace(/\.$/, ''));
    if (!point) return null;
    points.add(point);
  }
  return points.size ? Object.freeze([...points]) : null;
}

/** Each point's place on the ring (its index in POINTS), looked up without a search. */
const RING_INDEX = Object.fromEntries(POINTS.map((p, i) => [p, i])) as Readonly<Record<CompassPoint, number>>;

/** Steps around the ring between two points: 0 same, 1 adjacent (SW and S), up to 4 opposite. */
export function compassDistance(a: CompassPoint, b: CompassPoint): number {
  const d = Math.abs(RING_INDEX[a] - RING_INDEX[b]);
  return Math.min(d, POINTS.length - d);
}

/**
 * The closest pair between two sets of faces, so a corner suite matches on any face it shares.
 * Every listing is compared with every plan of its building, so this is a plain indexed loop.
 */
export function closestExposure(a: readonly CompassPoint[], b: readonly CompassPoint[]): number {
  let best = Infinity;
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const d = compassDistance(a[i], b[j]);
      if (d < best) best = d;
    }
  }
  return best;
}
