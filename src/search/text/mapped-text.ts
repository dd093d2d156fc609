/**
 * Text that remembers where each of its UTF-16 units came from in an original string, so every
 * normalization step can rewrite text while excerpts and citations still point at the document's
 * own characters. `origins[i]` is the original index of unit `i`; one extra closing entry holds the
 * original length, so a span [s, e) maps back to [origins[s], origins[e]).
 */
export interface MappedText {
  readonly text: string;
  readonly origins: readonly number[];
}

export function identityMapped(raw: string): MappedText {
  const origins = new Array<number>(raw.length + 1);
  for (let i = 0; i <= raw.length; i++) origins[i] = i;
  return { text: raw, origins };
}

/**
 * Builds the next stage of a MappedText left to right. Stages only ever append in source order,
 * which is what keeps the final origins monotone.
 */
export class MappedTextBuilder {
  private readonly parts: string[] = [];
  private readonly origins: number[] = [];

  constructor(private readonly source: MappedText) {}

  /** Copies source units [from, to) unchanged, each with its own origin. */
  keep(from: number, to: number): void {
    if (to <= from) return;
    this.parts.push(this.source.text.slice(from, to));
    for (let i = from; i < to; i++) this.origins.push(this.source.origins[i]);
  }

  /** Emits `text` in place of source material starting at `at`; every emitted unit gets that origin. */
  emit(text: string, at: number): void {
    if (text.length === 0) return;
    this.parts.push(text);
    const origin = this.source.origins[at];
    for (let i = 0; i < text.length; i++) this.origins.push(origin);
  }

  build(): MappedText {
    this.origins.push(this.source.origins[this.source.text.length]);
    return { text: this.parts.join(''), origins: this.origins };
  }
}

/**
 * Rewrites every match of a global regex. `replace` returns the replacement, or null to leave the
 * match as it is. A replacement equal to the match is kept unit by unit, so re-normalizing already
 * normalized text leaves its origins untouched.
 */
export function replaceMapped(
  source: MappedText,
  pattern: RegExp,
  replace: (match: RegExpExecArray, text: string) => string | null,
): MappedText {
  if (!pattern.global) throw new Error('replaceMapped needs a global regular expression');
  const builder = new MappedTextBuilder(source);
  const { text } = source;
  let copied = 0;
  let changed = false;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (end === start) pattern.lastIndex++;
    const replacement = replace(match, text);
    if (replacement === null || replacement === match[0]) continue;
    builder.keep(copied, start);
    builder.emit(replacement, start);
    copied = end;
    changed = true;
  }
  if (!changed) return source;
  builder.keep(copied, text.length);
  return builder.build();
}
