import { FACT_END, FACT_START, queryOfMark, stripMarks } from './concepts.js';
import type { CorpusFact } from './manifest.js';
import { openDocument, PAGE } from './pdf-document.js';
import { wrap, type Measure } from './wrap.js';

/** Word widths are the same in every document (same fonts), so they are cached across documents. */
const WORD_WIDTHS = new Map<string, number>();

/** The content of one document, independent of how it is laid out. */
export type Block =
  | { kind: 'title'; text: string; subtitle?: string }
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'bullets'; items: string[] }
  | { kind: 'fields'; rows: [string, string][] }
  | { kind: 'table'; columns: TableColumn[]; rows: string[][] }
  | { kind: 'note'; text: string }
  | { kind: 'pageBreak' };

export interface TableColumn {
  header: string;
  /** Share of the text width. */
  width: number;
  align?: 'left' | 'right';
}

export interface DocumentSpec {
  title: string;
  author: string;
  /** Running header on every page. */
  header: string;
  /** Fixed creation date: the same seed must give the same bytes. */
  date: Date;
  accent: string;
  blocks: Block[];
}

export interface LayoutOptions {
  twoColumn: boolean;
  letterSpacedHeadings: boolean;
  /** Break long words across line ends with a visible hyphen. */
  hyphenate: boolean;
  userPassword?: string;
}

export interface RenderedPdf {
  bytes: Buffer;
  pageCount: number;
  facts: CorpusFact[];
}

interface TextStyle {
  font: 'body' | 'bold';
  size: number;
  leading: number;
  color: string;
  characterSpacing?: number;
}

const BODY: TextStyle = { font: 'body', size: 10.5, leading: 14.5, color: '#222222' };
const NOTE: TextStyle = { font: 'body', size: 8, leading: 11, color: '#555555' };

/**
 * Lays blocks out page by page (and column by column) and records where every marked mention
 * landed: its page and its exact surface, including the line breaks and hyphens the layout added.
 */
class Composer {
  readonly facts: CorpusFact[] = [];
  pageCount = 0;
  private column = 0;
  private columnTop = PAGE.top;
  private y = PAGE.top;

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly spec: DocumentSpec,
    private readonly opts: LayoutOptions,
  ) {}

  private get columnWidth(): number {
    const full = PAGE.width - 2 * PAGE.marginX;
    return this.opts.twoColumn ? (full - 24) / 2 : full;
  }

  private get x(): number {
    return PAGE.marginX + this.column * (this.columnWidth + 24);
  }

  private newPage(): void {
    this.doc.addPage({ size: 'LETTER', margin: 0 });
    this.pageCount++;
    this.column = 0;
    this.columnTop = this.y = PAGE.top;
    this.doc.rect(0, 0, PAGE.width, 6).fill(this.spec.accent);
    this.drawLine(this.spec.header, PAGE.marginX, 34, NOTE);
    this.drawLine(`Page ${this.pageCount}`, PAGE.width - PAGE.marginX - 40, PAGE.height - 40, NOTE);
  }

  private advance(): void {
    if (this.opts.twoColumn && this.column === 0) {
      this.column = 1;
      this.y = this.columnTop;
    } else this.newPage();
  }

  private ensure(height: number): void {
    if (this.pageCount === 0) this.newPage();
    if (this.y + height > PAGE.bottom && this.y > this.columnTop) this.advance();
  }

  /**
   * Width of a line as the sum of its words: shaping every candidate line again is what made
   * layout slow. Word widths are the same in every document, so they are cached across documents.
   */
  private measure(style: TextStyle): Measure {
    const spacing = style.characterSpacing ?? 0;
    const width = (word: string): number => {
      const key = `${style.font}|${style.size}|${spacing}|${word}`;
      let cached = WORD_WIDTHS.get(key);
      if (cached === undefined) {
        this.doc.font(style.font).fontSize(style.size);
        cached = this.doc.widthOfString(word, { characterSpacing: spacing });
        WORD_WIDTHS.set(key, cached);
      }
      return cached;
    };
    return (text) => {
      const words = stripMarks(text)
        .replace(/\u00AD/g, '')
        .split(' ');
      return words.reduce((sum, word) => sum + width(word), 0) + (words.length - 1) * width(' ');
    };
  }

  /** Draws one line; soft hyphens go through the `shy` font (see `openDocument`). */
  private drawLine(text: string, x: number, y: number, style: TextStyle): void {
    let left = x;
    const options = { lineBreak: false, characterSpacing: style.characterSpacing ?? 0 };
    for (const segment of stripMarks(text).split(/(\u00AD)/)) {
      if (!segment) continue;
      this.doc
        .font(segment === '\u00AD' ? 'shy' : style.font)
        .fontSize(style.size)
        .fillColor(style.color);
      this.doc.text(segment, left, y, options);
      left += this.doc.widthOfString(segment, options);
    }
  }

  /** Records the mentions in `lines`; a mention never spans two text units. */
  private record(lines: string[]): void {
    let open: CorpusFact | null = null;
    lines.forEach((line, index) => {
      for (let i = 0; i < line.length; i++) {
        const char = line[i];
        if (char === FACT_START) {
          open = { concept: queryOfMark(line[++i]), surface: '', page: this.pageCount };
        } else if (char === FACT_END && open) {
          this.facts.push(open);
          open = null;
        } else if (open) open.surface += char;
      }
      if (open && index < lines.length - 1) open.surface += '\n';
    });
  }

  /** A wrapped piece of text that stays in one column when it fits in one. */
  private textUnit(text: string, style: TextStyle, indent = 0, bullet = false): void {
    const width = this.columnWidth - indent;
    const lines = wrap(text, width, this.measure(style), this.opts.hyphenate && style === BODY);
    this.ensure(lines.length * style.leading);
    if (bullet) this.drawLine('\u2022', this.x + indent - 11, this.y, style);
    this.record(lines);
    for (const line of lines) {
      this.ensure(style.leading);
      this.drawLine(line, this.x + indent, this.y, style);
      this.y += style.leading;
    }
  }

  private heading(text: string, size: number, spaceBefore: number): void {
    const spaced = this.opts.letterSpacedHeadings;
    const style: TextStyle = {
      font: 'bold',
      size,
      leading: size * 1.4,
      color: this.spec.accent,
      characterSpacing: spaced ? size * 0.3 : 0,
    };
    this.ensure(spaceBefore + style.leading + 2 * BODY.leading);
    if (this.y > this.columnTop) this.y += spaceBefore;
    this.textUnit(spaced ? text.toUpperCase() : text, style);
  }

  private fields(rows: [string, string][]): void {
    const key: TextStyle = { ...BODY, font: 'bold' };
    const keyWidth = Math.max(...rows.map(([label]) => this.measure(key)(label))) + 14;
    for (const [label, value] of rows) {
      const lines = wrap(value, this.columnWidth - keyWidth, this.measure(BODY), this.opts.hyphenate);
      this.ensure(lines.length * BODY.leading + 3);
      this.drawLine(label, this.x, this.y, key);
      this.record(lines);
      for (const line of lines) {
        this.drawLine(line, this.x + keyWidth, this.y, BODY);
        this.y += BODY.leading;
      }
      this.y += 3;
    }
  }

  private table(columns: TableColumn[], rows: string[][]): void {
    const width = this.columnWidth;
    const style: TextStyle = { ...BODY, size: 9, leading: 16 };
    const header = (): void => {
      this.doc.rect(this.x, this.y - 4, width, style.leading).fill('#EEEEEE');
      this.row(
        columns,
        columns.map((c) => c.header),
        { ...style, font: 'bold' },
      );
    };
    this.ensure(3 * style.leading);
    header();
    for (const row of rows) {
      if (this.y + style.leading > PAGE.bottom) {
        this.advance();
        header();
      }
      this.row(columns, row, style);
    }
    this.y += 6;
  }

  private row(columns: TableColumn[], cells: string[], style: TextStyle): void {
    let left = this.x;
    // Where the previous cell's text ended: a cell wider than its column pushes the next one on,
    // so two cells never touch (extraction would read them as one word).
    let ended = -Infinity;
    columns.forEach((column, i) => {
      const cellWidth = column.width * this.columnWidth;
      const text = cells[i] ?? '';
      const width = this.measure(style)(text);
      const x = Math.max(column.align === 'right' ? left + cellWidth - 6 - width : left, ended + 8);
      this.record([text]);
      this.drawLine(text, x, this.y, style);
      if (text) ended = x + width;
      left += cellWidth;
    });
    this.y += style.leading;
  }

  layout(blocks: Block[]): void {
    for (const block of blocks) {
      switch (block.kind) {
        case 'title':
          this.heading(block.text, 22, 0);
          if (block.subtitle)
            this.textUnit(block.subtitle, { ...BODY, size: 12, leading: 17, color: '#444444' });
          this.y += 10;
          // Columns begin under the title.
          if (this.column === 0) this.columnTop = this.y;
          break;
        case 'heading':
          this.heading(block.text, 13, 10);
          break;
        case 'paragraph':
          this.textUnit(block.text, BODY);
          this.y += 6;
          break;
        case 'bullets':
          for (const item of block.items) this.textUnit(item, BODY, 14, true);
          this.y += 6;
          break;
        case 'fields':
          this.fields(block.rows);
          break;
        case 'table':
          this.table(block.columns, block.rows);
          break;
        case 'note':
          this.y += 4;
          this.textUnit(block.text, NOTE);
          break;
        case 'pageBreak':
          this.newPage();
          break;
      }
    }
  }
}

export async function renderPdf(spec: DocumentSpec, opts: LayoutOptions): Promise<RenderedPdf> {
  const { doc, done } = openDocument(spec, opts.userPassword);
  const composer = new Composer(doc, spec, opts);
  composer.layout(spec.blocks);
  doc.end();
  return { bytes: await done, pageCount: composer.pageCount, facts: composer.facts };
}
