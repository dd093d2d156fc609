import { randomBytes } from 'node:crypto';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';

/**
 * Hand-built PDFs that attack the extractor. Each is a valid file structure (header, objects,
 * cross-reference table, trailer) so pdf.js gets past parsing and meets the hostile part.
 */
function assemble(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const bytes = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(bytes);
    length += bytes.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
  ].join('\n');
  parts.push(Buffer.from(`${xref}\n`, 'latin1'));
  return Buffer.concat(parts);
}

function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** One real page, but the page tree claims `count` pages and lists that page `kids` times. */
export function hugePageCountPdf(count: number, kids = 1): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array(kids).fill('3 0 R').join(' ')}] /Count ${count} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('', Buffer.from('BT /F1 12 Tf 72 720 Td (Hello) Tj ET', 'latin1')),
    FONT,
  ]);
}

/** A page tree whose only kid is the tree itself. */
export function cyclicPageTreePdf(): Buffer {
  return assemble(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R] /Count 1 >>']);
}

/**
 * A small file whose compressed content stream inflates to `operations` text-showing operators:
 * a few hundred kilobytes that keep pdf.js busy (and allocating) for a long time.
 */
export function contentBombPdf(operations: number): Buffer {
  const op = Buffer.from('BT /F1 9 Tf 10 10 Td (ab) Tj ET\n', 'latin1');
  const content = Buffer.alloc(op.length * operations);
  for (let i = 0; i < operations; i++) op.copy(content, i * op.length);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('/Filter /FlateDecode', deflateSync(content)),
    FONT,
  ]);
}

/**
 * A zlib stream of `decodedBytes` zero bytes, built without inflating anything here: one raw
 * deflate segment of 16 MiB of zeros ends in a full flush (byte-aligned, no history), so it can be
 * repeated; a final empty block and the Adler-32 of the zeros close the stream. About 1 kB per
 * 16 MiB: a few hundred kilobytes become gigabytes.
 */
export function zerosFlate(decodedBytes: number): Buffer {
  const segmentBytes = 16 * 1024 * 1024;
  const segment = deflateRawSync(Buffer.alloc(segmentBytes), {
    level: 9,
    finishFlush: constants.Z_FULL_FLUSH,
  });
  const segments = Math.ceil(decodedBytes / segmentBytes);
  const total = segments * segmentBytes;
  const adler = Buffer.alloc(4);
  // Adler-32 of n zero bytes: A stays 1, B adds A once per byte.
  adler.writeUInt32BE((((total % 65521) << 16) >>> 0) + 1);
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array<Buffer>(segments).fill(segment),
    Buffer.from([0x03, 0x00]),
    adler,
  ]);
}

/**
 * A decompression bomb: one page whose content stream inflates to `decodedBytes` (gigabytes) of
 * zero bytes, which PDF reads as whitespace, so pdf.js keeps inflating into memory until it ends.
 */
export function flateBombPdf(decodedBytes: number): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('/Filter /FlateDecode', zerosFlate(decodedBytes)),
    FONT,
  ]);
}

/**
 * A text-heavy document: `chars` characters of words in lines of ~90 characters, 60 lines a
 * page, in Helvetica, content streams compressed. 5 MB of text is ~930 pages and ~1.5 MB on disk.
 */
export function textHeavyPdf(chars: number, seed = 1): Buffer {
  const words = [
    'quartz',
    'suite',
    'balcony',
    'deposit',
    'tower',
    'amenity',
    'parking',
    'locker',
    'kitchen',
    'ceiling',
    'incentive',
    'assignment',
    'floor',
    'plan',
    'south',
    'view',
    'levy',
    'hvac',
  ];
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const lines: string[] = [];
  let total = 0;
  while (total < chars) {
    let line = '';
    while (line.length < 90)
      line += `${words[next() % words.length]}${next() % 7 === 0 ? ` ${next() % 1000}` : ''} `;
    lines.push(line.trimEnd());
    total += line.length;
  }
  const perPage = 60;
  const pageCount = Math.ceil(lines.length / perPage);
  // Objects: 1 catalog, 2 pages, 3 font, then a page and its content stream per page.
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pageCount }, (_, i) => `${4 + 2 * i} 0 R`).join(' ')}] /Count ${pageCount} >>`,
    FONT,
  ];
  for (let p = 0; p < pageCount; p++) {
    const body = lines
      .slice(p * perPage, (p + 1) * perPage)
      .map((l) => `(${l}) Tj T*`)
      .join('\n');
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${5 + 2 * p} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
      stream(
        '/Filter /FlateDecode',
        deflateSync(Buffer.from(`BT /F1 7 Tf 12 TL 20 770 Td\n${body}\nET`, 'latin1')),
      ),
    );
  }
  return assemble(objects);
}

/**
 * A one-page PDF with `text` on it, exactly `size` bytes long: an unreferenced stream of
 * incompressible bytes fills the rest (uploads near a size limit).
 */
export function paddedPdf(size: number, text: string): Buffer {
  const page = (padding: number) =>
    assemble([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      stream('', Buffer.from(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET`, 'latin1')),
      FONT,
      stream('', randomBytes(padding)),
    ]);
  // The stream's /Length and the xref offsets grow with the padding's digits: measure, then fit.
  const overhead = page(0).length;
  let padding = Math.max(0, size - overhead - 20);
  for (let pdf = page(padding); ; pdf = page(padding)) {
    if (pdf.length === size) return pdf;
    if (padding === 0 && pdf.length > size) throw new Error(`a PDF cannot be as small as ${size} bytes`);
    padding += size - pdf.length;
  }
}

/**
 * Scanned pages: `pages` pages that each paint the same grey image XObject over the whole page,
 * with no text. `image` is the image's stream data with its filter (a JPEG: `DCTDecode`; a bomb:
 * `FlateDecode` over zerosFlate), `width` × `height` its claimed pixels, `mediaBox` the page size
 * in points.
 */
export function imagePagesPdf(opts: {
  pages: number;
  width: number;
  height: number;
  data: Buffer;
  filter: 'DCTDecode' | 'FlateDecode';
  mediaBox?: [number, number];
}): Buffer {
  const [w, h] = opts.mediaBox ?? [612, 792];
  const pageIds = Array.from({ length: opts.pages }, (_, i) => `${i + 5} 0 R`);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.join(' ')}] /Count ${opts.pages} >>`,
    stream(
      `/Type /XObject /Subtype /Image /Width ${opts.width} /Height ${opts.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /${opts.filter}`,
      opts.data,
    ),
    stream('', Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im1 Do Q`, 'latin1')),
    ...pageIds.map(
      () =>
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents 4 0 R /Resources << /XObject << /Im1 3 0 R >> >> >>`,
    ),
  ]);
}
